import { productAdmin } from "@shelf/api";
import { flag, optionalInteger, optionalString, requiredString, UsageError } from "../args";
import type { Command } from "../command";

export const productCreate: Command = {
  name: "product:create",
  summary: "Create a product",
  synopsis:
    "--name N [--slug S] [--kind app|skill|extension|tool] [--description D] [--price-cents N] [--list-price-cents N] [--currency C] [--published|--unpublished] [--device-limit N]",
  details: ["Prices are integers in minor units (cents). Defaults: kind app, price 0, USD, published."],
  options: {
    name: { type: "string" },
    slug: { type: "string" },
    kind: { type: "string" },
    description: { type: "string" },
    "price-cents": { type: "string" },
    "list-price-cents": { type: "string" },
    currency: { type: "string" },
    published: { type: "boolean" },
    unpublished: { type: "boolean" },
    "device-limit": { type: "string" },
  },
  prepare(values) {
    if (flag(values, "published") && flag(values, "unpublished")) {
      throw new UsageError("Use either --published or --unpublished, not both.");
    }
    const input = {
      name: requiredString(values, "name"),
      slug: optionalString(values, "slug"),
      kind: optionalString(values, "kind"),
      description: optionalString(values, "description"),
      unitPriceCents: optionalInteger(values, "price-cents"),
      listPriceCents: optionalInteger(values, "list-price-cents"),
      currency: optionalString(values, "currency"),
      published: !flag(values, "unpublished"),
      deviceLimit: optionalInteger(values, "device-limit", { min: 1 }),
    };
    return async ({ db }) => {
      const product = await productAdmin.createProduct(db, input);
      const price = `${(product.unit_price_cents / 100).toFixed(2)} ${product.currency}`;
      const slug = product.slug ? ` (${product.slug})` : "";
      return {
        json: product,
        text: `Created product ${product.id}: ${product.name}${slug}, ${product.kind}, ${price}, ${product.published ? "published" : "unpublished"}.`,
      };
    };
  },
};

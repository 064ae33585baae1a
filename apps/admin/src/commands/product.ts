import { lineageAdmin, productAdmin } from "@shelf/api";
import {
  flag,
  optionalInteger,
  optionalList,
  optionalString,
  requiredInteger,
  requiredString,
  UsageError,
} from "../args";
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

export const productUpdate: Command = {
  name: "product:update",
  summary: "Change a product's device limit, its manual's steps or where it is bought",
  synopsis: "--id ID [--device-limit N|none] [--manual-steps JSON] [--purchase-url URL|none]",
  details: [
    "--device-limit: how many devices may hold a seat (none: no limit). Lowering it keeps the seats already taken;",
    'new devices wait for a free one. --manual-steps: a JSON array of strings, e.g. \'["Download","Open it"]\'; setup',
    "progress counts against these steps. --purchase-url: the seller's store or payment link for this product (http or",
    "https; none: nowhere); the account pages offer it as Buy, and as Renew once access ended.",
  ],
  options: {
    id: { type: "string" },
    "device-limit": { type: "string" },
    "manual-steps": { type: "string" },
    "purchase-url": { type: "string" },
  },
  prepare(values) {
    const id = requiredInteger(values, "id", { min: 1 });
    const limit = optionalString(values, "device-limit");
    const steps = optionalString(values, "manual-steps");
    const url = optionalString(values, "purchase-url");
    if (limit === undefined && steps === undefined && url === undefined) {
      throw new UsageError("Name at least one of --device-limit, --manual-steps and --purchase-url.");
    }
    const purchaseUrl = url === undefined ? undefined : url.trim() === "none" ? null : url;
    const deviceLimit =
      limit === undefined
        ? undefined
        : limit.trim() === "none"
          ? null
          : optionalInteger(values, "device-limit", { min: 1 });
    let manualSteps: string[] | undefined;
    if (steps !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(steps);
      } catch {
        throw new UsageError('--manual-steps must be a JSON array of strings, e.g. ["Download","Open it"].');
      }
      if (!Array.isArray(parsed) || !parsed.every((step) => typeof step === "string")) {
        throw new UsageError('--manual-steps must be a JSON array of strings, e.g. ["Download","Open it"].');
      }
      manualSteps = parsed;
    }
    return async ({ db }) => {
      const product = await productAdmin.updateProduct(db, { id, deviceLimit, manualSteps, purchaseUrl });
      return {
        json: product,
        text: `Updated product ${product.id} (${product.name}): device limit ${product.device_limit ?? "none"}, ${product.manual_steps.length} manual step(s), bought at ${product.purchase_url ?? "nowhere"}.`,
      };
    };
  },
};

export const lineageCreate: Command = {
  name: "lineage:create",
  summary: "Create a lineage (a product family, public at /api/lineages) and put products in it",
  synopsis: "--slug S --name N [--description D] [--products 1,2] [--position N] [--inactive]",
  details: ["A product belongs to one lineage at most: naming it here moves it from the one it was in."],
  options: {
    slug: { type: "string" },
    name: { type: "string" },
    description: { type: "string" },
    products: { type: "string" },
    position: { type: "string" },
    inactive: { type: "boolean" },
  },
  prepare(values) {
    const productIds = (optionalList(values, "products") ?? []).map((id) => {
      if (!/^\d+$/.test(id)) throw new UsageError(`--products must be product ids separated by commas, got "${id}".`);
      return Number(id);
    });
    const input = {
      slug: requiredString(values, "slug"),
      name: requiredString(values, "name"),
      description: optionalString(values, "description"),
      position: optionalInteger(values, "position"),
      active: !flag(values, "inactive"),
      productIds,
    };
    return async ({ db }) => {
      const lineage = await lineageAdmin.createLineage(db, input);
      return {
        json: lineage,
        text: `Created lineage ${lineage.slug} (id ${lineage.id}${lineage.active ? "" : ", inactive"}) with ${lineage.product_ids.length} product(s).`,
      };
    };
  },
};

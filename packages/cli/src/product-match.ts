import { LibraryApiData, ProductApiData } from "@shelf/api/schemas";
import { z } from "zod";
import { CliError, ExitCode } from "./errors";
import type { ApiClient } from "./http";

const ProductsData = z.object({ products: z.array(ProductApiData) });

export type ProductRef = { id: number; name: string };

/** A product name as a slug: lower case, words joined by dashes ("Color Picker Pro" is `color-picker-pro`). */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^\p{Letter}\p{Number}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * The one product `term` names among `candidates`: its id, its exact name or slug (any case), else the only name
 * containing it. Several matches are a usage error (exit 2) listing them; none is exit 6.
 */
export function matchProduct<T extends ProductRef>(term: string, candidates: T[]): T {
  const wanted = term.trim();
  if (/^\d+$/.test(wanted)) {
    const byId = candidates.find((candidate) => candidate.id === Number(wanted));
    if (byId) return byId;
  }
  const lower = wanted.toLowerCase();
  const slug = slugify(wanted);
  const exact = candidates.filter(
    (candidate) => candidate.name.toLowerCase() === lower || slugify(candidate.name) === slug,
  );
  const matches =
    exact.length > 0
      ? exact
      : candidates.filter(
          (candidate) => candidate.name.toLowerCase().includes(lower) || slugify(candidate.name).includes(slug),
        );
  if (matches.length === 1) return matches[0] as T;
  if (matches.length === 0) {
    throw new CliError(
      `No product matches "${term}".`,
      ExitCode.notFound,
      "product_not_found",
      "`shelf library` lists yours, `shelf products` the catalog.",
    );
  }
  const listed = matches.map((match) => `  ${match.id}  ${match.name}`).join("\n");
  throw new CliError(
    `"${term}" matches several products:\n${listed}`,
    ExitCode.usage,
    "ambiguous_product",
    "Name one by its id or its full name.",
    { candidates: matches.map((match) => ({ id: match.id, name: match.name })) },
  );
}

/** The product `term` names, among the account's library or the whole catalog. */
export async function resolveProduct(api: ApiClient, term: string, among: "library" | "catalog"): Promise<ProductRef> {
  if (among === "library") {
    const data = await api.get("/api/library", LibraryApiData);
    return matchProduct(
      term,
      data.items.map((item) => ({ id: item.product.id, name: item.product.name })),
    );
  }
  const data = await api.get("/api/products", ProductsData);
  return matchProduct(term, data.products);
}

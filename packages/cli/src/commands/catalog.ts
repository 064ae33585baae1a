import { LibraryApiData, ProductApiData, ProductReleaseData, ProductUpdateApiData } from "@shelf/api/schemas";
import { z } from "zod";
import type { Context } from "../context";
import { readInstalls } from "../installs";
import type { LibraryOutput, ProductsOutput, ReleasesOutput, UpdatesOutput } from "../output";
import { resolveProduct } from "../product-match";
import { table } from "../table";

const ProductsData = z.object({ products: z.array(ProductApiData) });
const ReleasesData = z.object({ releases: z.array(ProductReleaseData) });
const UpdateData = z.object({ update: ProductUpdateApiData });

/** The terminal's width when stdout is one: tables fit it. */
const terminal = () => ({ columns: process.stdout.isTTY ? process.stdout.columns : undefined });

export async function library(context: Context): Promise<z.infer<typeof LibraryOutput>> {
  const api = await context.api();
  const data = await api.get("/api/library", LibraryApiData);
  const installs = await readInstalls(context.dirs);
  const items = data.items.map((item) => ({
    id: item.product.id,
    name: item.product.name,
    type: item.product.type_label,
    access_source: item.access_source,
    strategy: item.product.delivery.strategy,
    setup: { completed_count: item.setup_progress.completed_count, total_count: item.setup_progress.total_count },
    installed_version: installs[String(item.product.id)]?.version ?? null,
  }));
  if (items.length === 0) context.print("Your library is empty: `shelf products` lists what the service offers.");
  else {
    context.print(
      table(
        [
          ["ID", "NAME", "TYPE", "ACCESS", "SETUP", "INSTALLED"],
          ...items.map((item) => [
            String(item.id),
            item.name,
            item.type,
            item.access_source,
            item.setup.total_count ? `${item.setup.completed_count}/${item.setup.total_count}` : "-",
            item.installed_version ?? "-",
          ]),
        ],
        { ...terminal(), shrink: 1 },
      ),
    );
  }
  return { items };
}

export async function products(context: Context, options: { q?: string }): Promise<z.infer<typeof ProductsOutput>> {
  const api = await context.api();
  const data = await api.get("/api/products", ProductsData, { query: { q: options.q } });
  const list = data.products.map((product) => ({
    id: product.id,
    name: product.name,
    description: product.description,
    entitled: product.entitled,
    unit_price_cents: product.unit_price_cents,
    currency: product.currency,
  }));
  if (list.length === 0) context.print(options.q ? `No product matches "${options.q}".` : "The catalog is empty.");
  else {
    const price = (cents: number, currency: string) =>
      new Intl.NumberFormat("en", { style: "currency", currency }).format(cents / 100);
    context.print(
      table(
        [
          ["ID", "NAME", "PRICE", "YOURS"],
          ...list.map((product) => [
            String(product.id),
            product.name,
            price(product.unit_price_cents, product.currency),
            product.entitled ? "yes" : "",
          ]),
        ],
        { ...terminal(), shrink: 1 },
      ),
    );
  }
  return { products: list };
}

export async function releases(context: Context, term: string): Promise<z.infer<typeof ReleasesOutput>> {
  const api = await context.api();
  const product = await resolveProduct(api, term, "catalog");
  const data = await api.get(`/api/products/${product.id}/releases`, ReleasesData);
  const list = data.releases.map((release) => ({
    id: release.id,
    version: release.version,
    notes: release.notes,
    released_at: release.released_at,
  }));
  if (list.length === 0) context.print(`${product.name} has no releases yet.`);
  else {
    context.print(
      table(
        [
          ["VERSION", "RELEASED", "NOTES"],
          ...list.map((release) => [
            release.version,
            release.released_at.slice(0, 10),
            (release.notes ?? "").split("\n")[0] ?? "",
          ]),
        ],
        { ...terminal(), shrink: 2 },
      ),
    );
  }
  return { product: { id: product.id, name: product.name }, releases: list };
}

/** What each installed product's newest version is, as the service sees it for the installed version. */
export async function checkUpdates(context: Context, only?: number) {
  const api = await context.api();
  const installs = await readInstalls(context.dirs);
  const found = [];
  for (const [id, installed] of Object.entries(installs)) {
    if (only !== undefined && Number(id) !== only) continue;
    const data = await api.get(`/api/products/${id}/updates`, UpdateData, {
      query: { version: installed.version, channel: installed.channel ?? undefined },
    });
    found.push({
      id: Number(id),
      name: installed.name,
      installed_version: installed.version,
      current_version: data.update.current_version,
      update_available: data.update.update_available,
      download_allowed: data.update.download_allowed,
    });
  }
  return found;
}

export async function updates(context: Context): Promise<z.infer<typeof UpdatesOutput>> {
  const found = await checkUpdates(context);
  if (found.length === 0) context.print("Nothing is installed with shelf yet.");
  else {
    context.print(
      table(
        [
          ["ID", "NAME", "INSTALLED", "NEWEST", ""],
          ...found.map((entry) => [
            String(entry.id),
            entry.name,
            entry.installed_version,
            entry.current_version,
            entry.update_available
              ? entry.download_allowed
                ? "update available: shelf update"
                : "newer version outside your update window"
              : "up to date",
          ]),
        ],
        { ...terminal(), shrink: 1 },
      ),
    );
  }
  return { updates: found };
}

import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { ACTIVE_ENTITLEMENT_E, BEST_ENTITLEMENT_FIRST_E, entitledSql } from "../products/access";
import { setupStepCount, toDeliveryData, toSetupProgressData, typeLabel } from "../products/format";
import { bundleDownloadUrl, withinUpdateWindow } from "../products/service";
import type { LibraryApiData } from "./schemas";

const { releases, mcpServers, setupProgress, productSetupOutputs, productInstallAssets } = schema;

/**
 * The account's usable products with everything a client needs to set them up, in one SQL statement whatever
 * the number of products: the best live entitlement comes from correlated subqueries, the product's outputs,
 * assets, newest stable release, MCP server and setup progress from drizzle's relational query (lateral joins).
 */
export async function getLibrary(db: Database, caller: Caller, baseUrl: string): Promise<LibraryApiData> {
  const { accountId } = caller;
  const best = (expression: string, productId: unknown) =>
    sql`(select ${sql.raw(expression)} from entitlements e where e.account_id = ${accountId} and e.product_id = ${productId} and ${ACTIVE_ENTITLEMENT_E} order by ${BEST_ENTITLEMENT_FIRST_E} limit 1)`;

  const rows = await db.query.products.findMany({
    columns: {
      id: true,
      name: true,
      kind: true,
      description: true,
      delivery: true,
      manual: true,
      runtime: true,
      platforms: true,
      thumbnailHtml: true,
      heroPath: true,
      heroAlt: true,
    },
    extras: (p) => ({
      accessSource: best("e.grant_type", p.id).mapWith(String).as("access_source"),
      // Epoch milliseconds; -1 stands for "updates supported forever" so that null can mean "no entitlement".
      updatesUntilMs: best("coalesce(extract(epoch from e.updates_supported_until) * 1000, -1)::float8", p.id)
        .mapWith(Number)
        .as("updates_until_ms"),
    }),
    where: (p) => and(entitledSql(accountId, p.id), caller.productId === null ? undefined : eq(p.id, caller.productId)),
    orderBy: (p) => [asc(p.name), asc(p.id)],
    with: {
      setupOutputs: { orderBy: [asc(productSetupOutputs.position), asc(productSetupOutputs.id)] },
      installAssets: { orderBy: [asc(productInstallAssets.position), asc(productInstallAssets.id)] },
      releases: {
        where: eq(releases.channel, "stable"),
        orderBy: [desc(releases.releasedAt), desc(releases.id)],
        limit: 1,
      },
      mcpServers: { where: eq(mcpServers.accountId, accountId), with: { tools: true }, limit: 1 },
      setupProgress: { where: eq(setupProgress.accountId, accountId), limit: 1 },
    },
  });

  return {
    items: rows.map((product) => {
      const release = product.releases[0];
      const server = product.mcpServers[0];
      const updatesUntil = product.updatesUntilMs < 0 ? null : new Date(product.updatesUntilMs);
      const downloadable =
        release !== undefined &&
        release.artifactSha256 !== null &&
        withinUpdateWindow(updatesUntil, release.releasedAt);
      return {
        access_source: product.accessSource,
        thumbnail_html: product.thumbnailHtml,
        hero_path: product.heroPath,
        hero_alt: product.heroAlt,
        product: {
          id: product.id,
          name: product.name,
          type_label: typeLabel(product.kind),
          description: product.description,
          delivery: toDeliveryData(product.delivery),
          manual: product.manual ?? null,
          outputs: product.setupOutputs.map((output) => ({
            id: output.id,
            title: output.title,
            category_label: output.categoryLabel,
            summary: output.summary,
            prompt: output.prompt,
            usage_guide: output.usageGuide,
            action_url: output.actionUrl,
          })),
          install_assets: product.installAssets.map((asset) => ({
            platform: asset.platform,
            label: asset.label,
            path: asset.path,
            download_url: `${baseUrl}/api/products/${product.id}/content-assets/${asset.path.split("/").map(encodeURIComponent).join("/")}`,
          })),
          runtime: product.runtime,
          platforms: product.platforms,
        },
        setup_progress: toSetupProgressData(setupStepCount(product), product.setupProgress[0]),
        mcp_server: server
          ? {
              id: server.id,
              user_id: server.accountId,
              product_id: server.productId,
              name: server.name,
              enabled: server.enabled,
              product_name: product.name,
              tools: server.tools
                .sort((a, b) => a.id - b.id)
                .map((tool) => ({
                  id: tool.id,
                  mcp_server_id: tool.mcpServerId,
                  product_id: tool.productId,
                  name: tool.name,
                  enabled: tool.enabled,
                })),
            }
          : null,
        bundle: release
          ? {
              available: downloadable,
              sha256: release.artifactSha256,
              size: release.artifactSize,
              download_url: downloadable ? bundleDownloadUrl(baseUrl, product.id) : null,
            }
          : null,
      };
    }),
  };
}

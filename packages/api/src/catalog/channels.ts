import { schema } from "@shelf/db";
import { type ReleaseChannel, releaseChannels } from "@shelf/db/enums";
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";

const { releases } = schema;

/**
 * What a client following a channel sees: `stable` only stable releases; `beta` beta and stable; `alpha` alpha, beta
 * and stable; `dev` everything. The newest of those (by semver) is what it is offered.
 */
export function visibleChannels(channel: ReleaseChannel): ReleaseChannel[] {
  return releaseChannels.slice(0, releaseChannels.indexOf(channel) + 1);
}

/** Newest first in semver precedence (the generated `version_sort`, compared byte by byte), then newest published. */
export const NEWEST_VERSION_FIRST_SQL = newestVersionFirstSql();

/** The same order, for releases under a table alias (`r`). */
export function newestVersionFirstSql(alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `${column("version_sort")} collate "C" desc nulls last, ${column("released_at")} desc, ${column("id")} desc`;
}

/**
 * For prepared queries: the releases of the product `$productId` on the channels `$channels` that are offered (not
 * yanked), plus any further conditions.
 */
export function offeredReleases(...more: SQL[]) {
  return and(
    eq(releases.productId, sql.placeholder("productId")),
    sql`${releases.channel} = any(${sql.placeholder("channels")}::release_channel[])`,
    isNull(releases.yankedAt),
    ...more,
  );
}

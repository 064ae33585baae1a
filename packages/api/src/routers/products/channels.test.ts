import { schema } from "@shelf/db";
import { and, eq as sqlEq } from "drizzle-orm";
import fc from "fast-check";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { visibleChannels } from "../../catalog/channels";
import { createAccountWithKey, createProduct, createRelease, grantEntitlement } from "../../testing";
import { withApiSuite } from "../../testing/suite";
import { yankRelease } from "./admin-service";

const { testDb, request } = withApiSuite();

const sha = "c".repeat(64);

describe("release order and channels", () => {
  it("orders versions in semver precedence in SQL (generated version_sort, checked against the semver library)", async () => {
    const identifier = fc.oneof(
      fc.constantFrom("alpha", "beta", "rc", "a-b", "x", "0", "1", "2", "10", "11"),
      fc.nat({ max: 30 }).map(String),
    );
    const version = fc
      .tuple(
        fc.nat({ max: 12 }),
        fc.nat({ max: 12 }),
        fc.nat({ max: 12 }),
        fc.option(fc.array(identifier, { minLength: 1, maxLength: 3 }), { nil: undefined }),
        fc.option(fc.constantFrom("build.5", "sha.abc"), { nil: undefined }),
      )
      .map(
        ([major, minor, patch, pre, build]) =>
          `${major}.${minor}.${patch}${pre ? `-${pre.join(".")}` : ""}${build ? `+${build}` : ""}`,
      )
      .filter((candidate) => semver.valid(candidate) !== null);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(version, { minLength: 2, maxLength: 12 }), async (versions) => {
        const rows = await testDb.sql<{ version: string }[]>`
          select v as version from unnest(${versions}::text[]) v
          order by shelf_semver_sort_key(v) collate "C"`;
        const bySql = rows.map((row) => row.version);
        for (let i = 1; i < bySql.length; i++) {
          expect(semver.compare(bySql[i - 1] as string, bySql[i] as string), bySql.join(" ")).toBeLessThanOrEqual(0);
        }
      }),
      { seed: 7, numRuns: 200 },
    );
    const [row] = await testDb.sql<{ key: string | null }[]>`select shelf_semver_sort_key('1.2') as key`;
    expect(row?.key).toBeNull();
  });

  it("keeps the key 0003's SQL function gave, byte for byte, now that it is PL/pgSQL (stored version_sort stays valid)", async () => {
    // 0003's body, as it was: the generated column's values in every database were written by it.
    await testDb.sql.unsafe(`
      create function semver_sort_key_0003(version text) returns text language sql immutable strict as $$
        select case when m is null then null else
          lpad(m[1], 10, '0') || '.' || lpad(m[2], 10, '0') || '.' || lpad(m[3], 10, '0') ||
          case when m[4] is null then '~' else '-' || (
            select string_agg(case when id ~ '^(0|[1-9][0-9]{0,19})$' then '0' || lpad(id, 20, '0') else '1' || id end, '!' order by n)
            from unnest(string_to_array(m[4], '.')) with ordinality as p(id, n)
          ) end
        end
        from (select regexp_match(version,
          '^v?(0|[1-9][0-9]{0,9})\\.(0|[1-9][0-9]{0,9})\\.(0|[1-9][0-9]{0,9})(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+[0-9A-Za-z.-]+)?$') as m) as parsed
      $$`);
    const number = fc.oneof(
      { arbitrary: fc.nat({ max: 40 }).map(String), weight: 8 },
      { arbitrary: fc.constantFrom("01", "", "x", "9999999999", "10000000000", "4294967296"), weight: 1 },
    );
    const identifier = fc.oneof(
      {
        arbitrary: fc.constantFrom("alpha", "beta", "rc", "a-b", "0", "1", "10", "007", "99999999999999999999"),
        weight: 4,
      },
      { arbitrary: fc.nat({ max: 5000 }).map(String), weight: 2 },
      { arbitrary: fc.stringMatching(/^[0-9A-Za-z+_-]{0,6}$/), weight: 1 },
    );
    const version = fc
      .tuple(
        fc.constantFrom("", "", "", "v", "V"),
        number,
        number,
        number,
        fc.option(fc.array(identifier, { maxLength: 4 }), { nil: undefined }),
        fc.constantFrom("", "", "+b.1", "+", "+ok-1.2"),
      )
      .map(([prefix, a, b, c, pre, build]) => `${prefix}${a}.${b}.${c}${pre ? `-${pre.join(".")}` : ""}${build}`);
    const versions = [...fc.sample(version, { seed: 11, numRuns: 3000 }), "1.2", "1.2.3", "1.2.3-0", "1.2.3-rc.1+sha"];
    const rows = await testDb.sql<{ version: string; now: string | null; then: string | null }[]>`
      select v as version, shelf_semver_sort_key(v) as now, semver_sort_key_0003(v) as then
      from unnest(${versions}::text[]) v`;
    const differing = rows.filter((row) => row.now !== row.then);
    expect(differing).toEqual([]);
    // The sample holds valid versions, pre-releases among them, and malformed ones.
    expect(rows.filter((row) => row.then?.includes("-")).length).toBeGreaterThan(20);
    expect(rows.filter((row) => row.then !== null).length).toBeGreaterThan(100);
    expect(rows.filter((row) => row.then === null).length).toBeGreaterThan(100);
  });

  it("lets each channel see its own and the steadier ones", () => {
    expect(visibleChannels("stable")).toEqual(["stable"]);
    expect(visibleChannels("beta")).toEqual(["stable", "beta"]);
    expect(visibleChannels("alpha")).toEqual(["stable", "beta", "alpha"]);
    expect(visibleChannels("dev")).toEqual(["stable", "beta", "alpha", "dev"]);
  });

  it("offers each channel's newest release by semver, never a yanked one, in update checks and the library", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id);
    const publish = (version: string, channel: "stable" | "beta" | "alpha" | "dev", daysAgo: number) =>
      createRelease(db, product.id, {
        version,
        channel,
        artifactSha256: sha,
        artifactSize: 10,
        releasedAt: new Date(Date.now() - daysAgo * 86_400_000),
      });
    // Published out of order on purpose: 1.10.0 after 1.9.0 by semver, though released earlier.
    await publish("1.10.0", "stable", 20);
    await publish("1.9.0", "stable", 10);
    await publish("2.0.0-beta.2", "beta", 5);
    await publish("2.0.0-beta.10", "beta", 6);
    await publish("2.0.0-alpha.1", "alpha", 8);
    const dev = await publish("3.0.0-dev.1", "dev", 1);
    const offered = async (channel?: string) => {
      const response = await request(
        `/api/products/${product.id}/updates?version=1.0.0${channel ? `&channel=${channel}` : ""}`,
        { key },
      );
      expect(response.status, response.text).toBe(200);
      return response.body.update.current_version;
    };
    expect(await offered()).toBe("1.10.0");
    expect(await offered("stable")).toBe("1.10.0");
    expect(await offered("beta")).toBe("2.0.0-beta.10");
    expect(await offered("alpha")).toBe("2.0.0-beta.10");
    expect(await offered("dev")).toBe("3.0.0-dev.1");
    expect((await request(`/api/products/${product.id}/updates?channel=nightly`, { key })).status).toBe(422);

    await yankRelease(db, dev.id);
    const again = await yankRelease(db, dev.id);
    expect(await offered("dev")).toBe("2.0.0-beta.10");
    const [row] = await db.select().from(schema.releases).where(eqId(dev.id));
    expect(row?.yankedAt?.toISOString()).toBe(again.yanked_at);
    const releases = (await request(`/api/products/${product.id}/releases`, { key })).body.releases;
    expect(releases.map((release: { version: string }) => release.version)).toEqual([
      "2.0.0-beta.10",
      "2.0.0-beta.2",
      "2.0.0-alpha.1",
      "1.10.0",
      "1.9.0",
    ]);
    const library = (await request("/api/library", { key })).body.items[0];
    expect(library.bundle).toMatchObject({ available: true, sha256: sha });
    const [stable] = await db.select().from(schema.releases).where(versionIs(product.id, "1.10.0"));
    await yankRelease(db, stable?.id as number);
    expect(await offered()).toBe("1.9.0");
  });
});

function eqId(id: number) {
  return sqlEq(schema.releases.id, id);
}
function versionIs(productId: number, version: string) {
  return and(sqlEq(schema.releases.productId, productId), sqlEq(schema.releases.version, version));
}

import { randomBytes } from "node:crypto";
import { LICENSE_STATE_SQL } from "@shelf/api";
import { createDb } from "@shelf/db";
import { databaseUrl, runMigrations } from "@shelf/db/server";
import postgres from "postgres";
import { loadBenchData } from "./data";
import { timeStatement } from "./harness";

/**
 * The license check's state statement in two forms, each run alone on one connection, prepared (so on its generic
 * plan, as the API runs it), for the benchmark's update product with 2 releases and then with 200: the app version's
 * sort key as a plain call, which the generic plan evaluates for every release of the product, and as a scalar
 * subquery, computed once (the API's form). Both must answer the same. DATABASE_URL names the server;
 * SHELF_LICENSE_SQL_RUNS how many statements per form (1000).
 */
const RUNS = Number(process.env.SHELF_LICENSE_SQL_RUNS ?? 1000);
const ONCE = "r.version_sort = (select shelf_semver_sort_key($5::text))";
const PER_ROW = "r.version_sort = shelf_semver_sort_key($5::text)";

async function main() {
  if (!LICENSE_STATE_SQL.includes(ONCE)) throw new Error("The API's statement no longer has the form measured here.");
  const forms = {
    "a plain call (per release)": LICENSE_STATE_SQL.replace(ONCE, PER_ROW),
    "a scalar subquery (once)": LICENSE_STATE_SQL,
  };
  const serverUrl = process.env.DATABASE_URL as string;
  const database = `shelf_license_${randomBytes(3).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = databaseUrl(serverUrl, database);
  try {
    await runMigrations(url);
    const handle = createDb(url, { max: 2 });
    const data = await loadBenchData(handle);
    await handle.close();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const [key] = await sql`select account_id from api_keys where kind = 'device' order by id desc limit 1`;
    const params = [key?.account_id, data.updateProductId, null, "bench-license-sql", "2.150.0"];
    for (const releases of [2, 200]) {
      if (releases === 200) {
        await sql`insert into releases (product_id, version, channel, notes, artifact_key, artifact_filename,
            artifact_content_type, artifact_sha256, artifact_size, artifact_ed_signature, released_at)
          select r.product_id, '2.' || n || '.0', r.channel, '', 'k' || n, 'f' || n, r.artifact_content_type,
            r.artifact_sha256, r.artifact_size, r.artifact_ed_signature, now() - make_interval(days => n)
          from generate_series(1, 198) n, (select * from releases where product_id = ${data.updateProductId} limit 1) r`;
      }
      const answers = new Set<string>();
      for (const [name, text] of Object.entries(forms)) {
        const timed = await timeStatement(() => sql.unsafe(text, params as never[], { prepare: true }), RUNS);
        answers.add(JSON.stringify(timed.last?.[0]));
        console.log(
          `${releases} releases, the version's key as ${name}: PostgreSQL CPU ${(timed.cpuMs * 1000).toFixed(0)} µs, wall ${(timed.wallMs * 1000).toFixed(0)} µs a statement`,
        );
      }
      if (answers.size !== 1) throw new Error(`The forms answer differently: ${[...answers].join("\n")}`);
    }
    await sql.end();
  } finally {
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

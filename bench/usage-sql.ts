import { randomBytes } from "node:crypto";
import { createDb } from "@shelf/db";
import { databaseUrl, runMigrations } from "@shelf/db/server";
import postgres from "postgres";
import { timeStatement } from "./harness";

/**
 * The usage upload's statement in its candidate forms, each run alone on one connection against the same 200 days
 * (uploaded again and again, as the benchmark does): PostgreSQL CPU and wall time per statement. DATABASE_URL names
 * the server; SHELF_USAGE_SQL_RUNS how many statements per form (200).
 */
const RUNS = Number(process.env.SHELF_USAGE_SQL_RUNS ?? 200);
const ACTIVE = "e.revoked_at is null and (e.access_expires_at is null or e.access_expires_at > now())";
const BAD = (input: string) => `bad as (
    select i.n from ${input} i
    where ($2::integer is not null and i.product_id <> $2::integer)
      or not exists (select 1 from entitlements e where e.account_id = $1 and e.product_id = i.product_id and ${ACTIVE})
  )`;
const UPSERT = (input: string, onlyChanged: boolean) => `stored as (
    insert into device_usage (account_id, product_id, api_key_id, usage_date, launches, commands)
    select $1, i.product_id, $3, i.usage_date, i.launches, i.commands from ${input} i where not exists (select 1 from bad)
    on conflict (account_id, product_id, api_key_id, usage_date)
      do update set launches = excluded.launches, commands = excluded.commands, updated_at = now()
      ${onlyChanged ? "where (device_usage.launches, device_usage.commands) is distinct from (excluded.launches, excluded.commands)" : ""}
    returning 1
  )`;
const TAIL = `select coalesce((select array_agg(n order by n) from bad), '{}') as bad, (select count(*)::int from stored) as stored`;
const JSON_INPUT = `input as (
    select * from jsonb_to_recordset($4::jsonb) as u(n int, product_id int, usage_date date, launches int, commands jsonb)
  )`;
const ARRAY_INPUT = `input as (
    select * from unnest($4::int[], $5::int[], $6::date[], $7::int[], $8::jsonb[]) as u(n, product_id, usage_date, launches, commands)
  )`;
const forms = {
  "jsonb_to_recordset, every day rewritten (today's API)": `with ${JSON_INPUT}, ${BAD("input")}, ${UPSERT("input", false)} ${TAIL}`,
  "unnest arrays, every day rewritten": `with ${ARRAY_INPUT}, ${BAD("input")}, ${UPSERT("input", false)} ${TAIL}`,
  "jsonb_to_recordset, only changed days rewritten": `with ${JSON_INPUT}, ${BAD("input")}, ${UPSERT("input", true)} ${TAIL}`,
  "unnest arrays, only changed days rewritten": `with ${ARRAY_INPUT}, ${BAD("input")}, ${UPSERT("input", true)} ${TAIL}`,
};

async function main() {
  const serverUrl = process.env.DATABASE_URL as string;
  const database = `shelf_usage_${randomBytes(3).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = databaseUrl(serverUrl, database);
  await runMigrations(url);
  const handle = createDb(url, { max: 1 });
  const sql = handle.sql;
  try {
    const [account] = await sql`insert into accounts (email, name) values ('usage@bench.test', 'Usage') returning id`;
    const [product] =
      await sql`insert into products (name, unit_price_cents, currency) values ('P', 100, 'USD') returning id`;
    await sql`insert into entitlements (account_id, product_id, grant_type) values (${account?.id}, ${product?.id}, 'purchase')`;
    const [key] = await sql`insert into api_keys (account_id, kind, name, prefix, hash, abilities)
      values (${account?.id}, 'device', 'k', 'shelf_12345678', encode(sha256('usage'::bytea), 'hex'), array['device.usage']) returning id`;
    const days = Array.from({ length: 200 }, (_, n) => ({
      n,
      product_id: product?.id as number,
      usage_date: new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10),
      launches: 3 + n,
      commands: { sync: n },
    }));
    const json = JSON.stringify(days);
    // Array literals as text (the pool does not fetch array types to serialise JS arrays).
    const literal = (values: unknown[]) =>
      `{${values.map((value) => `"${String(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(",")}}`;
    const arrays = [
      literal(days.map((d) => d.n)),
      literal(days.map((d) => d.product_id)),
      literal(days.map((d) => d.usage_date)),
      literal(days.map((d) => d.launches)),
      literal(days.map((d) => JSON.stringify(d.commands))),
    ];
    for (const [name, text] of Object.entries(forms)) {
      await sql`delete from device_usage`;
      const params = text.includes("unnest")
        ? [account?.id, null, key?.id, ...arrays]
        : [account?.id, null, key?.id, json];
      const run = () => sql.unsafe(text, params as never[], { prepare: true });
      const [first] = await run();
      const timed = await timeStatement(run, RUNS);
      console.log(
        `${name}: PostgreSQL CPU ${timed.cpuMs.toFixed(2)} ms, wall ${timed.wallMs.toFixed(2)} ms a statement; first answer ${JSON.stringify(first)}, later ${JSON.stringify(timed.last?.[0])}`,
      );
    }
  } finally {
    await handle.close();
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

import net from "node:net";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_IN_ARRAY_TYPES, parseArrayLiteral, serializeArrayLiteral } from "./array-types";
import { createDb, type DbHandle } from "./client";
import { createTestDatabase, type TestDatabase } from "./testing";

let testDb: TestDatabase;
let handle: DbHandle;
/** postgres.js as it comes (its own type fetch), with drizzle's parsers as createDb's client has them. */
let stock: postgres.Sql;

beforeAll(async () => {
  testDb = await createTestDatabase();
  handle = createDb(testDb.url, { max: 1 });
  stock = postgres(testDb.url, { max: 1, onnotice: () => {} });
  drizzle({ client: stock });
});
afterAll(async () => {
  await stock?.end();
  await handle?.close();
  await testDb?.drop();
});

const awkward = ['a"b', "c\\d", "e,f", "{g}", " h ", "", "NULL", "null", "한국어", "tab\there", "new\nline", 'x\\\\"y'];

describe("arrays without postgres.js's type fetch", () => {
  it("names each built-in type's array type as this server's catalog does", async () => {
    const rows = await handle.sql<{ oid: number; typarray: number }[]>`
      select oid::int, typarray::int from pg_type where oid = any(${[...BUILT_IN_ARRAY_TYPES.keys()]}::oid[])`;
    expect(new Map(rows.map((row) => [row.oid, row.typarray]))).toEqual(new Map(BUILT_IN_ARRAY_TYPES));
  });

  it("covers the element type of every array column in the schema", async () => {
    const rows = await handle.sql<{ column: string; element: number }[]>`
      select c.relname || '.' || a.attname as column, t.typelem::int as element
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      join pg_type t on t.oid = a.atttypid
      where n.nspname = 'public' and c.relkind = 'r' and t.typcategory = 'A' and a.attnum > 0 and not a.attisdropped`;
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.filter((row) => !BUILT_IN_ARRAY_TYPES.has(row.element))).toEqual([]);
  });

  it("reads every kind of array as postgres.js's own fetch does", async () => {
    const query = `select
        $1::text[] as texts,
        array[[1, 2], [3, 4]]::int[] as grid,
        array[9007199254740993, -1]::int8[] as bigs,
        array[true, false]::bool[] as flags,
        array[1.5, 2.25]::float8[] as floats,
        array[1.10, 2.000]::numeric[] as numerics,
        array['{"a": [1, "b\\"c"]}', 'null', '"x"']::jsonb[] as documents,
        array['2026-11-28 12:00:00+00', '2026-01-01 00:00:00+09']::timestamptz[] as times,
        array['2026-11-28']::date[] as dates,
        array['5f0c9b1e-9a3d-4c61-8f55-2c1f7e1a0b3d']::uuid[] as ids,
        '{}'::text[] as empty,
        array_agg(x) as aggregated
      from unnest(array['p', 'q,r', '']) x`;
    const params = [serializeArrayLiteral(awkward)];
    const [ours] = await handle.sql.unsafe(query, params);
    const [theirs] = await stock.unsafe(query, params);
    expect(ours).toEqual(theirs);
    expect(ours?.texts).toEqual(awkward);
    expect(ours?.grid).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it("reads null elements as null and a lower bound's prefix as no nesting, where postgres.js reads 'NULL' and NaN", async () => {
    const [row] = await handle.sql`select array['a', null, 'NULL']::text[] as texts, array[1, null]::int[] as ints,
      array_agg(x) as aggregated, '[0:1]={a,b}'::text[] as bounded from unnest(array['p', null]) x`;
    expect(row).toEqual({ texts: ["a", null, "NULL"], ints: [1, null], aggregated: ["p", null], bounded: ["a", "b"] });
    const [theirs] = await stock`select array['a', null]::text[] as texts, array[1, null]::int[] as ints`;
    expect(theirs).toEqual({ texts: ["a", "NULL"], ints: [1, Number.NaN] });
  });

  it("writes arrays passed as typed parameters as postgres.js's own fetch does", async () => {
    const send = (sql: postgres.Sql) =>
      sql`select ${sql.array(awkward)} as texts, ${sql.array([1, 2, 3])} as ints, ${sql.array([true])} as flags`;
    const [ours] = await send(handle.sql);
    const [theirs] = await send(stock);
    expect(ours).toEqual(theirs);
    expect(ours?.texts).toEqual(awkward);
    const [nulls] = await handle.sql`select ${handle.sql.array(["a", null])} as texts`;
    expect(nulls?.texts).toEqual(["a", null]);
  });

  it("writes an array parameter of the schema's own type (an enum's array) as postgres.js's own fetch does", async () => {
    const query =
      "select count(*)::int as n, $1::release_channel[] = array['stable', 'beta']::release_channel[] as same from unnest($1::release_channel[]) c";
    const params = [["stable", "beta"]];
    const [ours] = await handle.sql.unsafe(query, params);
    expect(ours).toEqual({ n: 2, same: true });
    const [theirs] = await stock.unsafe(query, params);
    expect(ours).toEqual(theirs);
    // Every other parameter is sent as before: text as it is, numbers and dates by their own serializers.
    const [scalars] = await handle.sql.unsafe("select $1::release_channel as c, $2::text as t, $3::int as i", [
      "beta",
      "a,b",
      3,
    ]);
    expect(scalars).toEqual({ c: "beta", t: "a,b", i: 3 });
  });

  it("reads the text form of arrays, and refuses what is not one", () => {
    expect(parseArrayLiteral('{a,"b,c",NULL,"NULL",{1,2}}')).toEqual(["a", "b,c", null, "NULL", ["1", "2"]]);
    expect(parseArrayLiteral("[2:3]={7,8}", Number)).toEqual([7, 8]);
    expect(parseArrayLiteral("{}")).toEqual([]);
    for (const broken of ["", "a,b", '{"open', "{a,b", "{a}b"])
      expect(() => parseArrayLiteral(broken)).toThrow(/array/);
    expect(() => serializeArrayLiteral([undefined])).toThrow(/undefined/);
  });

  it("leaves a connection cut before its first statement to that statement's caller, never to the process", async () => {
    // A proxy that lets the connection open, then cuts it when the client sends its first statement: where
    // postgres.js's own type fetch would run and reject with no handler (porsager/postgres#1192).
    const target = new URL(testDb.url);
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(target.port || 5432), target.hostname);
      let startup = true;
      client.on("data", (chunk) => {
        const type = String.fromCharCode(chunk[0] ?? 0);
        if (!startup && (type === "Q" || type === "P")) {
          client.destroy();
          server.destroy();
          return;
        }
        startup = false;
        server.write(chunk);
      });
      server.on("data", (chunk) => client.write(chunk));
      for (const socket of [client, server]) socket.on("error", () => {});
      client.on("close", () => server.destroy());
      server.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const port = (proxy.address() as net.AddressInfo).port;
    const url = new URL(testDb.url);
    url.hostname = "127.0.0.1";
    url.port = String(port);

    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    const cut = createDb(url.toString(), {
      max: 1,
      timeouts: { connectSeconds: 2, statementMs: 2000, idleInTransactionMs: 5000 },
    });
    try {
      // With postgres.js's fetch, the statement never runs: each new connection's fetch is cut again, unhandled.
      const answer = await Promise.race([
        cut.sql`select 1`.then(
          () => "answered",
          (error: Error) => error.message,
        ),
        new Promise((resolve) => setTimeout(resolve, 10_000, "no answer")),
      ]);
      expect(answer).toMatch(/CONNECTION|closed|ended/i);
      await cut.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", listener);
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

import { eq, inArray, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import { describe, expect, it } from "vitest";
import { products, releases } from "../schema";
import { bareColumnsInSubqueries } from "./subquery-columns";

const dialect = new PgDialect({ casing: "snake_case" });
const db = drizzle.mock({ casing: "snake_case" });

describe("bareColumnsInSubqueries", () => {
  it("finds the column drizzle leaves bare in a correlated subquery", () => {
    const statement = db
      .select({ last: sql`(select max(r.released_at) from releases r where r.product_id = ${products.id})` })
      .from(products)
      .toSQL().sql;
    expect(statement).toContain('r.product_id = "id"');
    expect(bareColumnsInSubqueries(statement)).toEqual(["id"]);
  });

  it("finds a bare column in exists, in and nested subqueries", () => {
    expect(
      bareColumnsInSubqueries(
        'select 1 from "orders" where exists (select 1 from order_items oi where oi.order_id = "id")',
      ),
    ).toEqual(["id"]);
    expect(bareColumnsInSubqueries('select 1 from "a" where "x" in (select "y" from b)')).toEqual(["y"]);
    expect(
      bareColumnsInSubqueries(
        'select (select count(*) from (select k.id from keys k where k.account_id = "account_id") q)',
      ),
    ).toEqual(["account_id"]);
  });

  it("accepts qualified names, qualifiers, tables, aliases and quotes inside string literals", () => {
    expect(
      bareColumnsInSubqueries(
        'select "id" from "products" where exists (select 1 from releases r join "x" "y" on true where "r"."product_id" = "products"."id" and r."id" > 0 and \'("a")\' <> \'\') as "has"',
      ),
    ).toEqual([]);
    expect(bareColumnsInSubqueries('select "id", "name" from "products" where "id" = $1')).toEqual([]);
    expect(bareColumnsInSubqueries('select (select p.name collate "C" from products p)')).toEqual([]);
    expect(
      bareColumnsInSubqueries('select (select coalesce(json_agg("x"), \'[]\') from (select 1) "d") "data"'),
    ).toEqual([]);
  });

  it("leaves subqueries drizzle builds itself alone: their bare names are their own table's", () => {
    const statement = db
      .select({ id: products.id })
      .from(products)
      .where(
        inArray(products.id, db.select({ id: releases.productId }).from(releases).where(eq(releases.channel, "beta"))),
      )
      .toSQL().sql;
    expect(statement).toMatch(/\(select "product_id" from "releases" where /);
    expect(bareColumnsInSubqueries(statement)).toEqual([]);
  });

  it("passes the qualified form of the same subquery", () => {
    const outer = sql`${sql.identifier("products")}.${sql.identifier("id")}`;
    const statement = dialect.sqlToQuery(
      sql`select (select max(r.released_at) from releases r where r.product_id = ${outer}) from ${products}`,
    ).sql;
    expect(bareColumnsInSubqueries(statement)).toEqual([]);
  });
});

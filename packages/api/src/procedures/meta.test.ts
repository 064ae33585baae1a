import { describe, expect, it } from "vitest";
import type { Meta } from "../trpc";
import { accountProcedure, designProcedure } from "./index";

/*
 * A route declares account access (an ability, with its product and key-scope rules) or a design role, never both:
 * the type system refuses a meta that mixes them, so this file's `@ts-expect-error` lines fail the typecheck the day
 * the type lets one through.
 */
describe("a procedure's meta", () => {
  it("declares account access or a design role, never both", () => {
    const account: Meta = { ability: "products.read", product: "entitled", keyScope: "product" };
    const design: Meta = { role: "collect" };
    // @ts-expect-error an ability and a role at once
    const both: Meta = { ability: "public", role: "read" };
    // @ts-expect-error a design route takes no product rule
    const designProduct: Meta = { role: "read", product: "visible" };
    // @ts-expect-error nor is it open without a key the account API's way
    const designAnonymous: Meta = { role: "read", anonymous: true };
    expect([account, design, both, designProduct, designAnonymous]).toHaveLength(5);
  });

  it("is checked where procedures are built", () => {
    // @ts-expect-error a design procedure with an account ability
    const mixed = designProcedure.meta({ role: "read", ability: "products.read" });
    const fine = accountProcedure.meta({ ability: "products.read" });
    expect([mixed, fine]).toHaveLength(2);
  });
});

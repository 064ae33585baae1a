import { describe, expect, it } from "vitest";
import { optionalAbilities, optionalDate, optionalInteger, UsageError } from "./args";

describe("argument parsing", () => {
  it("reads ISO 8601 dates and date-times, UTC unless an offset is given", () => {
    const date = (value: string) => optionalDate({ at: value }, "at")?.toISOString();
    expect(date("2027-01-31")).toBe("2027-01-31T00:00:00.000Z");
    expect(date("2027-01-31T12:30")).toBe("2027-01-31T12:30:00.000Z");
    expect(date("2027-01-31T12:30:15.250Z")).toBe("2027-01-31T12:30:15.250Z");
    expect(date("2027-01-31T12:00:00+09:00")).toBe("2027-01-31T03:00:00.000Z");
    expect(optionalDate({}, "at")).toBeUndefined();
  });

  it("refuses impossible or non-ISO dates instead of rolling them over", () => {
    for (const value of ["2027-02-30", "2027-13-01", "2027-01-31T24:00", "31/01/2027", "tomorrow", "1738000000"]) {
      expect(() => optionalDate({ at: value }, "at"), value).toThrow(UsageError);
    }
  });

  it("accepts only plain whole numbers within bounds", () => {
    expect(optionalInteger({ n: "42" }, "n")).toBe(42);
    for (const value of ["4.2", "1e3", "-1", "", "0x10"]) {
      expect(() => optionalInteger({ n: value }, "n"), value).toThrow(UsageError);
    }
    expect(() => optionalInteger({ n: "0" }, "n", { min: 1 })).toThrow(/at least 1/);
  });

  it("splits abilities on commas, drops duplicates and names unknown ones", () => {
    expect(optionalAbilities({ a: "products.read, mcp.read,products.read" }, "a")).toEqual([
      "products.read",
      "mcp.read",
    ]);
    expect(() => optionalAbilities({ a: "products.read,admin" }, "a")).toThrow(/Unknown ability "admin"/);
    expect(() => optionalAbilities({ a: " , " }, "a")).toThrow(/at least one/);
  });
});

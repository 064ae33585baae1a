import { describe, expect, it } from "vitest";
import { FacetCache } from "./facet-cache";

const counter = () => {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    count:
      (value: string, bytes = 10) =>
      async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { value, bytes };
      },
  };
};

describe("the facet cache", () => {
  it("counts a key once per generation, and again under the next", async () => {
    const cache = new FacetCache<string>(() => 1000);
    const c = counter();
    expect(await cache.get(1, "a", c.count("one"))).toBe("one");
    expect(await cache.get(1, "a", c.count("other"))).toBe("one");
    expect(c.calls).toBe(1);
    expect(await cache.get(2, "a", c.count("two"))).toBe("two");
    expect(c.calls).toBe(2);
    expect(cache.peek(1, "a")).toBeUndefined();
    expect(cache.peek(2, "a")).toBe("two");
  });

  it("lets requests for a key being counted wait for that count", async () => {
    const cache = new FacetCache<string>(() => 1000);
    const c = counter();
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get(1, "a", c.count("one"))));
    expect(new Set(answers)).toEqual(new Set(["one"]));
    expect(c.calls).toBe(1);
  });

  it("never lets an older generation's slower count replace a newer one", async () => {
    const cache = new FacetCache<string>(() => 1000);
    let release: (value: { value: string; bytes: number }) => void = () => {};
    const slow = cache.get(1, "a", () => new Promise((resolve) => (release = resolve)));
    expect(await cache.get(2, "a", async () => ({ value: "new", bytes: 10 }))).toBe("new");
    release({ value: "old", bytes: 10 });
    expect(await slow).toBe("old");
    expect(cache.peek(2, "a")).toBe("new");
  });

  it("keeps at most its bytes, the least recently used going first, and nothing with a size of 0", async () => {
    const cache = new FacetCache<string>(() => 100);
    for (const key of ["a", "b", "c", "d"]) await cache.get(1, key, async () => ({ value: key, bytes: 25 }));
    expect(cache.size).toEqual({ entries: 4, bytes: 100 });
    await cache.get(1, "a", async () => ({ value: "recounted", bytes: 25 }));
    await cache.get(1, "e", async () => ({ value: "e", bytes: 25 }));
    expect(cache.size.bytes).toBeLessThanOrEqual(100);
    expect(cache.peek(1, "a")).toBe("a");
    expect(cache.peek(1, "b")).toBeUndefined();
    // An entry over a quarter of the whole is counted, not kept.
    await cache.get(1, "big", async () => ({ value: "big", bytes: 26 }));
    expect(cache.peek(1, "big")).toBeUndefined();
    const off = new FacetCache<string>(() => 0);
    await off.get(1, "a", async () => ({ value: "a", bytes: 1 }));
    expect(off.size.entries).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { matchingMask, variantBit, variantMask } from "./variant-mask";

describe("a screen's variant mask", () => {
  it("gives each of the 12 states its own bit, and a screen the bits of its variants", () => {
    const bits = new Set<number>();
    for (const viewport of ["desktop", "mobile"] as const)
      for (const lang of ["ko", "en"] as const)
        for (const mode of ["light", "dark", null] as const) bits.add(variantBit(viewport, lang, mode));
    expect(bits.size).toBe(12);
    expect([...bits].reduce((all, bit) => all | bit, 0)).toBe(0xfff);
    expect(
      variantMask([
        { viewport: "desktop", lang: "ko", mode: "light" },
        { viewport: "mobile", lang: "en" },
      ]),
    ).toBe(variantBit("desktop", "ko", "light") | variantBit("mobile", "en", null));
  });

  it("matches the states with every given value together: one variant must have them all", () => {
    const screen = variantMask([
      { viewport: "desktop", lang: "ko", mode: "light" },
      { viewport: "mobile", lang: "en", mode: "dark" },
    ]);
    const matches = (wanted: Parameters<typeof matchingMask>[0]) => (screen & matchingMask(wanted)) !== 0;
    expect(matchingMask({})).toBe(0xfff);
    expect(matches({ viewport: "mobile" })).toBe(true);
    expect(matches({ viewport: "mobile", lang: "en", mode: "dark" })).toBe(true);
    expect(matches({ viewport: "mobile", lang: "ko" })).toBe(false);
    expect(matches({ mode: "dark", lang: "ko" })).toBe(false);
    expect(matches({ mode: "light" })).toBe(true);
  });
});

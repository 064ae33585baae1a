import { describe, expect, it } from "vitest";
import { appOf, pageOf } from "./pages";
import { analyseStyles, parseSheet } from "./styles";

const read = (...sheets: string[]) => analyseStyles(sheets.map(parseSheet));
const fontUses = (sheets: string[]) =>
  Object.fromEntries([...read(...sheets).fonts].map(([slug, font]) => [slug, [font.label, font.uses, font.generic]]));
const colorUses = (sheets: string[]) => Object.fromEntries(read(...sheets).colors);

describe("fonts", () => {
  it("come from font-family, the font shorthand and @font-face, once per declaration", () => {
    const css = `
      @font-face { font-family: "Pretendard"; src: url(/p-400.woff2); font-weight: 400 }
      @font-face { font-family: Pretendard; src: url(/p-700.woff2); font-weight: 700 }
      body { font-family: Pretendard, "Apple SD Gothic Neo", Segoe   UI, sans-serif, sans-serif; }
      h1 { font: italic small-caps 700 2rem/1.2 "Helvetica Neue", Arial, sans-serif }
      small { font: small Georgia }
      .mono { font: 0/0 ui-monospace }
      button { font: menu }
      input { font: inherit; font-family: inherit }
      /* font-family: Commented Out */
      .note::before { content: "font-family: Quoted" }`;
    expect(fontUses([css])).toEqual({
      pretendard: ["Pretendard", 3, false],
      "apple sd gothic neo": ["Apple SD Gothic Neo", 1, false],
      "segoe ui": ["Segoe UI", 1, false],
      "sans-serif": ["sans-serif", 2, true],
      "helvetica neue": ["Helvetica Neue", 1, false],
      arial: ["Arial", 1, false],
      georgia: ["Georgia", 1, false],
      "ui-monospace": ["ui-monospace", 1, true],
    });
  });

  it("resolve var() against custom properties of any sheet read with them, inside @media and @supports too", () => {
    const tokens = `:root { --font-sans: "Inter", system-ui; --font-display: var(--font-sans) }
      @media (min-width: 40rem) { :root { --font-sans: "Inter Display", system-ui } }`;
    const page = `@supports (display: grid) { main { font-family: var(--font-display) } }
      header { font: 600 1rem var(--font-sans) }
      footer { font-family: var(--undefined, "Fallback Sans") }`;
    expect(fontUses([tokens, page])).toEqual({
      inter: ["Inter", 2, false],
      "inter display": ["Inter Display", 2, false],
      "system-ui": ["system-ui", 2, true],
      "fallback sans": ["Fallback Sans", 1, false],
    });
  });
});

describe("colors", () => {
  it("are normalised from hex, rgb(), hsl(), hwb(), oklch() and names, counted once per declaration", () => {
    const css = `
      a { color: #1F5FD6; border: 1px solid #1f5fd6; outline: 2px solid #1f5fd6 }
      b { color: #FFF; background: white; box-shadow: 0 0 1px #fff, 0 0 2px #ffffff }
      c { color: rgb(31 95 214); background-color: rgba(31, 95, 214, 0.5); border-color: rgb(0% 100% 0% / 25%) }
      d { color: hsl(210 50% 40%); background: hsla(210deg, 50%, 40%, 1); caret-color: hsl(0.5turn 100% 50%) }
      e { color: hwb(0 0% 0%); fill: oklch(62.8% 0.2577 29.23); stroke: RebeccaPurple }
      f { background: linear-gradient(to right, red, rgba(0, 0, 0, 0.5)) }
      g { color: transparent; background: rgba(0,0,0,0); border-color: currentColor }
      #red { color: inherit }
      h { content: "red"; grid-area: red; animation-name: blue }
      /* color: #00ff00 */`;
    expect(colorUses([css])).toEqual({
      "#1f5fd6": 4,
      "#ffffff": 3,
      "#1f5fd680": 1,
      "#00ff0040": 1,
      "#336699": 2,
      "#00ffff": 1,
      "#ff0000": 3,
      "#663399": 1,
      "#00000080": 1,
    });
  });

  it("count custom properties' own values and each definition a var() may resolve to, in @media blocks too", () => {
    const css = `
      :root { --fg: #1b1d21; --accent: rgb(31 95 214); --brand: tomato; --font: Red Hat Display; --ring: 0 0 0 3px var(--accent) }
      @media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --accent: hsl(220 100% 75%) } }
      body { color: var(--fg) }
      a { color: var(--accent); border-bottom: 1px solid var(--brand) }
      :focus-visible { box-shadow: var(--ring) }
      .missing { color: var(--nowhere, navy) }
      .loop { --a: var(--b); --b: var(--a); color: var(--a) }`;
    expect(colorUses([css])).toEqual({
      "#1b1d21": 2,
      "#e8eaed": 2,
      "#1f5fd6": 4,
      "#80aaff": 4,
      "#ff6347": 2,
      "#000080": 1,
    });
  });

  it("ignore what the parser cannot read rather than fail", () => {
    expect(colorUses(["a { color: #12; background: rgb(1 2); } b { color: red !important } }}} c { color: "])).toEqual({
      "#ff0000": 1,
    });
  });
});

describe("apps and pages from URLs", () => {
  it("take meta first, then the host's first label, the first path segment, or the host", () => {
    expect(appOf("https://x.example/design/screens", "accounts")).toBe("accounts");
    expect(appOf("https://accounts.example.com/settings", undefined)).toBe("accounts");
    expect(appOf("http://localhost:3001/design/screens", undefined)).toBe("design");
    expect(appOf("http://localhost:3000/account/library", undefined)).toBe("localhost:3000");
  });

  it("normalise ids, the language segment, queries and trailing slashes out of the path", () => {
    expect(pageOf("https://a.example/en/products/12345/?tab=2#top", "en", undefined)).toBe("/products/[id]");
    expect(pageOf("https://a.example/ko/orders/3f2c1a9e-7b6d-4c1e-9a2b-1c2d3e4f5a6b", "ko", undefined)).toBe(
      "/orders/[id]",
    );
    expect(pageOf("https://a.example/en/pricing", "ko", undefined)).toBe("/en/pricing");
    expect(pageOf("https://a.example/files/deadbeef42/download", "en", undefined)).toBe("/files/[id]/download");
    expect(pageOf("https://a.example/k/cus_9aB3kLmN0pQ7rStU", "en", undefined)).toBe("/k/[id]");
    expect(pageOf("https://a.example/sign-in-with-google-2fa", "en", undefined)).toBe("/sign-in-with-google-2fa");
    expect(pageOf("https://a.example/", "en", undefined)).toBe("/");
    expect(pageOf("https://a.example/whatever", "en", "/products/[slug]")).toBe("/products/[slug]");
  });
});

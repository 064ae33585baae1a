import { describe, expect, it } from "vitest";
import { searchColumns, searchQuery, searchWords, visibleText } from "./search";

describe("the gallery's search text", () => {
  it("reads words in any script, folded to NFKC and lowercase", () => {
    expect(searchWords("Ｃｈｅｃｋｏｕｔ — 간편결제하기, Step 2/3")).toEqual([
      "checkout",
      "간편결제하기",
      "step",
      "2",
      "3",
    ]);
  });

  it("keeps each word's one- and two-character pieces, and a query needs its words' pairs (or the one letter)", () => {
    expect(searchColumns(["결제", "ab"])).toEqual({
      searchText: "ab 결제",
      searchGrams: ["a", "ab", "b", "결", "결제", "제"],
    });
    expect(searchQuery("결제 A 결제")).toEqual({ words: ["결제", "a"], grams: ["a", "결제"] });
    expect(searchQuery("check")).toEqual({ words: ["check"], grams: ["ch", "ck", "ec", "he"] });
    expect(searchQuery("?!").words).toEqual([]);
  });

  it("takes the body's text a visitor sees: inline elements join words, hidden and unseen parts are left out", () => {
    const html = `<!doctype html><html><head><title>Tab title</title><style>p{}</style></head><body>
      <nav aria-hidden="true">decoration</nav><h1>Check<b>out</b></h1><p>Pay&nbsp;now &amp; save</p>
      <div hidden>secret</div><script>var code</script><noscript>enable js</noscript>
      <input placeholder="Card number"><ul><li>one</li><li>two</li></ul></body></html>`;
    expect(visibleText(html)).toBe("Checkout Pay now & save Card number one two");
  });
});

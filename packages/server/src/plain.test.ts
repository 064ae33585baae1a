import { describe, expect, it } from "vitest";
import { contentDisposition } from "./plain";

describe("contentDisposition", () => {
  it("names a plain ASCII file as it is, and any other name also in RFC 8187 form after an ASCII stand-in", () => {
    expect(contentDisposition("it's (1).zip")).toBe(`attachment; filename="it's (1).zip"`);
    expect(contentDisposition("Résumé 1.zip")).toBe(
      `attachment; filename="R_sum_ 1.zip"; filename*=UTF-8''R%C3%A9sum%C3%A9%201.zip`,
    );
    expect(contentDisposition('a"b\\c*.zip')).toBe(
      `attachment; filename="a_b_c*.zip"; filename*=UTF-8''a%22b%5Cc%2A.zip`,
    );
  });
});

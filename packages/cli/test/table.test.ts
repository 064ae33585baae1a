import { describe, expect, it } from "vitest";
import { displayWidth, table } from "../src/table";

describe("tables on a terminal", () => {
  it("pads by the columns a terminal shows, so Korean names line up with Latin ones", () => {
    expect(displayWidth("색상 피커")).toBe(9);
    const lines = table([
      ["ID", "NAME", "PRICE"],
      ["1", "색상 피커 프로", "$9.00"],
      ["2", "Color Picker", "$19.00"],
    ]).split("\n");
    const priceColumn = (line: string) => displayWidth(line.slice(0, line.indexOf("$")));
    expect(priceColumn(lines[1] as string)).toBe(priceColumn(lines[2] as string));
    expect(displayWidth((lines[0] as string).slice(0, (lines[0] as string).indexOf("PRICE")))).toBe(
      priceColumn(lines[1] as string),
    );
  });

  it("fits the terminal's width by cutting the chosen column with an ellipsis", () => {
    const rows = [
      ["VERSION", "RELEASED", "NOTES"],
      ["1.0.0", "2026-10-01", "첫 출시: 모든 기능이 들어 있는 아주 긴 출시 노트의 첫 줄입니다"],
    ];
    const lines = table(rows, { columns: 40, shrink: 2 }).split("\n");
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toMatch(/…$/);
    expect(table(rows, { columns: 200, shrink: 2 })).toContain("첫 줄입니다");
  });
});

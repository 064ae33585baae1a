import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { tarGz } from "./tar";

describe("tarGz", () => {
  const files = [
    { path: "SKILL.md", bytes: Buffer.from("---\nname: x\n---\n") },
    { path: "references/a.md", bytes: Buffer.alloc(513, "a") },
    { path: "references/empty.txt", bytes: Buffer.alloc(0) },
  ];

  it("writes the same bytes for the same files, and GNU tar lists and reads them", () => {
    const archive = tarGz(files);
    expect(tarGz(files).equals(archive)).toBe(true);
    expect(execFileSync("tar", ["-tzvf", "-"], { input: archive, encoding: "utf8" })).toMatch(
      /-rw-r--r-- 0\/0 +16 1970-01-01 00:00 SKILL.md/,
    );
    const content = execFileSync("tar", ["-xzOf", "-", "references/a.md"], { input: archive });
    expect(content.equals(files[1]?.bytes as Buffer)).toBe(true);
    expect(tarGz([...files].reverse()).equals(archive)).toBe(false);
  });

  it("refuses paths that would leave the folder", () => {
    expect(() => tarGz([{ path: "../x", bytes: Buffer.alloc(1) }])).toThrow(/unsafe/);
    expect(() => tarGz([{ path: "/etc/x", bytes: Buffer.alloc(1) }])).toThrow(/unsafe/);
    expect(() => tarGz([{ path: "a".repeat(101), bytes: Buffer.alloc(1) }])).toThrow(/longer/);
  });
});

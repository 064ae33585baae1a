import { describe, expect, it } from "vitest";
import { parseCommand } from "./args";
import { run } from "./cli";

const BASE = ["--design-url", "https://design.example", "--token", "t0ken", "--target", "https://accounts.example"];

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("parseCommand", () => {
  it("reads the full command with defaults: both apps when the design host is named, both viewports and languages", () => {
    expect(parseCommand(BASE)).toEqual({
      kind: "collect",
      upload: { designUrl: "https://design.example", token: "t0ken" },
      out: null,
      target: "https://accounts.example",
      designUrl: "https://design.example",
      apps: ["accounts", "design"],
      viewports: ["desktop", "mobile"],
      langs: ["ko", "en"],
      credentials: null,
      maxPages: 30,
      chromiumPath: undefined,
    });
  });

  it("takes lists in any order, each value once, and credentials together", () => {
    const command = parseCommand([
      ...BASE,
      "--apps",
      "accounts",
      "--viewports",
      "mobile,desktop,mobile",
      "--langs",
      " en ",
      "--email",
      "a@example.test",
      "--password",
      " spaced secret ",
      "--out",
      "/tmp/run",
      "--max-pages",
      "5",
    ]);
    expect(command).toMatchObject({
      apps: ["accounts"],
      designUrl: null,
      viewports: ["desktop", "mobile"],
      langs: ["en"],
      credentials: { email: "a@example.test", password: " spaced secret " },
      out: "/tmp/run",
      maxPages: 5,
    });
  });

  it("collects to a folder alone, without a design host", () => {
    expect(parseCommand(["--target", "http://127.0.0.1:3000", "--out", "run"])).toMatchObject({
      upload: null,
      apps: ["accounts"],
      out: "run",
    });
  });

  it("reads an upload of a saved run", () => {
    expect(parseCommand(["--from", "demo/run", "--design-url", "http://127.0.0.1:3001", "--token", "t"])).toEqual({
      kind: "upload",
      from: "demo/run",
      designUrl: "http://127.0.0.1:3001",
      token: "t",
    });
  });
});

describe("the command line's usage errors", () => {
  const cases: [string, string[], RegExp][] = [
    ["an unknown flag", [...BASE, "--tablet"], /Unknown option '--tablet'/],
    ["a flag without its value", [...BASE, "--apps"], /--apps/],
    ["a positional argument", [...BASE, "extra"], /positional/],
    [
      "no target",
      ["--design-url", "https://d.example", "--token", "t"],
      /--target URL \(the accounts app\) is required/,
    ],
    ["a target that is no URL", ["--target", "localhost:3000", "--out", "x"], /--target must be an http or https URL/],
    ["a target with a path", ["--target", "https://a.example/app", "--out", "x"], /with no path/],
    ["a target of another scheme", ["--target", "ftp://a.example", "--out", "x"], /http or https/],
    ["a token without a design host", ["--target", "https://a.example", "--token", "t"], /--token needs --design-url/],
    ["nothing to do", ["--target", "https://a.example"], /nothing to do/],
    ["an unknown viewport", [...BASE, "--viewports", "desktop,tablet"], /--viewports: unknown value "tablet"/],
    ["an unknown language", [...BASE, "--langs", "ja"], /--langs: unknown value "ja" \(one of ko, en\)/],
    ["an empty list", [...BASE, "--langs", ","], /--langs needs at least one of ko, en/],
    ["an app without routes here", [...BASE, "--apps", "support"], /knows the routes of accounts and design only/],
    [
      "the design app without its address",
      ["--target", "https://a.example", "--apps", "design", "--out", "x"],
      /--apps design needs --design-url/,
    ],
    ["an email without a password", [...BASE, "--email", "a@example.test"], /--email and --password go together/],
    ["a password without an email", [...BASE, "--password", "p"], /--email and --password go together/],
    ["an empty value", [...BASE, "--out", " "], /--out must not be empty/],
    ["a bad page bound", [...BASE, "--max-pages", "0"], /--max-pages must be a whole number from 1 to 500/],
    ["a fractional page bound", [...BASE, "--max-pages", "2.5"], /--max-pages must be a whole number/],
    [
      "--from with collect flags",
      ["--from", "d", "--design-url", "https://d.example", "--token", "t", "--langs", "ko"],
      /--langs does not apply/,
    ],
    [
      "--from without a token",
      ["--from", "d", "--design-url", "https://d.example"],
      /--from needs --design-url and --token/,
    ],
  ];
  for (const [name, argv, message] of cases) {
    it(`refuses ${name} with one line and exit code 1`, async () => {
      const { code, stdout, stderr } = await cli(argv);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(message);
      expect(stderr).toMatch(/^design:collect: .* \(--help for usage\)\n$/);
    });
  }

  it("prints the usage with --help", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("npm run design:collect -- --design-url URL --token T --target URL");
  });
});

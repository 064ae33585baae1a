import { describe, expect, it } from "vitest";
import { run } from "./cli";

/** The CLI in this process, for argument errors that are caught before any database is opened. */
async function runInProcess(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => "",
  });
  return { code, stdout, stderr };
}

describe("argument errors", () => {
  it.each([
    [["key:create", "--email", "a@example.test", "--expires", "next tuesday"], /--expires must be an ISO 8601/],
    [["key:create", "--email", "a@example.test", "--expires", "2020-01-01"], /--expires must be in the future/],
    [["key:create", "--email", "a@example.test", "--device", "--expires", "2099-01-01"], /does not apply to --device/],
    [["key:create", "--email", "a@example.test", "--bogus"], /Unknown option '--bogus'/],
    [["key:create", "--abilities", "products.read"], /--email is required/],
    [["key:create", "--email"], /argument missing/],
    [["key:revoke", "--id", "abc"], /--id must be a whole number of at least 1/],
    [["product:create", "--name", "Both", "--published", "--unpublished"], /either --published or --unpublished/],
    [["product:create", "--name", "Cheap", "--price-cents=9.99"], /--price-cents must be a whole number/],
    [
      ["product:create", "--name", "Limited", "--device-limit", "0"],
      /--device-limit must be a whole number of at least 1/,
    ],
    [["entitlement:grant", "--email", "a@example.test"], /--product is required/],
    [["entitlement:grant", "--email", "a@example.test", "--product", "1", "--type", "gift"], /--type must be one of/],
    [["account:create", "--email", "a@example.test", "--password", "x", "--password-stdin"], /either --password/],
    [["demo", "extra"], /Unexpected argument 'extra'/],
  ])("%j exits 1 with a clear message and the command's usage", async (argv, message) => {
    const result = await runInProcess(...argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/Usage: npm run admin -- /);
    expect(result.stdout).toBe("");
  });

  it("adds a JSON error object on stdout with --json", async () => {
    const result = await runInProcess("key:create", "--email", "a@example.test", "--abilities", "root", "--json");
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: "invalid_arguments",
      message: expect.stringMatching(/Unknown ability "root"/),
    });
  });
});

describe("usage", () => {
  it("prints a command's help with exit 0", async () => {
    const result = await runInProcess("key:create", "--help");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--device/);
    expect(result.stdout).toMatch(/products\.read, mcp\.read, device\.install/);
  });

  it("answers no command or an unknown one with the command list and exit 2", async () => {
    for (const argv of [[], ["account:delete"]]) {
      const result = await runInProcess(...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/account:create +Create an account/);
    }
  });
});

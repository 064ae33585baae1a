import { createHash, randomFillSync } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { aria2cArgs, opensslVerifies, parseAppcast, SPARKLE_NAMESPACE_URI, sparkleText } from "@shelf/api/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "./admin-cli";
import { operatedSuite } from "./operated-suite";

/**
 * What the delivery issue calls done, as a new operator and a buyer would do it: the operator CLI publishes a real
 * file on two channels; the production server hands the buyer an install plan; curl (interrupted, then resumed with
 * -C -) and aria2c (four parallel ranges) download it through the signed link and end with the plan's sha256; the
 * appcast lists both releases per channel with signatures openssl verifies against the key the CLI prints.
 */
const STABLE_SIZE = 48 * 1024 * 1024;

const suite = operatedSuite("shelf-delivery-e2e-");
let key: string;
let productId: number;
let publicKey: string;
const files: Record<"stable" | "beta", { path: string; sha256: string; size: number }> = {} as never;

const { admin } = suite;

async function sha256Of(file: string) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest("hex");
}

async function randomFile(name: string, size: number) {
  const file = path.join(suite.dataDir, "uploads", name);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, randomFillSync(Buffer.alloc(size)));
  return { path: file, sha256: await sha256Of(file), size };
}

beforeAll(async () => {
  files.stable = await randomFile("gadget-1.0.0.zip", STABLE_SIZE);
  files.beta = await randomFile("gadget-1.1.0-beta.1.zip", 1024 * 1024 + 7);

  await admin("account:create", "--email", "ada@example.test", "--name", "Ada", "--password", "correct horse");
  productId = (await admin("product:create", "--name", "Gadget", "--price-cents", "1900")).id;
  await admin("entitlement:grant", "--email", "ada@example.test", "--product", String(productId));
  key = (await admin("key:create", "--email", "ada@example.test", "--abilities", "products.read,device.install")).key;
  const stable = await admin(
    "release:publish",
    "--product",
    String(productId),
    "--version",
    "1.0.0",
    "--file",
    files.stable.path,
    "--notes-en",
    "First release.",
    "--notes-ko",
    "첫 릴리스.",
    "--min-os",
    "13.0",
    "--build",
    "100",
  );
  expect(stable).toMatchObject({ version: "1.0.0", channel: "stable", sha256: files.stable.sha256, size: STABLE_SIZE });
  const beta = await admin(
    "release:publish",
    "--product",
    String(productId),
    "--version",
    "1.1.0-beta.1",
    "--channel",
    "beta",
    "--file",
    files.beta.path,
  );
  expect(beta).toMatchObject({ channel: "beta", sha256: files.beta.sha256, size: files.beta.size });
  publicKey = (await admin("signing:public-key")).public_key;

  await suite.start();
}, 240_000);

async function installPlan(channel = "stable") {
  const response = await fetch(`${suite.server.url}/api/products/${productId}/install?channel=${channel}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()).data as { download_url: string; sha256: string; size: number; version: string };
}

describe("publishing with the CLI and downloading from the running service", () => {
  it("resumes an interrupted curl download of the install plan's link, ending with the plan's sha256", async () => {
    const plan = await installPlan();
    expect(plan).toMatchObject({ version: "1.0.0", sha256: files.stable.sha256, size: STABLE_SIZE });
    const out = path.join(suite.dataDir, "curl.zip");
    // Cut after a second at 8 MB/s: a partial file to resume from.
    const cut = await run("curl", ["-sS", "-o", out, "--limit-rate", "8M", "-m", "1", plan.download_url]);
    expect(cut.code).toBe(28);
    const partial = (await fs.stat(out)).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(STABLE_SIZE);
    const resumed = await run("curl", ["-sS", "-f", "-C", "-", "-o", out, plan.download_url]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await sha256Of(out)).toBe(plan.sha256);
  }, 120_000);

  it("downloads the same link in four parallel ranges with aria2c, ending with the plan's sha256", async () => {
    const plan = await installPlan();
    const result = await run("aria2c", aria2cArgs(plan.download_url, suite.dataDir, "aria2.zip"));
    expect(result.code, result.stdout).toBe(0);
    expect(await sha256Of(path.join(suite.dataDir, "aria2.zip"))).toBe(plan.sha256);
  }, 120_000);

  it("serves an appcast listing both releases per channel, signed with the key the CLI prints", async () => {
    const feed = async (query: string) => {
      const response = await fetch(`${suite.server.url}/distribution/v1/products/${productId}/appcast.xml${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };
    const combined = await feed("");
    const marker = combined.lastIndexOf("<!-- sparkle-signatures:");
    const block = /edSignature: (\S+)\nlength: (\d+)/.exec(combined.subarray(marker).toString()) as RegExpExecArray;
    expect(Number(block[2])).toBe(marker);
    expect(await opensslVerifies(publicKey, combined.subarray(0, marker), block[1] as string)).toBe(true);

    const items = parseAppcast(combined.toString());
    expect(items.map((item) => sparkleText(item, "shortVersionString"))).toEqual(["1.1.0-beta.1", "1.0.0"]);
    expect(items.map((item) => sparkleText(item, "channel"))).toEqual(["beta", null]);
    expect(sparkleText(items[1] as never, "version")).toBe("100");
    for (const [item, file] of [
      [items[0], files.beta],
      [items[1], files.stable],
    ] as const) {
      const enclosure = item?.getElementsByTagName("enclosure")[0];
      expect(enclosure?.getAttribute("length")).toBe(String(file.size));
      const signature = enclosure?.getAttributeNS(SPARKLE_NAMESPACE_URI, "edSignature") as string;
      expect(await opensslVerifies(publicKey, await fs.readFile(file.path), signature)).toBe(true);
      // The enclosure leads, through a redirect to a signed link, to exactly the published bytes.
      const redirect = await fetch(enclosure?.getAttribute("url") as string, {
        headers: { authorization: `Bearer ${key}` },
        redirect: "manual",
      });
      expect(redirect.status).toBe(302);
      const bytes = Buffer.from(await (await fetch(redirect.headers.get("location") as string)).arrayBuffer());
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(file.sha256);
    }

    const stableOnly = parseAppcast((await feed("?channel=stable")).toString());
    expect(stableOnly.map((item) => sparkleText(item, "shortVersionString"))).toEqual(["1.0.0"]);
    // Without a key, the combined feed too: every channel, the beta tagged, so a Sparkle app picks its channels.
    const anonymous = await fetch(`${suite.server.url}/distribution/v1/products/${productId}/appcast.xml`);
    const anonymousItems = parseAppcast(await anonymous.text());
    expect(
      anonymousItems.map((item) => [sparkleText(item, "shortVersionString"), sparkleText(item, "channel")]),
    ).toEqual([
      ["1.1.0-beta.1", "beta"],
      ["1.0.0", null],
    ]);
  });

  it("refuses a tampered link with a JSON 403", async () => {
    const plan = await installPlan("beta");
    expect(plan.version).toBe("1.1.0-beta.1");
    const tampered = plan.download_url.replace(/\/[^/]+$/, "/gadget-9.9.9.zip");
    const response = await fetch(tampered);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ message: expect.any(String), error: "download_link_invalid" });
  });
});

import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { LicenseCheckData } from "@shelf/api/schemas";
import type { z } from "zod";
import type { Context } from "../context";
import { CliError, ExitCode } from "../errors";
import type { LicenseCheckOutput } from "../output";
import { readJson, writeJson } from "../paths";
import { matchProduct, resolveProduct } from "../product-match";
import { loadTrust, requireClientVersion, serviceCache, verifyCertificate } from "../trust";
import { CLIENT_VERSION } from "../version";
import { countLaunch } from "./usage";

/** What the client keeps of a product's last online check: enough to answer offline until the certificate ends. */
type CachedLicense = {
  product_id: number;
  product_name: string;
  certificate: string;
  certificate_expires_at: string;
  recheck_after: string;
  checked_at: string;
};

const licensesFile = (context: Context) => path.join(serviceCache(context), "licenses.json");

/** This machine's device id: random, made once, kept in the config (stable across runs and sign-ins). */
export async function deviceId(context: Context): Promise<string> {
  if (context.config.device_id) return context.config.device_id;
  const made = randomUUID();
  await context.saveConfig((config) => {
    config.device_id ??= made;
  });
  return context.config.device_id ?? made;
}

export async function licenseCheck(context: Context, term: string): Promise<z.infer<typeof LicenseCheckOutput>> {
  const device = await deviceId(context);
  const cached = await readJson<Record<string, CachedLicense>>(licensesFile(context), {});
  const { policy, jwks, online } = await loadTrust(context);
  requireClientVersion(policy, CLIENT_VERSION);

  let product: { id: number; name: string };
  if (online) product = await resolveProduct(await context.api(), term, "library");
  else {
    product = matchProduct(
      term,
      Object.values(cached).map((entry) => ({ id: entry.product_id, name: entry.product_name })),
    );
  }
  const known = cached[String(product.id)];
  const revoked = policy?.revoked.some((entry) => entry.product_id === product.id && entry.device_id === device);
  if (revoked) {
    delete cached[String(product.id)];
    await writeJson(licensesFile(context), cached);
    throw new CliError(
      // The signed policy does not say who blocked it: the account's owner (the product page) or the seller.
      `This device is blocked from ${product.name}: its account's owner blocked it on the product's page, or the seller cut it off.`,
      ExitCode.notEntitled,
      "device_revoked",
      "A block made on the product's page is lifted on the account's devices page (Unblock); one the seller made, only the seller's support can lift.",
    );
  }

  const offlineAnswer = async (reason: "offline" | "cached") => {
    const claims =
      known && jwks
        ? await verifyCertificate(known.certificate, jwks, { productId: product.id, deviceId: device })
        : null;
    if (!known || !claims) return null;
    const until = new Date((claims.exp as number) * 1000).toISOString();
    await countLaunch(context, product.id);
    context.print(
      `${product.name}: licensed (verified offline${reason === "offline" ? ": the service cannot be reached" : ""}; certificate valid until ${until}).`,
    );
    return {
      product: { id: product.id, name: product.name },
      licensed: true as const,
      code: "valid",
      source: reason,
      device_id: device,
      certificate_expires_at: until,
      recheck_after: known.recheck_after,
    };
  };

  if (!online) {
    const answer = await offlineAnswer("offline");
    if (answer) return answer;
    throw new CliError(
      known
        ? `The license certificate of ${product.name} has expired, and the service cannot be reached to renew it.`
        : `The service cannot be reached, and ${product.name} was never checked online on this machine.`,
      ExitCode.notEntitled,
      "certificate_expired",
      "Connect to the internet and run `shelf license check` again.",
    );
  }
  if (known && Date.parse(known.recheck_after) > Date.now()) {
    const answer = await offlineAnswer("cached");
    if (answer) return answer;
  }

  let data: z.infer<typeof LicenseCheckData>;
  try {
    data = await (await context.api()).post("/api/license/check", LicenseCheckData, {
      retrySafe: true,
      body: {
        product_id: product.id,
        device_id: device,
        device_name: os.hostname().slice(0, 255) || null,
        app_version: CLIENT_VERSION,
      },
    });
  } catch (error) {
    if (error instanceof CliError && error.details?.status === 409) {
      const devices = (error.details.devices ?? []) as { name?: string | null; last_seen_at?: string | null }[];
      const manage = typeof error.details.manage_url === "string" ? error.details.manage_url : null;
      const listed = devices
        .map((entry) => `  ${entry.name ?? "(unnamed)"}, last seen ${entry.last_seen_at ?? "never"}`)
        .join("\n");
      throw new CliError(
        `Every device seat of ${product.name} is taken by:\n${listed}`,
        ExitCode.refused,
        "device_limit_reached",
        manage ? `Release one at ${manage}, then run the check again.` : "Release a device, then run the check again.",
        error.details,
      );
    }
    throw error;
  }
  if (!data.licensed || !data.certificate) {
    delete cached[String(product.id)];
    await writeJson(licensesFile(context), cached);
    throw new CliError(
      `${product.name} is not licensed here: ${data.message}`,
      ExitCode.notEntitled,
      data.code,
      "See `shelf library`, or renew the product.",
    );
  }
  const claims = jwks
    ? await verifyCertificate(data.certificate, jwks, { productId: product.id, deviceId: device })
    : null;
  if (!claims) {
    throw new CliError(
      "The license certificate the service sent does not verify against its JWKS: it was not trusted.",
      ExitCode.verificationFailed,
      "certificate_invalid",
      "Check --base-url; if it is right, report it with `shelf report problem`.",
    );
  }
  cached[String(product.id)] = {
    product_id: product.id,
    product_name: product.name,
    certificate: data.certificate,
    certificate_expires_at: data.certificate_expires_at ?? new Date((claims.exp as number) * 1000).toISOString(),
    recheck_after: data.recheck_after,
    checked_at: data.checked_at,
  };
  await writeJson(licensesFile(context), cached);
  await countLaunch(context, product.id);
  context.print(`${product.name}: licensed (checked online; works offline until ${data.certificate_expires_at}).`);
  return {
    product: { id: product.id, name: product.name },
    licensed: true as const,
    code: data.code,
    source: "online",
    device_id: device,
    certificate_expires_at: data.certificate_expires_at,
    recheck_after: data.recheck_after,
  };
}

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

/**
 * The product `term` names among those checked on this machine, when the service cannot be asked. One never checked
 * here is not "no such product" (the service may well have it): the service is unreachable, exit 3.
 */
function cachedProduct(context: Context, term: string, cached: Record<string, CachedLicense>) {
  try {
    return matchProduct(
      term,
      Object.values(cached).map((entry) => ({ id: entry.product_id, name: entry.product_name })),
    );
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "product_not_found") throw error;
    throw new CliError(
      `The service at ${context.baseUrl} cannot be reached, and no product matching "${term}" was checked on this machine before, so there is no certificate to answer from.`,
      ExitCode.unreachable,
      "unreachable",
      "Connect to the internet and run `shelf license check` again; after one online check it works offline.",
    );
  }
}

type LicenseAnswer = z.infer<typeof LicenseCheckOutput>;

/** One check of one product on this machine: what every step reads. */
type Check = {
  context: Context;
  product: { id: number; name: string };
  device: string;
  cached: Record<string, CachedLicense>;
  jwks: Awaited<ReturnType<typeof loadTrust>>["jwks"];
};

/** Drops the product's kept certificate (blocked, refused, or not the service's). */
async function forget({ context, cached, product }: Check): Promise<void> {
  delete cached[String(product.id)];
  await writeJson(licensesFile(context), cached);
}

/** The answer from the kept certificate, or why it gives none (none kept, expired, not signed by the service). */
async function keptAnswer(
  check: Check,
  reason: "offline" | "cached",
): Promise<{ answer: LicenseAnswer } | { problem: "expired" | "invalid" | null }> {
  const { context, product, device, jwks } = check;
  const known = check.cached[String(product.id)];
  if (!known || !jwks) return { problem: null };
  const checked = await verifyCertificate(known.certificate, jwks, { productId: product.id, deviceId: device });
  if ("problem" in checked) return { problem: checked.problem };
  const until = new Date((checked.claims.exp as number) * 1000).toISOString();
  await countLaunch(context, product.id);
  context.print(
    `${product.name}: licensed (verified offline${reason === "offline" ? ": the service cannot be reached" : ""}; certificate valid until ${until}).`,
  );
  return {
    answer: {
      product: { id: product.id, name: product.name },
      licensed: true as const,
      code: "valid",
      source: reason,
      device_id: device,
      certificate_expires_at: until,
      recheck_after: known.recheck_after,
    },
  };
}

/** The service cannot be reached: the kept certificate answers, or the reason it cannot. */
async function offlineOrRefuse(check: Check): Promise<LicenseAnswer> {
  const kept = await keptAnswer(check, "offline");
  if ("answer" in kept) return kept.answer;
  const { context, product } = check;
  if (kept.problem === "invalid") {
    await forget(check);
    throw new CliError(
      `The license certificate kept for ${product.name} is not signed by the service's keys: it was deleted and not trusted, and the service cannot be reached for a new one.`,
      ExitCode.verificationFailed,
      "certificate_invalid",
      "Connect to the internet and run `shelf license check` again.",
    );
  }
  if (kept.problem === "expired") {
    throw new CliError(
      `The license certificate of ${product.name} has expired, and the service cannot be reached to renew it.`,
      ExitCode.notEntitled,
      "certificate_expired",
      "Connect to the internet and run `shelf license check` again.",
    );
  }
  throw new CliError(
    `The service at ${context.baseUrl} cannot be reached, and this machine keeps no license certificate of ${product.name} to answer from.`,
    ExitCode.unreachable,
    "unreachable",
    "Connect to the internet and run `shelf license check` again.",
  );
}

/** The service's check of this device, or "unreachable" when it stopped answering; every seat taken is said whole. */
async function askService({
  context,
  product,
  device,
}: Check): Promise<z.infer<typeof LicenseCheckData> | "unreachable"> {
  try {
    return await (await context.api()).post("/api/license/check", LicenseCheckData, {
      retrySafe: true,
      body: {
        product_id: product.id,
        device_id: device,
        device_name: os.hostname().slice(0, 255) || null,
        app_version: CLIENT_VERSION,
      },
    });
  } catch (error) {
    if (error instanceof CliError && error.exitCode === ExitCode.unreachable) return "unreachable";
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
}

/** The service's answer: refused (the kept certificate goes), or a certificate that must verify, then is kept. */
async function keepOnlineAnswer(check: Check, data: z.infer<typeof LicenseCheckData>): Promise<LicenseAnswer> {
  const { context, product, device, jwks, cached } = check;
  if (!data.licensed || !data.certificate) {
    await forget(check);
    throw new CliError(
      `${product.name} is not licensed here: ${data.message}`,
      ExitCode.notEntitled,
      data.code,
      "See `shelf library`, or renew the product.",
    );
  }
  const checked = jwks
    ? await verifyCertificate(data.certificate, jwks, { productId: product.id, deviceId: device })
    : null;
  if (!checked || "problem" in checked) {
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
    certificate_expires_at:
      data.certificate_expires_at ?? new Date((checked.claims.exp as number) * 1000).toISOString(),
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

/**
 * `shelf license check`: the service's answer when it can be asked (its certificate kept for offline use), the kept
 * certificate until its recheck time or while the service cannot be reached, and a clear refusal otherwise.
 */
export async function licenseCheck(context: Context, term: string): Promise<LicenseAnswer> {
  const device = await deviceId(context);
  const cached = await readJson<Record<string, CachedLicense>>(licensesFile(context), {});
  const { policy, jwks, online } = await loadTrust(context);
  requireClientVersion(policy, CLIENT_VERSION);

  const product = online
    ? await resolveProduct(await context.api(), term, "library")
    : cachedProduct(context, term, cached);
  const check: Check = { context, product, device, cached, jwks };
  const revoked = policy?.revoked.some((entry) => entry.product_id === product.id && entry.device_id === device);
  if (revoked) {
    await forget(check);
    throw new CliError(
      // The signed policy does not say who blocked it: the account's owner (the product page) or the seller.
      `This device is blocked from ${product.name}: its account's owner blocked it on the product's page, or the seller cut it off.`,
      ExitCode.notEntitled,
      "device_revoked",
      "A block made on the product's page is lifted on the account's devices page (Unblock); one the seller made, only the seller's support can lift.",
    );
  }

  if (!online) return offlineOrRefuse(check);
  const known = cached[String(product.id)];
  if (known && Date.parse(known.recheck_after) > Date.now()) {
    const kept = await keptAnswer(check, "cached");
    if ("answer" in kept) return kept.answer;
  }
  // The policy came, then the service stopped answering: the kept certificate still answers.
  const data = await askService(check);
  return data === "unreachable" ? offlineOrRefuse(check) : keepOnlineAnswer(check, data);
}

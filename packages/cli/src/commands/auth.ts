import { spawn } from "node:child_process";
import os from "node:os";
import { DEVICE_CODE_GRANT_TYPE, DeviceCodeData, DeviceEntitlementsData, DeviceTokenData } from "@shelf/api/schemas";
import type { z } from "zod";
import { type Context, signedInElsewhere } from "../context";
import { deleteKey, saveKey } from "../credentials";
import { apiError, CliError, ExitCode } from "../errors";
import { createApiClient, sleep } from "../http";
import type { AuthStatusOutput, LoginOutput, LogoutOutput, WhoamiOutput } from "../output";
import { startSpinner } from "../spinner";

const CLIENT_ID = "shelf-cli";

/** Opens the verification page in a browser when there is a desktop to show it; never waits for it. */
function openBrowser(context: Context, url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  if (process.platform === "linux" && !context.env.DISPLAY && !context.env.WAYLAND_DISPLAY) return;
  try {
    const child = spawn(command, [url], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No browser: the person types the address.
  }
}

export async function login(context: Context, options: { browser: boolean }): Promise<z.infer<typeof LoginOutput>> {
  const api = context.anonymousApi();
  const started = await api.post("/api/device-sign-in/code", DeviceCodeData, {
    anonymous: true,
    body: { client_id: CLIENT_ID, device_name: os.hostname().slice(0, 100) || undefined },
  });
  context.say(`First copy your one-time code: ${started.user_code}`);
  context.say(`Then open ${started.verification_uri} and enter it (or open ${started.verification_uri_complete}).`);
  if (options.browser && context.interactive) openBrowser(context, started.verification_uri_complete);

  const spinner = context.interactive ? startSpinner("Waiting for approval in the browser") : null;
  if (!spinner) context.say("Waiting for approval in the browser...");
  let interval = started.interval;
  const deadline = Date.now() + started.expires_in * 1000;
  try {
    for (;;) {
      await sleep(interval * 1000);
      if (Date.now() > deadline) throw apiError(400, { error: "expired_token" });
      const response = await api.send("POST", "/api/device-sign-in/token", {
        anonymous: true,
        retrySafe: true,
        body: { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: started.device_code, client_id: CLIENT_ID },
      });
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (response.ok) {
        const token = DeviceTokenData.safeParse(body);
        if (!token.success)
          throw new CliError("The service's sign-in answer was not understood.", ExitCode.failed, "unexpected_answer");
        const previous = await context.key();
        const stored = await saveKey(context.env, context.dirs, context.baseUrl, token.data.access_token);
        await context.saveConfig((config) => {
          config.base_url = context.baseUrl;
          config.services ??= {};
          config.services[context.baseUrl] = {
            account_email: token.data.account.email,
            key_prefix: token.data.key.prefix,
            storage: stored.source === "keychain" ? "keychain" : "file",
            signed_in_at: new Date().toISOString(),
          };
        });
        spinner?.succeed(`Signed in as ${token.data.account.email}.`);
        if (!spinner) context.say(`Signed in as ${token.data.account.email}.`);
        if (previous && previous.source !== "environment" && previous.key !== token.data.access_token) {
          await revokeReplaced(context, previous.key);
        }
        context.print(
          stored.source === "keychain"
            ? `The key for ${context.baseUrl} is kept in the OS keychain (keys are kept per service address).`
            : `No OS keychain answered: the key for ${context.baseUrl} is kept in ${stored.file} (readable only by you; keys are kept per service address).`,
        );
        return {
          base_url: context.baseUrl,
          account: token.data.account,
          key_prefix: token.data.key.prefix,
          storage: stored.source === "keychain" ? "keychain" : "file",
          credentials_file: stored.file ?? null,
        };
      }
      if (body.error === "authorization_pending") continue;
      if (body.error === "slow_down") {
        interval = typeof body.interval === "number" ? body.interval : interval + 5;
        continue;
      }
      if (body.error === "access_denied" && body.reason === "api_key_limit_reached") throw slotsFull(context);
      throw apiError(response.status, body);
    }
  } catch (error) {
    spinner?.fail("Sign-in did not finish.");
    throw error;
  }
}

/** The sign-in failed on the page because the account had no key slot left for this machine's key. */
function slotsFull(context: Context): CliError {
  return new CliError(
    "The sign-in failed on the web page: every account-wide key slot of the account is taken, so no key could be made for this machine.",
    ExitCode.refused,
    "api_key_limit_reached",
    `Revoke a key you no longer use at ${context.baseUrl}/settings/api-keys, then run \`shelf login\` again.`,
  );
}

/**
 * Signing in again replaces this machine's key (as `gh auth login` does): the one it held is revoked on the service,
 * so no forgotten key stays live. Best effort: a key the service no longer knows needs nothing.
 */
async function revokeReplaced(context: Context, key: string): Promise<void> {
  const api = createApiClient({ baseUrl: context.baseUrl, key, say: () => {}, timeoutMs: context.timeoutMs });
  try {
    await api.post("/api/cli/device/logout", null, {});
    context.say("The key this machine held before was revoked.");
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    if (error.exitCode !== ExitCode.signInNeeded) {
      context.say(
        `Warning: the key this machine held before could not be revoked (${error.message}); revoke it in developer settings.`,
      );
    }
  }
}

export async function logout(context: Context): Promise<z.infer<typeof LogoutOutput>> {
  const found = await context.key();
  if (!found) {
    throw new CliError(
      "You are not signed in here: there is no key to sign out.",
      ExitCode.signInNeeded,
      "missing_api_key",
    );
  }
  if (found.source === "environment") {
    throw new CliError(
      "The key comes from SHELF_API_KEY, which shelf never stores or revokes.",
      ExitCode.usage,
      "key_from_environment",
      "Unset SHELF_API_KEY (and revoke that key in developer settings if it should stop working).",
    );
  }
  let revoked = false;
  let warning: string | null = null;
  try {
    await (await context.api()).post("/api/cli/device/logout", null, {});
    revoked = true;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    if (error.code === "invalid_api_key") {
      warning = "The service no longer accepted the key (it was already revoked or expired).";
    } else {
      warning = `The key could not be revoked on the service: ${error.message} Revoke it in developer settings; it was deleted from this machine.`;
    }
  }
  const deleted = await deleteKey(context.env, context.dirs, context.baseUrl);
  await context.saveConfig((config) => {
    if (config.services) delete config.services[context.baseUrl];
  });
  if (warning) context.say(`Warning: ${warning}`);
  context.print(
    revoked ? "Signed out: the key is revoked and deleted from this machine." : "Signed out on this machine.",
  );
  return { base_url: context.baseUrl, revoked_on_server: revoked, deleted_locally: deleted, warning };
}

export async function whoami(context: Context): Promise<z.infer<typeof WhoamiOutput>> {
  const api = await context.api();
  const found = (await context.key()) as NonNullable<Awaited<ReturnType<Context["key"]>>>;
  const data = await api.get("/api/device/entitlements", DeviceEntitlementsData);
  if (!data.user)
    throw new CliError(
      "The service did not say which account this key belongs to.",
      ExitCode.failed,
      "unexpected_answer",
    );
  context.print(`${data.user.email ?? `account ${data.user.id}`}${data.user.name ? ` (${data.user.name})` : ""}`);
  context.print(`Service: ${context.baseUrl}`);
  return {
    base_url: context.baseUrl,
    account: data.user,
    key_source: found.source,
    device: { id: data.device.id, name: data.device.name },
  };
}

/**
 * Where the key is and whose it is, as the service says: the account of the key in use (SHELF_API_KEY's own, not the
 * one `shelf login` remembered), or null when the key may not ask (it lacks device.entitlements) or the service could
 * not be asked.
 */
export async function authStatus(context: Context): Promise<z.infer<typeof AuthStatusOutput>> {
  const found = await context.key();
  const remembered = found?.source === "environment" ? undefined : context.config.services?.[context.baseUrl];
  let valid: boolean | null = null;
  let email: string | null = remembered?.account_email ?? null;
  if (found) {
    try {
      const data = await (await context.api()).get("/api/device/entitlements", DeviceEntitlementsData);
      valid = true;
      email = data.user?.email ?? email;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      if (error.exitCode === ExitCode.signInNeeded) valid = false;
      // A key without the ability to say whose it is still works: only its account stays unnamed.
      else if (error.exitCode === ExitCode.notEntitled) valid = true;
    }
  }
  const where =
    found?.source === "environment"
      ? "the SHELF_API_KEY environment variable"
      : found?.source === "keychain"
        ? "the OS keychain"
        : found?.source === "file"
          ? `the file ${found.file} (mode 0600; no OS keychain answered)`
          : null;
  context.print(`Service: ${context.baseUrl}`);
  if (!found) {
    context.print(`Not signed in at ${context.baseUrl}. Run \`shelf login\`.`);
    const elsewhere = signedInElsewhere(context.config, context.baseUrl);
    if (elsewhere) context.print(elsewhere);
  } else {
    context.print(`Signed in${email ? ` as ${email}` : ""}; the key is in ${where}.`);
    context.print(
      valid === true
        ? "The service accepts the key."
        : valid === false
          ? "The service no longer accepts the key: run `shelf login`."
          : "The service could not be asked whether it accepts the key.",
    );
  }
  return {
    base_url: context.baseUrl,
    signed_in: found !== null,
    key_source: found?.source ?? null,
    credentials_file: found?.file ?? null,
    key_prefix: found?.source === "environment" ? found.key.slice(0, 14) : (remembered?.key_prefix ?? null),
    account_email: email,
    valid,
  };
}

/** `auth status` succeeds only when the key works: no key or a refused one is exit 4, an unasked service exit 3. */
export function authStatusExit(status: z.infer<typeof AuthStatusOutput>): ExitCode {
  if (!status.signed_in || status.valid === false) return ExitCode.signInNeeded;
  return status.valid === null ? ExitCode.unreachable : ExitCode.ok;
}

import path from "node:path";
import {
  createAccountApiEdge,
  createAccountMcpOf,
  createGuessLimits,
  createMailer,
  createMetadataDocuments,
  DEMO_DISCLOSURE,
  loadDataFolderSecret,
  loadDisclosure,
  startOutbox,
} from "@shelf/api";
import { INVOICE_FONT_PATH } from "@shelf/api/invoice-font";
import { loadDemoSecret, seedDemo } from "@shelf/demo";
import { pagesRuntimeOf } from "@shelf/web-kit/runtime";
import { startNextApp } from "@shelf/web-kit/server";
import { consentFormTargets } from "./src/auth/consent-form-targets";
import { readWebConfig } from "./src/env";
import { setRuntime } from "./src/runtime";

const NEXT_AUTH_BODY_BYTES = 64 * 1024;

/**
 * The web app's process: the shared start-up (`startNextApp`) with what is the web app's own: the account API, OAuth and
 * the account MCP on its edges, the demo account, next-auth and the account pages' runtime.
 */
startNextApp(import.meta.url, readWebConfig, (config) => {
  const { settings: web, api, db } = config;
  return {
    name: "web",
    title: "Shelf",
    port: web.PORT,
    publicUrl: api.SHELF_BASE_URL,
    // next-auth's forms are a few hundred bytes; other pages (server actions) keep the server's default of 1 MiB,
    // which is also the most Next itself lets a server action take.
    pageBodyLimit: (path) => (path === "/auth" || path.startsWith("/auth/") ? NEXT_AUTH_BODY_BYTES : undefined),
    formTargets: consentFormTargets,
    prepare: async (host) => {
      // A deployment publishes its own disclosure; the demo, without one, a sample that says it is one.
      const disclosure = (await loadDisclosure(api)) ?? (web.SHELF_DEMO ? DEMO_DISCLOSURE : undefined);
      const demo = web.SHELF_DEMO
        ? await seedDemo(host.db, {
            brand: api.SHELF_KEY_PREFIX,
            secret: await loadDemoSecret(db.SHELF_DATA_DIR),
            files: host.files,
          })
        : undefined;
      // Sign-in failures and device codes are counted where every instance sees them (Redis), like the rate limits.
      const guessLimits = createGuessLimits({
        redisUrl: api.REDIS_URL,
        namespace: `${web.SHELF_RATE_LIMIT_NAMESPACE}:guess`,
      });
      // Every instance must seal and open the same session cookies: the environment's secret, else the data folder's.
      const authSecret = web.SHELF_AUTH_SECRET ?? (await loadDataFolderSecret(db.SHELF_DATA_DIR, "auth-secret"));
      // Account mail (password resets) through SHELF_SMTP_URL; without it, into the data folder's outbox.
      const mailer = createMailer({
        smtpUrl: api.SHELF_SMTP_URL,
        outboxDir: path.resolve(db.SHELF_DATA_DIR, "outbox"),
        from: api.SHELF_MAIL_FROM,
      });
      return { disclosure, demo, guessLimits, authSecret, mailer };
    },
    mount: async (host, { disclosure, demo, guessLimits, authSecret, mailer }) => {
      // The authorization server's endpoints are account API routes (the consent page is Next's): its tokens work on
      // the account MCP only.
      const oauthSettings = {
        issuer: api.SHELF_AUTH_URL ?? host.baseUrl.replace(/\/+$/, ""),
        resource: `${host.baseUrl.replace(/\/+$/, "")}/api/mcp`,
        brand: api.SHELF_KEY_PREFIX,
        // Refresh tokens' successors are derived with it: the secret every instance shares, which no database holds.
        secret: authSecret,
        // Clients may name themselves by the URL of their metadata document (fetched under SSRF rules).
        documents: createMetadataDocuments({ log: host.log, loopbackOrigin: api.SHELF_OAUTH_LOOPBACK_DOCUMENT_ORIGIN }),
      };
      // One account MCP for the process: its edge serves it, and the pages' caller has the same one in its context.
      const mcp = createAccountMcpOf(host.edge);
      const accountApi = createAccountApiEdge({
        ...host.edge,
        disclosure,
        oauth: oauthSettings,
        guessLimits,
        mcp,
        routeLimits: {
          "oauth-register": api.SHELF_OAUTH_REGISTRATIONS_PER_MINUTE,
          "oauth-token": api.SHELF_OAUTH_TOKEN_REQUESTS_PER_MINUTE,
        },
      });
      // next-auth (v4) finds its own URL and base path (/auth, since /api is the REST API's) only in this variable.
      process.env.NEXTAUTH_URL = `${host.baseUrl}/auth`;
      setRuntime({
        config,
        ...pagesRuntimeOf(host),
        guessLimits,
        authSecret,
        secureCookies: host.baseUrl.startsWith("https:"),
        oauth: oauthSettings,
        mcp,
        mailer,
        disclosure,
        invoiceFont: INVOICE_FONT_PATH,
      });
      // Security notices and confirmations, queued by the changes themselves, from every instance (each takes its own).
      const outbox = startOutbox(host.db, { mailer, baseUrl: host.baseUrl, log: host.log });
      if (!(await guessLimits.ready())) {
        host.log.warn("Redis did not answer: sign-in limits are counted per instance until it does");
      }
      // The demo key is a credential: printed for the person at the terminal, never logged.
      const lines = demo
        ? [
            `Demo API key: ${demo.key}`,
            `Try: curl -H "Authorization: Bearer ${demo.key}" http://localhost:${host.port}/api/library`,
            `Demo sign-in: ${demo.email} / ${demo.password} at http://localhost:${host.port}/sign-in`,
          ]
        : [];
      lines.push(
        api.SHELF_SMTP_URL
          ? `Mail: sent through ${mailer.destination}`
          : `Mail: no SHELF_SMTP_URL, so each mail is written to ${mailer.destination}`,
      );
      return {
        edges: [accountApi],
        lines,
        close: async () => {
          await outbox.stop();
          mailer.close();
          await guessLimits.close();
        },
      };
    },
  };
});

import type { GuessLimits, Mailer, McpEndpoint, OAuthSettings, PublicDisclosureData } from "@shelf/api";
import { runtimeSlot } from "@shelf/api/host/pages";
import type { PagesRuntime } from "@shelf/web-kit/runtime";
import type { WebConfig } from "./env";

/** What the server started with, for the pages: what both apps have, and the account pages' own. */
export type WebRuntime = PagesRuntime<WebConfig> & {
  /** Limits on guessing through the pages (passwords, device sign-in codes), shared through Redis when set. */
  guessLimits: GuessLimits;
  /** Seals the session cookie (next-auth's secret). */
  authSecret: string;
  /** Whether the pages are served over HTTPS: session cookies are then `Secure` and `__Secure-` prefixed. */
  secureCookies: boolean;
  /** The authorization server's settings: issuer, the resource it protects, the token brand. */
  oauth: OAuthSettings;
  /** The account MCP's serving code, the one the account API's edge serves: the pages' procedures get it too. */
  mcp: McpEndpoint;
  /** Account mail: SMTP (`SHELF_SMTP_URL`) or the data folder's outbox. */
  mailer: Mailer;
  /** The business disclosure the footer shows (`/api/public/disclosure`'s data), when the deployment publishes one. */
  disclosure: PublicDisclosureData | undefined;
  /** The invoice PDFs' font file (`@shelf/api/invoice-font`), resolved by the server's own process. */
  invoiceFont: string;
};

const slot = runtimeSlot<WebRuntime>("web");

export const setRuntime = slot.set;
export const getRuntime = slot.get;

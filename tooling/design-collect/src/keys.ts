import { createHash } from "node:crypto";
import type { CollectApp, CollectLang, CollectViewport } from "@shelf/db/enums";

/** What makes a capture one and the same across runs. */
export type CaptureIdentity = {
  app: CollectApp;
  /** The route pattern (`/account/products/[product]`), not the address. */
  page: string;
  viewport: CollectViewport;
  lang: CollectLang;
  auth: boolean;
  /** The sign-in page seen on the way in (a step of the signed-in walk). */
  loginStage?: boolean;
};

/**
 * A capture's key: the SHA-1 (40 hex digits, the contract's exact length) of its identity, so the same page at the
 * same viewport, language and signed-in state has the same key in every run, whatever its address or content.
 */
export function captureKey(identity: CaptureIdentity): string {
  const parts = [
    identity.app,
    identity.page,
    identity.viewport,
    identity.lang,
    identity.auth ? "signed-in" : "signed-out",
    ...(identity.loginStage ? ["login"] : []),
  ];
  return createHash("sha1").update(parts.join("|")).digest("hex");
}

import { createHmac, timingSafeEqual } from "node:crypto";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { z } from "zod";
import { DomainError } from "../errors";

/** What a download link grants: one stored object, under one name, until it expires. */
export type DownloadTicket = {
  key: string;
  sha256: string;
  size: number;
  filename: string;
  contentType: string;
  /** The product it is a file of, so that a person whose link expired is led back to it. */
  productId?: number;
};

export type DownloadLink = { url: string; expiresAt: Date };

export type DownloadLinks = {
  /**
   * A short-lived URL to the object that carries no API key: a presigned object URL when the store offers one
   * (S3), else the service's own signed route.
   */
  link: (ticket: DownloadTicket, now?: Date) => Promise<DownloadLink>;
  /** The ticket behind a signed route's token, or 403 when it was altered, forged or has expired. */
  verify: (token: string, filename: string, now?: Date) => DownloadTicket & { expiresAt: Date };
  /** The product a genuine token names (expired or not), or null: where the way back from a refused link leads. */
  productOf: (token: string) => number | null;
};

/** The signed route, relative to the app host; `{token}` carries the ticket, the last segment names the file. */
export const SIGNED_FILE_PATH = "/distribution/v1/files/{token}/{filename}";

const Payload = z.object({
  k: z.string().min(1),
  h: z.string().regex(/^[0-9a-f]{64}$/),
  s: z.number().int().min(0),
  f: z.string().min(1),
  t: z.string().min(1),
  e: z.number().int(),
  p: z.number().int().positive().optional(),
});

const CONTEXT = "shelf-download.v1.";

/**
 * HMAC-SHA256 signed download links. The token holds everything the download needs (object key, sha256, size,
 * name, type, expiry), so serving it reads no database; the secret is the same on every instance. Anything altered
 * (a byte of the token, the file name after it) fails the signature, compared in constant time.
 */
export function createDownloadLinks(options: {
  secret: string;
  appUrl: string;
  ttlSeconds: number;
  store: ArtifactStore;
}): DownloadLinks {
  const mac = (payload: string) =>
    createHmac("sha256", options.secret)
      .update(CONTEXT + payload)
      .digest();

  return {
    async link(ticket, now = new Date()) {
      const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + options.ttlSeconds * 1000);
      const presigned = await options.store.presign(ticket.key, {
        expiresInSeconds: options.ttlSeconds,
        filename: ticket.filename,
        contentType: ticket.contentType,
      });
      if (presigned) return { url: presigned, expiresAt };
      const payload = Buffer.from(
        JSON.stringify({
          k: ticket.key,
          h: ticket.sha256,
          s: ticket.size,
          f: ticket.filename,
          t: ticket.contentType,
          e: expiresAt.getTime() / 1000,
          ...(ticket.productId ? { p: ticket.productId } : {}),
        }),
      ).toString("base64url");
      const token = `${payload}.${mac(payload).toString("base64url")}`;
      const path = SIGNED_FILE_PATH.replace("{token}", token).replace(
        "{filename}",
        encodeURIComponent(ticket.filename),
      );
      return { url: `${options.appUrl}${path}`, expiresAt };
    },

    verify(token, filename, now = new Date()) {
      const payload = genuine(token);
      if (!payload || payload.f !== filename) throw new DomainError("download_link_invalid");
      const { k, h, s, f, t, e, p } = payload;
      if (e * 1000 <= now.getTime()) throw new DomainError("download_link_expired");
      return {
        key: k,
        sha256: h,
        size: s,
        filename: f,
        contentType: t,
        expiresAt: new Date(e * 1000),
        ...(p ? { productId: p } : {}),
      };
    },

    productOf: (token) => genuine(token)?.p ?? null,
  };

  /** The payload of a token whose signature holds, or null. */
  function genuine(token: string): z.infer<typeof Payload> | null {
    const [payload, signature, ...extra] = token.split(".");
    const given = Buffer.from(signature ?? "", "base64url");
    const expected = mac(payload ?? "");
    if (!payload || extra.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return null;
    }
    const parsed = Payload.safeParse(safeJson(Buffer.from(payload, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

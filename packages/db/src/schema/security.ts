import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { belongsToAccount } from "./accounts";
import { identityId, sha256Lookup, timestampNow } from "./columns";

/** What the security log records: each kind is written in the same transaction as the change it names. */
export const securityEventKinds = [
  "sign_in",
  "sign_in_failed",
  "password_changed",
  "password_reset",
  "email_changed",
  "email_verified",
  "key_created",
  "key_revoked",
  "device_released",
  "device_blocked",
  "device_unblocked",
  "app_connected",
  "app_disconnected",
  "account_deleted",
] as const;
export type SecurityEventKind = (typeof securityEventKinds)[number];

/**
 * An account's security log: one row per audited change, inserted by the same transaction as the change, so a change
 * that fails leaves no row and a row always names a change that happened. `detail` holds what the page shows beside
 * the kind (a key's prefix and name, an app's name, a device's name); never a secret. Kept 180 days (housekeeping).
 */
export const securityEvents = pgTable(
  "security_events",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    kind: text().$type<SecurityEventKind>().notNull(),
    detail: jsonb().$type<Record<string, string | number | null>>().notNull().default({}),
    /** The client address the change came from, when it came through a request that has one. */
    address: text(),
    createdAt: timestampNow(),
  },
  (t) => [
    index("security_events_account_id_id_index").on(t.accountId, t.id),
    index().on(t.createdAt),
    check(
      "security_events_kind",
      sql.raw(`"security_events"."kind" IN (${securityEventKinds.map((kind) => `'${kind}'`).join(", ")})`),
    ),
  ],
);

/**
 * A "forgot password" link: only the SHA-256 of its secret is stored; it works once (`usedAt`) and for 30 minutes.
 * Asking again ends the links asked for before.
 */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    tokenHash: text().notNull(),
    createdAt: timestampNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [...sha256Lookup("password_resets_token_hash", t.tokenHash), index().on(t.accountId)],
);

/** What an email link proves: the address of the account (sign-up), or a new address the account asked to move to. */
export const emailLinkPurposes = ["verify", "change"] as const;
export type EmailLinkPurpose = (typeof emailLinkPurposes)[number];

/**
 * A link mailed to an address to prove the person reads mail there: the verification at sign-up (`verify`, to the
 * account's address) or a change of email (`change`, to the new address, which becomes the account's only when the link
 * is followed). Only the SHA-256 of its secret is stored; it works once (`usedAt`) and for a short time; asking again
 * ends the links of the same purpose asked for before.
 */
export const emailLinks = pgTable(
  "email_links",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    purpose: text().$type<EmailLinkPurpose>().notNull(),
    /** The address the link was mailed to, which following it verifies (or makes the account's). */
    email: text().notNull(),
    tokenHash: text().notNull(),
    createdAt: timestampNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    ...sha256Lookup("email_links_token_hash", t.tokenHash),
    index().on(t.accountId),
    check("email_links_purpose", sql`${t.purpose} IN ('verify', 'change')`),
  ],
);

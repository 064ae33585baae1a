import { sql } from "drizzle-orm";
import { check, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { identityId, timestampNow } from "./columns";

export const accounts = pgTable(
  "accounts",
  {
    id: identityId(),
    email: text().notNull(),
    name: text(),
    passwordHash: text(),
    /** The language its mails are written in (`en`, `ko`): the pages' language at sign-up; unset, English. */
    language: text(),
    /** When the person accepted the terms and the privacy policy at sign-up, and which (their URLs then). */
    termsAcceptedAt: timestamp({ withTimezone: true }),
    acceptedTermsUrl: text(),
    acceptedPrivacyUrl: text(),
    /**
     * When the person proved they read mail at `email` (the sign-up mail's link, or the confirmation of a new address);
     * null: unverified. Accounts the operator or the demo creates are verified at creation.
     */
    emailVerifiedAt: timestamp({ withTimezone: true }),
    /**
     * When the account was deleted. Its row stays, anonymised, because orders and invoices are sales records kept for
     * tax law: `email` is then a unique placeholder at a non-routable domain, `name` and `passwordHash` are null.
     */
    deletedAt: timestamp({ withTimezone: true }),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("accounts_email_lower_key").on(sql`lower(${t.email})`),
    check("accounts_language", sql`${t.language} IN ('en', 'ko')`),
  ],
);

/** The account a row belongs to (its `account_id`): deleting the account deletes the row. */
export const belongsToAccount = () =>
  integer()
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" });

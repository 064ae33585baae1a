import { sql } from "drizzle-orm";
import { check, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const accounts = pgTable(
  "accounts",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    email: text().notNull(),
    name: text(),
    passwordHash: text(),
    /** The language its mails are written in (`en`, `ko`): the pages' language at sign-up; unset, English. */
    language: text(),
    /** When the person accepted the terms and the privacy policy at sign-up, and which (their URLs then). */
    termsAcceptedAt: timestamp({ withTimezone: true }),
    acceptedTermsUrl: text(),
    acceptedPrivacyUrl: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("accounts_email_lower_key").on(sql`lower(${t.email})`),
    check("accounts_language", sql`${t.language} IN ('en', 'ko')`),
  ],
);

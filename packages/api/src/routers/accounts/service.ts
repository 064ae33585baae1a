import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { hashPassword } from "../../auth/password";
import { DomainError, isUniqueViolation, parseInput } from "../../errors";
import { type AccountRecord, CreateAccountInput } from "./schemas";

const { accounts } = schema;

type AccountRow = typeof accounts.$inferSelect;

export function toAccountRecord(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    has_password: row.passwordHash !== null,
    created_at: row.createdAt.toISOString(),
  };
}

/** Emails are unique whatever their case (the `accounts_email_lower_key` index); lookups ignore case too. */
export async function findAccountByEmail(db: Database, email: string): Promise<AccountRow | null> {
  const [row] = await db
    .select()
    .from(accounts)
    .where(eq(sql`lower(${accounts.email})`, email.trim().toLowerCase()));
  return row ?? null;
}

export async function requireAccountByEmail(db: Database, email: string): Promise<AccountRow> {
  const account = await findAccountByEmail(db, email);
  if (!account) throw new DomainError("not_found", `No account with the email ${email.trim()}.`);
  return account;
}

export async function createAccount(db: Database, rawInput: CreateAccountInput): Promise<AccountRecord> {
  const { email, name, password } = parseInput(CreateAccountInput, rawInput);
  const passwordHash = password ? await hashPassword(password) : null;
  try {
    const [row] = await db
      .insert(accounts)
      .values({ email, name: name ?? null, passwordHash })
      .returning();
    return toAccountRecord(row as AccountRow);
  } catch (error) {
    if (isUniqueViolation(error, "accounts_email_lower_key")) {
      throw new DomainError("conflict", `An account with the email ${email} already exists.`);
    }
    throw error;
  }
}

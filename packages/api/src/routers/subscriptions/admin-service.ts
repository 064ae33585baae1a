import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { DomainError, parseInput, ValidationError } from "../../errors";
import { hasControlCharacter } from "../../schemas/common";

const { accounts, subscriptions } = schema;

const Label = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((text) => !hasControlCharacter(text), { message: "must be printable text" });

export const GrantPassInput = z.object({
  accountId: z.number().int().positive(),
  until: z.date(),
  graceDays: z.number().int().min(0).max(365).default(7),
  tier: Label.default("all-access"),
  features: z.array(Label).max(100).default([]),
  /** Bundle ids or product slugs the pass opens; `*` for every app. */
  apps: z.array(Label).max(500).default(["*"]),
});
export type GrantPassInput = z.input<typeof GrantPassInput>;

export type SubscriptionRecord = {
  id: number;
  account_id: number;
  is_pass: boolean;
  status: string;
  tier: string | null;
  features: string[];
  allowed_apps: string[];
  starts_at: string;
  ends_at: string | null;
  grace_days: number;
};

function toSubscriptionRecord(row: typeof subscriptions.$inferSelect): SubscriptionRecord {
  return {
    id: row.id,
    account_id: row.accountId,
    is_pass: row.isPass,
    status: row.status,
    tier: row.tier,
    features: row.features,
    allowed_apps: row.allowedApps,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt?.toISOString() ?? null,
    grace_days: row.graceDays,
  };
}

/** `pass:grant`: an all-access pass from now until `until`, working `graceDays` longer if it lapses. */
export async function grantPass(db: Database, rawInput: GrantPassInput): Promise<SubscriptionRecord> {
  const input = parseInput(GrantPassInput, rawInput);
  if (input.until.getTime() <= Date.now()) throw new ValidationError({ until: ["must be in the future"] });
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
  if (!account) throw new DomainError("not_found", "Account not found.");
  const [row] = await db
    .insert(subscriptions)
    .values({
      accountId: input.accountId,
      isPass: true,
      status: "active",
      tier: input.tier,
      features: [...new Set(input.features)],
      allowedApps: [...new Set(input.apps)],
      endsAt: input.until,
      graceDays: input.graceDays,
    })
    .returning();
  return toSubscriptionRecord(row as typeof subscriptions.$inferSelect);
}

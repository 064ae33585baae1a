import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, asc, eq, inArray, isNotNull, isNull, ne } from "drizzle-orm";
import { DomainError } from "../../errors";

const { paymentMethods, subscriptions } = schema;

/** Subscriptions that will renew again: the ones a card change concerns. */
const RENEWING = ["active", "trialing", "past_due"] as const;

/**
 * Makes one of the person's cards the default, in one transaction: the other cards lose the mark, and the account's
 * renewing subscriptions renew on it from now on. No card number is typed or stored: a card is only ever the brand,
 * last four digits and expiry the payment provider gave.
 */
export async function makeDefaultCard(db: Database, accountId: number, cardId: number): Promise<{ id: number }> {
  return db.transaction(async (tx) => {
    const [card] = await tx
      .select({ id: paymentMethods.id })
      .from(paymentMethods)
      .where(and(eq(paymentMethods.id, cardId), eq(paymentMethods.accountId, accountId)))
      .for("update");
    if (!card) throw new DomainError("not_found", "Card not found.");
    await tx
      .update(paymentMethods)
      .set({ isDefault: false })
      .where(and(eq(paymentMethods.accountId, accountId), ne(paymentMethods.id, cardId)));
    await tx.update(paymentMethods).set({ isDefault: true }).where(eq(paymentMethods.id, cardId));
    await tx
      .update(subscriptions)
      .set({ paymentMethodId: cardId })
      .where(
        and(
          eq(subscriptions.accountId, accountId),
          inArray(subscriptions.status, [...RENEWING]),
          eq(subscriptions.cancelAtPeriodEnd, false),
          isNotNull(subscriptions.renewalAmountCents),
        ),
      );
    return { id: cardId };
  });
}

/**
 * Removes one of the person's cards. If it was the default, the oldest remaining card becomes the default; the
 * subscriptions that renewed on it move to the default card (or to none, when no card is left: they then need a card
 * before they renew). Orders keep their record of how they were paid.
 */
export async function removeCard(
  db: Database,
  accountId: number,
  cardId: number,
): Promise<{ removed: number; default_card: number | null }> {
  return db.transaction(async (tx) => {
    const [card] = await tx
      .delete(paymentMethods)
      .where(and(eq(paymentMethods.id, cardId), eq(paymentMethods.accountId, accountId)))
      .returning({ id: paymentMethods.id, isDefault: paymentMethods.isDefault });
    if (!card) throw new DomainError("not_found", "Card not found.");
    const remaining = await tx
      .select({ id: paymentMethods.id, isDefault: paymentMethods.isDefault })
      .from(paymentMethods)
      .where(eq(paymentMethods.accountId, accountId))
      .orderBy(asc(paymentMethods.id));
    let fallback = remaining.find((row) => row.isDefault)?.id ?? null;
    if (card.isDefault && remaining[0]) {
      fallback = remaining[0].id;
      await tx.update(paymentMethods).set({ isDefault: true }).where(eq(paymentMethods.id, fallback));
    }
    // The foreign key left the subscriptions that renewed on it without a card: renewing ones without a card renew on
    // the default one.
    if (fallback !== null) {
      await tx
        .update(subscriptions)
        .set({ paymentMethodId: fallback })
        .where(
          and(
            eq(subscriptions.accountId, accountId),
            inArray(subscriptions.status, [...RENEWING]),
            isNotNull(subscriptions.renewalAmountCents),
            eq(subscriptions.cancelAtPeriodEnd, false),
            isNull(subscriptions.paymentMethodId),
          ),
        );
    }
    return { removed: card.id, default_card: fallback };
  });
}

import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { ValidationError } from "../errors";

/** Korean VAT: 10 %, included in every KRW price. */
const KRW_VAT_RATE = 0.1;

/** How many minor units a currency has (USD 2, KRW 0, BHD 3), as ISO 4217 and the platform's Intl say. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * The supply amount and VAT of a KRW total that includes 10 % VAT, in whole won: supply rounded to the won, VAT the
 * rest, so they always add up to the total. Null for other currencies.
 */
export function vatSplit(currency: string, totalCents: number): { supplyCents: number; vatCents: number } | null {
  if (currency !== "KRW") return null;
  const supplyCents = Math.round(totalCents / (1 + KRW_VAT_RATE));
  return { supplyCents, vatCents: totalCents - supplyCents };
}

/** Won per unit of a currency, from the stored rates (KRW itself is 1); null when none is stored. */
export async function krwRate(db: Executor, currency: string) {
  if (currency === "KRW") return { krwPerUnit: 1, source: "identity", asOf: null as Date | null };
  const [row] = await db.select().from(schema.exchangeRates).where(eq(schema.exchangeRates.currency, currency));
  return row ? { krwPerUnit: Number(row.krwPerUnit), source: row.source, asOf: row.asOf } : null;
}

/** An amount in minor units of one currency, in minor units of another, through the stored KRW rates. */
export async function convert(db: Executor, cents: number, from: string, to: string): Promise<number> {
  if (from === to) return cents;
  const [source, target] = await Promise.all([krwRate(db, from), krwRate(db, to)]);
  const missing = !source ? from : !target ? to : null;
  if (missing || !source || !target) {
    throw new ValidationError({
      currency: [`no exchange rate for ${missing} is stored: set one with exchange-rate:set first`],
    });
  }
  const won = (cents / 10 ** minorDigits(from)) * source.krwPerUnit;
  return Math.round((won / target.krwPerUnit) * 10 ** minorDigits(to));
}

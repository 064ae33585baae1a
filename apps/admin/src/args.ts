import { type Ability, allAbilities } from "@shelf/api";

/** Bad command-line input: reported with the usage hint, exit code 1. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type OptionValues = Record<string, string | boolean | undefined>;

export function requiredString(values: OptionValues, name: string): string {
  const value = optionalString(values, name);
  if (value === undefined || value.trim() === "") throw new UsageError(`--${name} is required.`);
  return value;
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

/** A whole number written in plain digits; `--price-cents 9.99` or `1e3` is a mistake worth reporting. */
export function optionalInteger(values: OptionValues, name: string, { min = 0 } = {}): number | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`--${name} must be a whole number${min > 0 ? ` of at least ${min}` : ""}, got "${raw}".`);
  }
  return value;
}

export function requiredInteger(values: OptionValues, name: string, options: { min?: number } = {}): number {
  const value = optionalInteger(values, name, options);
  if (value === undefined) throw new UsageError(`--${name} is required.`);
  return value;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 date (`2027-01-31`, midnight UTC) or date-time (`2027-01-31T12:00:00Z`; without an offset it is
 * UTC). Impossible dates such as February 30 are refused instead of rolling over into March.
 */
export function optionalDate(values: OptionValues, name: string): Date | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  const match = ISO_DATE_TIME.exec(raw.trim());
  const invalid = () =>
    new UsageError(`--${name} must be an ISO 8601 date or date-time such as 2027-01-31T12:00:00Z, got "${raw}".`);
  if (!match) throw invalid();
  const [, year, month, day, hour = "0", minute = "0", second = "0", zone] = match;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const realDay =
    calendar.getUTCFullYear() === Number(year) &&
    calendar.getUTCMonth() === Number(month) - 1 &&
    calendar.getUTCDate() === Number(day);
  if (!realDay || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) throw invalid();
  const text = raw.trim().replace(" ", "T");
  const date = new Date(match[4] === undefined ? `${text}T00:00:00Z` : zone ? text : `${text}Z`);
  if (Number.isNaN(date.getTime())) throw invalid();
  return date;
}

export function optionalAbilities(values: OptionValues, name: string): Ability[] | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  const abilities = raw
    .split(",")
    .map((ability) => ability.trim())
    .filter(Boolean);
  if (abilities.length === 0) throw new UsageError(`--${name} needs at least one ability.`);
  const known = new Set<string>(allAbilities);
  const unknown = abilities.filter((ability) => !known.has(ability));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown abilit${unknown.length === 1 ? "y" : "ies"} ${unknown.map((a) => `"${a}"`).join(", ")}. Known abilities: ${allAbilities.join(", ")}.`,
    );
  }
  return [...new Set(abilities)] as Ability[];
}

/** A comma-separated list (`a,b`): items trimmed, empty ones and repeats dropped. */
export function optionalList(values: OptionValues, name: string): string[] | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return undefined;
  const items = [...new Set(raw.split(",").map((item) => item.trim()))].filter(Boolean);
  if (items.length === 0) throw new UsageError(`--${name} needs at least one item.`);
  return items;
}

export function requiredDate(values: OptionValues, name: string): Date {
  const value = optionalDate(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required.`);
  return value;
}

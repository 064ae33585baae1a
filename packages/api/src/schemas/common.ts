import { z } from "zod";

/**
 * Building blocks shared by every domain's schemas. Like every `schemas.ts`, this module imports nothing but zod
 * and other pure modules, so pages and the command-line client can use the same schemas as the server.
 */

/** Path and query identifiers are integers (contract section 4); anything else is a validation failure. */
export const IdParam = z
  .number({ error: "must be an integer" })
  .int({ error: "must be an integer" })
  .min(1, { error: "must be at least 1" })
  .max(2_147_483_647, { error: "must be at most 2147483647" });

/** Date-times leave the API as ISO 8601 strings with an offset. */
export const DateTime = z.iso.datetime({ offset: true });

/** A nullable timestamp as the API writes it: ISO 8601 in UTC, or null. */
export const isoOrNull = (date: Date | null): string | null => date?.toISOString() ?? null;

/** Longest password accepted anywhere (sign-up, operator CLI); hashing cost is bounded by it. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Whether the text holds a C0 control character or DEL: never part of a name or a path. */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

import type { z } from "zod";

/**
 * Whether JSON text is exactly a value of the schema: valid, with no field the schema lacks and every field in
 * the schema's order (parsing keeps only the schema's fields, in its order, so the text must survive the round
 * trip unchanged). Returns the problem, or null.
 */
export function contractMismatch(schema: z.ZodType, text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "the body is not JSON";
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    return parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  const again = JSON.stringify(parsed.data);
  if (again === text) return null;
  let at = 0;
  while (again[at] === text[at]) at++;
  return `differs from the schema's shape at character ${at}: ${text.slice(Math.max(0, at - 60), at + 60)}`;
}

/**
 * The abilities a device's key holds, as the contract (section 5.7) lists them, in its order: what the tests of
 * device sign-in, key issuing and the device page expect, written once, apart from `defaultAbilities` in the code.
 */
export const CONTRACT_DEVICE_ABILITIES = [
  "products.read",
  "device.entitlements",
  "device.activate",
  "device.install",
  "device.usage",
  "support.report",
];

import { subscriptionAdmin } from "@shelf/api";
import { optionalInteger, optionalList, optionalString, requiredDate } from "../args";
import { forAccountCommand } from "../command";

export const passGrant = forAccountCommand({
  name: "pass:grant",
  summary: "Give an account an all-access pass until a date",
  synopsis: "--email E --until ISO [--grace-days N] [--tier T] [--features a,b] [--apps a,b]",
  details: [
    "--grace-days (default 7): how long the pass keeps working, with a warning, after it lapses without being",
    "cancelled. --apps: bundle ids or product slugs the pass opens (default *, every app). --tier defaults to",
    "all-access.",
  ],
  options: {
    email: { type: "string" },
    until: { type: "string" },
    "grace-days": { type: "string" },
    tier: { type: "string" },
    features: { type: "string" },
    apps: { type: "string" },
  },
  input: (values) => ({
    until: requiredDate(values, "until"),
    graceDays: optionalInteger(values, "grace-days"),
    tier: optionalString(values, "tier"),
    features: optionalList(values, "features"),
    apps: optionalList(values, "apps"),
  }),
  act: subscriptionAdmin.grantPass,
  describe: (pass, email) =>
    `Granted ${email} the ${pass.tier} pass ${pass.id} until ${pass.ends_at} (grace ${pass.grace_days} days), apps ${pass.allowed_apps.join(", ")}${pass.features.length ? `, features ${pass.features.join(", ")}` : ""}.`,
});

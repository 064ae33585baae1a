/**
 * The value sets of the schema's enumerated columns, as plain constants: the table definitions use them, and so
 * can zod schemas that must not load the database layer (pages, the command-line client).
 */
export const grantTypes = ["purchase", "grant", "bundle", "subscription", "trial"] as const;
export type GrantType = (typeof grantTypes)[number];

export const apiKeyKinds = ["created", "device"] as const;
export type ApiKeyKind = (typeof apiKeyKinds)[number];

export const releaseChannels = ["stable", "beta", "alpha", "dev"] as const;
export type ReleaseChannel = (typeof releaseChannels)[number];

export const subscriptionStatuses = ["active", "trialing", "past_due", "cancelled", "expired"] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

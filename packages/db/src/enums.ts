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

export const orderStatuses = ["pending", "paid", "refunded", "cancelled"] as const;
export type OrderStatus = (typeof orderStatuses)[number];

export const invoiceStatuses = ["draft", "open", "paid", "void", "uncollectible"] as const;
export type InvoiceStatus = (typeof invoiceStatuses)[number];

export const supportKinds = ["general", "app_report", "refund_request"] as const;
export type SupportKind = (typeof supportKinds)[number];

export const errorTypes = ["crash", "exception", "warning"] as const;
export type ErrorType = (typeof errorTypes)[number];

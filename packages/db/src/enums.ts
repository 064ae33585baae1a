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

/** Where a device sign-in stands: waiting for the person, decided, or its key handed to the device (single use). */
export const deviceSignInStatuses = ["pending", "approved", "denied", "issued"] as const;
export type DeviceSignInStatus = (typeof deviceSignInStatuses)[number];

/** How an OAuth client came to be known: dynamic registration, or a client ID metadata document it points to. */
export const oauthClientRegistrations = ["dynamic", "metadata_document"] as const;
export type OAuthClientRegistration = (typeof oauthClientRegistrations)[number];

/** What a design agent token may do on the design host (contract 5.12): each route names the role it needs. */
export const designRoles = ["collect", "read", "write", "review"] as const;
export type DesignRole = (typeof designRoles)[number];

/** A review's verdict on a submitted design document version (contract section 3, effect 3). */
export const designVerdicts = ["approved", "changes_requested", "rejected"] as const;
export type DesignVerdict = (typeof designVerdicts)[number];

/** Where a design document version stands: written, put up for review, or reviewed (its verdict). */
export const designVersionStatuses = ["draft", "submitted", ...designVerdicts] as const;
export type DesignVersionStatus = (typeof designVersionStatuses)[number];

/** The company's web apps a collect run may walk (contract, design host). */
export const collectApps = ["core", "accounts", "app", "asset", "lecture", "support", "design"] as const;
export type CollectApp = (typeof collectApps)[number];

export const collectViewports = ["desktop", "mobile"] as const;
export type CollectViewport = (typeof collectViewports)[number];

export const collectLangs = ["ko", "en"] as const;
export type CollectLang = (typeof collectLangs)[number];

/** Where a collect run stands: holding the lock (open), frozen (submitted), being replayed, done, or ended failed. */
export const collectRunStatuses = ["open", "submitted", "replaying", "replayed", "failed"] as const;
export type CollectRunStatus = (typeof collectRunStatuses)[number];

/** How the collector's visit to a page ended. */
export const captureOutcomes = ["ok", "failed", "redirected"] as const;
export type CaptureOutcome = (typeof captureOutcomes)[number];

export const collectAssetTypes = ["css", "js"] as const;
export type CollectAssetType = (typeof collectAssetTypes)[number];

/** The image types a capture may carry, told by their bytes. */
export const captureImageTypes = ["png", "jpeg", "webp"] as const;
export type CaptureImageType = (typeof captureImageTypes)[number];

/** The color scheme a page was captured in (a capture's `meta.mode`). */
export const colorModes = ["light", "dark"] as const;
export type ColorMode = (typeof colorModes)[number];

/**
 * Where a gallery screen or flow stands: shown now (current), history replaced by a newer run's (replaced), or
 * retired by a newer run that covered it and no longer found it (removed).
 */
export const galleryStatuses = ["current", "replaced", "removed"] as const;
export type GalleryStatus = (typeof galleryStatuses)[number];

/** The platforms the gallery's apps are on: the collector walks web apps only, for now. */
export const galleryPlatforms = ["web"] as const;
export type GalleryPlatform = (typeof galleryPlatforms)[number];

/** A flow the collector declared (`meta.flow`), or the order it walked an app's pages in one signed-in state. */
export const galleryFlowKinds = ["declared", "walk"] as const;
export type GalleryFlowKind = (typeof galleryFlowKinds)[number];

/** The gallery's taxonomy: terms from the captures' `meta`, and fonts and colors read from the run's CSS. */
export const galleryTermKinds = ["page_type", "pattern", "element", "component", "font", "color"] as const;
export type GalleryTermKind = (typeof galleryTermKinds)[number];

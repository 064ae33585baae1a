export { type AttemptLimiter, createAttemptLimiter } from "@shelf/server/attempt-limit";
export { createLogger, type LogEnv, type Logger, readLogEnv, safeError } from "@shelf/server/log";
export { createMailer, type Mail, type Mailer } from "@shelf/server/mail/mailer";
export { createMetrics, type Metrics } from "@shelf/server/metrics";
export { createRateLimiter, type RateLimiter } from "@shelf/server/rate-limit";
export {
  loadSigningKeyring,
  type Rotation,
  rawPublicKey,
  rotateSigningKey,
  type SigningKey,
  type SigningKeyring,
  type SigningKeySource,
  type SigningPurpose,
  signingPurposes,
  thumbprint,
} from "@shelf/server/signing/keyring";
export type { ArtifactStore, StoredObject } from "@shelf/server/storage/store";
export {
  type Ability,
  type AbilityRow,
  type AccountAbility,
  abilityTable,
  accountAbilities,
  allAbilities,
  defaultAbilities,
  describeAbility,
  isAbility,
} from "./abilities";
export { ACCOUNT_API_DOCUMENT, createAccountApiEdge, createAccountMcpOf } from "./account-api";
export type { BearerResolver, Caller, CallerType, Credential, DesignCaller } from "./auth/caller";
export { accountApiPolicy, type CredentialPolicy, resolveCredential } from "./auth/credential";
export { resolveDesignToken } from "./auth/design-token";
export * as designTokens from "./auth/design-token-admin";
export { createGuessLimits, type GuessLimits, type SignInLimits } from "./auth/guess-limits";
export * as keys from "./auth/key-issuing";
export { hashPassword, needsRehash, verifyPassword } from "./auth/password";
export {
  endWebSessions,
  sessionCaller,
  startWebSession,
  WEB_SESSION_MAX_AGE_SECONDS,
  type WebSessionAccount,
  webSessionAccount,
} from "./auth/web-session";
export { typeLabels } from "./catalog/delivery-data";
export * as policyAdmin from "./client-policy";
export * as orderAdmin from "./commerce/order-admin";
export {
  type AccountContext,
  type AccountServices,
  createContext,
  type DesignContext,
  type McpEndpoint,
} from "./context";
export { loadDataFolderSecret } from "./data-secret";
export {
  createArtifactStore,
  createDelivery,
  type Delivery,
  type DeliveryFiles,
  loadDeliveryFiles,
  storeReadiness,
} from "./delivery";
export { createDesignApiEdge, DESIGN_API_DOCUMENT, designRouter } from "./design-api";
export * as designDocuments from "./design-documents";
export { refreshGalleryCounts } from "./design-gallery/query/counts";
export { GALLERY_LOCK } from "./design-gallery/replay";
export * as gallerySearch from "./design-gallery/search";
export * as galleryMask from "./design-gallery/variant-mask";
export { type ApiEnv, readApiEnv, signingKeySource } from "./env";
export { DomainError, type DomainErrorCode, domainErrors, ValidationError } from "./errors";
export { type Housekeeping, type PrunedCounts, pruneExpired, pruneIfFree, scheduleHousekeeping } from "./housekeeping";
export { type AnswerLanguage, answerLanguages, preferredLanguage } from "./language";
export { startOutbox } from "./mail/outbox";
export { MCP_DEFAULT_SCOPES, MCP_PATH } from "./mcp/service";
export {
  type AuthorizationRequest,
  type AuthorizeOutcome,
  approveAuthorization,
  checkAuthorizationRequest,
  consentScopes,
  denyAuthorization,
} from "./oauth/authorize";
export { isNativeApp, isPrivateUseRedirect, type OAuthClient } from "./oauth/clients";
export { authorizationServerMetadata, protectedResourceMetadata } from "./oauth/metadata";
export { createMetadataDocuments } from "./oauth/metadata-documents";
export type { OAuthSettings } from "./oauth/settings";
export { type AppRouter, appRouter, createCaller } from "./root";
export * as accountDeletion from "./routers/accounts/deletion";
export * as accountEmail from "./routers/accounts/email";
export * as recovery from "./routers/accounts/recovery";
export * as accounts from "./routers/accounts/service";
export { checkCredentials, type SignInOutcome } from "./routers/accounts/sign-in";
export * as designCollectAdmin from "./routers/design-collect/admin-service";
export { scheduleReplayResume } from "./routers/design-collect/resume";
export * as designCollect from "./routers/design-collect/service";
export * as designDocs from "./routers/design-docs/service";
export * as gallerySchemas from "./routers/design-gallery/schemas";
export * as designGallery from "./routers/design-gallery/service";
export { DESIGN_MCP_PATH } from "./routers/design-mcp/router";
export type { DeviceSignInRequestData } from "./routers/device-sign-in/schemas";
export * as deviceAdmin from "./routers/devices/admin-service";
export * as entitlements from "./routers/entitlements/service";
/** The license check's state statement, which `bench/license-sql.ts` measures in the form the API runs. */
export { LICENSE_STATE_SQL } from "./routers/licensing/service";
export { invoicePdf } from "./routers/orders/invoice-pdf";
export * as productAdmin from "./routers/products/admin-service";
export * as publishing from "./routers/products/publish";
export * as lineageAdmin from "./routers/public/admin-service";
export { DEMO_DISCLOSURE, loadDisclosure } from "./routers/public/disclosure";
export * as reportAdmin from "./routers/reports/crash-reports";
export { listSecurityEvents } from "./routers/security-log/service";
export * as subscriptionAdmin from "./routers/subscriptions/admin-service";
export type { PublicDisclosureData } from "./schemas/disclosure";
export { recordSecurityEvent, SECURITY_LOG_KEEP_DAYS, type SecurityEvent } from "./security-log";

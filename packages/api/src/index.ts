export { type Ability, type AccountAbility, accountAbilities, allAbilities, defaultAbilities } from "./abilities";
export { type Caller, type Credential, resolveCredential } from "./auth/caller";
export { type Context, contextForCaller, createContext } from "./context";
export { type ApiEnv, readApiEnv } from "./env";
export { DomainError, type DomainErrorCode, domainErrors, ValidationError } from "./errors";
export { createRateLimiter, type RateLimiter } from "./rate-limit";
export { type AppRouter, appRouter, createCaller } from "./root";
export * as keys from "./routers/keys/service";

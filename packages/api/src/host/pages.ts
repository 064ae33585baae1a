/** What an app's pages and route handlers share (Next bundles these): nothing here starts or opens anything. */
export { API_REFERENCE_PATH, apiReferencePage, apiReferenceScript } from "@shelf/server/host/api-reference";
export { CLIENT_ADDRESS_HEADER, NONCE_HEADER } from "@shelf/server/host/headers";
export { setPageDatabaseUnavailable, setPageStatus } from "@shelf/server/host/page-status";
export { runtimeSlot } from "@shelf/server/host/runtime-slot";
export { isLocale, LOCALE_COOKIE, type Locale, locales, resolveLocale } from "./locale";

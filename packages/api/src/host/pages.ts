/** What an app's pages and route handlers share (Next bundles these): nothing here starts or opens anything. */
export { API_REFERENCE_PATH, apiReferencePage, apiReferenceScript } from "./api-reference";
export { CLIENT_ADDRESS_HEADER, NONCE_HEADER } from "./headers";
export { isLocale, LOCALE_COOKIE, type Locale, locales, resolveLocale } from "./locale";
export { setPageDatabaseUnavailable, setPageStatus } from "./page-status";
export { runtimeSlot } from "./runtime-slot";

/**
 * Marks the document once a component's key handlers are attached (`<html data-keys="ready">`): until the page has
 * hydrated, a key does nothing (the links still work). Browser tests wait for it before they press a key.
 */
export function markKeysReady(): void {
  document.documentElement.dataset.keys = "ready";
}

"use client";

import { useEffect } from "react";
import { markKeysReady } from "./keys-ready";

/**
 * Keys that follow the page's own links: each key opens the link with that `data-key` (the previous and next step
 * of a flow by the arrow keys), so the page works the same without JavaScript, by its links.
 */
export function LinkKeys() {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if ((event.target as HTMLElement).closest("input, textarea, select, [contenteditable], [role=tab]")) return;
      const link = document.querySelector<HTMLAnchorElement>(`a[data-key="${event.key}"]`);
      if (!link) return;
      event.preventDefault();
      link.click();
    };
    window.addEventListener("keydown", onKey);
    markKeysReady();
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return null;
}

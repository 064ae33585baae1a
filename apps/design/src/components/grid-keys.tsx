"use client";

import { useEffect } from "react";
import { markKeysReady } from "./keys-ready";

/**
 * Arrow keys move the focus through a grid of links (`[data-grid-item]` inside the element with `id`), row by row as
 * the grid is laid out at this width; Home and End go to the first and last. Enter opens a link, as links do.
 */
export function GridKeys({ id }: { id: string }) {
  useEffect(() => {
    const grid = document.getElementById(id);
    if (!grid) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const items = [...grid.querySelectorAll<HTMLElement>("[data-grid-item]")];
      const index = items.indexOf(document.activeElement as HTMLElement);
      if (index < 0) return;
      const top = items[0]?.getBoundingClientRect().top ?? 0;
      const columns = Math.max(1, items.filter((item) => item.getBoundingClientRect().top === top).length);
      const target = {
        ArrowRight: index + 1,
        ArrowLeft: index - 1,
        ArrowDown: index + columns,
        ArrowUp: index - columns,
        Home: 0,
        End: items.length - 1,
      }[event.key];
      if (target === undefined) return;
      event.preventDefault();
      items[Math.min(items.length - 1, Math.max(0, target))]?.focus();
    };
    grid.addEventListener("keydown", onKey);
    markKeysReady();
    return () => grid.removeEventListener("keydown", onKey);
  }, [id]);
  return null;
}

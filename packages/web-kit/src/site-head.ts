import type { Metadata, Viewport } from "next";

/**
 * A root layout's metadata: the site's name is the title of a page that names none and follows every page's own
 * title, so that a tab always says which of the two sites it shows.
 */
export function siteMetadata(name: string, description: string): Metadata {
  return { title: { default: name, template: `%s · ${name}` }, description };
}

/** Both sites lay out for the device's width from the first paint; neither asks for a zoom. */
export const siteViewport: Viewport = { width: "device-width", initialScale: 1 };

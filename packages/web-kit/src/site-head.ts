import type { Metadata, Viewport } from "next";
import { getTranslations } from "next-intl/server";

/**
 * A root layout's metadata: the site's name is the title of a page that names none and follows every page's own
 * title, so that a tab always says which of the two sites it shows.
 */
export function siteMetadata(name: string, description: string): Metadata {
  return { title: { default: name, template: `%s · ${name}` }, description };
}

/** Both sites lay out for the device's width from the first paint; neither asks for a zoom. */
export const siteViewport: Viewport = { width: "device-width", initialScale: 1 };

/**
 * A page's `generateMetadata`: its title from the messages, in the request's language (the root layout's template
 * adds the site's name after it).
 */
export function titleFrom(namespace: string, key: string): () => Promise<Metadata> {
  return async () => ({ title: (await getTranslations(namespace))(key) });
}

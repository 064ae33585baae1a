import type { CollectApp } from "@shelf/db/enums";

/** Which walk visits a route: signed out, signed in, or none (a route that only redirects or needs a request). */
export type RouteAuth = "signed-out" | "signed-in" | "skip";

export type RouteSpec = {
  /** The route pattern, as the app's router writes it (`/account/products/[product]`): the capture's `page`. */
  pattern: string;
  /** The address to visit; absent for a dynamic route, visited when a link to it is found. */
  path?: string;
  auth: RouteAuth;
  page_type?: string;
  flow?: { name: string; step: number };
};

export type AppSpec = {
  app: CollectApp;
  routes: RouteSpec[];
  /** Where a person signs in (the signed-in walk starts there); absent when the app has no sign-in of its own. */
  signIn?: string;
};

/**
 * The accounts app (`apps/web`): its pages (`apps/web/app/**\/page.tsx`) and the API reference. `/settings` only
 * redirects to the API keys and `/oauth/authorize` needs an OAuth request: neither is a screen of its own.
 */
export const ACCOUNTS: AppSpec = {
  app: "accounts",
  signIn: "/sign-in",
  routes: [
    { pattern: "/", path: "/", auth: "signed-out", page_type: "home" },
    {
      pattern: "/sign-in",
      path: "/sign-in",
      auth: "signed-out",
      page_type: "sign-in",
      flow: { name: "sign-in", step: 1 },
    },
    {
      pattern: "/sign-up",
      path: "/sign-up",
      auth: "signed-out",
      page_type: "sign-up",
      flow: { name: "sign-up", step: 1 },
    },
    { pattern: "/docs/api", path: "/docs/api", auth: "signed-out", page_type: "api-reference" },
    { pattern: "/account", path: "/account", auth: "signed-in", page_type: "list", flow: { name: "sign-in", step: 2 } },
    { pattern: "/account/products/[product]", auth: "signed-in", page_type: "detail" },
    { pattern: "/account/devices", path: "/account/devices", auth: "signed-in", page_type: "list" },
    { pattern: "/device", path: "/device", auth: "signed-in", page_type: "form" },
    { pattern: "/settings/api-keys", path: "/settings/api-keys", auth: "signed-in", page_type: "settings" },
    { pattern: "/settings/connected-apps", path: "/settings/connected-apps", auth: "signed-in", page_type: "settings" },
    { pattern: "/settings/security", path: "/settings/security", auth: "signed-in", page_type: "settings" },
    { pattern: "/settings", auth: "skip" },
    { pattern: "/oauth/authorize", auth: "skip" },
  ],
};

/** The design app (`apps/design`): the gallery's front page and its API reference, without a sign-in. */
export const DESIGN: AppSpec = {
  app: "design",
  routes: [
    { pattern: "/", path: "/", auth: "signed-out", page_type: "home" },
    { pattern: "/docs/api", path: "/docs/api", auth: "signed-out", page_type: "api-reference" },
  ],
};

export const APP_SPECS: Partial<Record<CollectApp, AppSpec>> = { accounts: ACCOUNTS, design: DESIGN };

/** Addresses that are no page: the APIs, next-auth's and Next's own routes, files. */
const NOT_PAGES = [
  /^\/api(\/|$)/,
  /^\/auth(\/|$)/,
  /^\/_next\//,
  /^\/\.well-known\//,
  /^\/mcp(\/|$)/,
  /\.[a-z0-9]{1,5}$/i,
];

/** The route a path belongs to: a declared pattern (`[param]` matches one segment), or null. */
export function routeOf(spec: AppSpec, pathname: string): RouteSpec | null {
  const segments = pathname.split("/").filter(Boolean);
  for (const route of spec.routes) {
    const pattern = route.pattern.split("/").filter(Boolean);
    if (pattern.length !== segments.length) continue;
    if (pattern.every((part, index) => /^\[[^\]]+\]$/.test(part) || part === segments[index])) return route;
  }
  return null;
}

/** Whether a path may be a page worth visiting at all. */
export function isPagePath(pathname: string): boolean {
  return !NOT_PAGES.some((pattern) => pattern.test(pathname));
}

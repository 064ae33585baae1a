import type { AnyProcedure } from "@trpc/server";
import { appRouter } from "../root";
import type { Meta } from "../trpc";

export type RestRoute = {
  /** tRPC path of the procedure, e.g. `products.detail`. */
  procedure: string;
  type: "query" | "mutation";
  method: string;
  /** Path below /api with `{param}` segments, as in the contract and the OpenAPI document. */
  path: string;
  /** `json`: answered by trpc-to-openapi. `plain`: answered by the REST dispatcher with `contentType`. */
  kind: "json" | "plain";
  meta: Meta;
  pattern: RegExp;
  params: string[];
};

function compile(path: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = path
    .split("/")
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      params.push(param[1] as string);
      return "([^/]+)";
    })
    .join("/");
  return { pattern: new RegExp(`^${source}$`), params };
}

/** Every REST endpoint, read from the routers' meta: the dispatcher, the OpenAPI document and the tests use it. */
export function collectRestRoutes(): RestRoute[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
  const routes: RestRoute[] = [];
  for (const [name, procedure] of Object.entries(procedures)) {
    const meta = (procedure._def.meta ?? {}) as Meta;
    const type = procedure._def.type as "query" | "mutation";
    const http = meta.openapi ?? meta.rest;
    if (!http) continue;
    routes.push({
      procedure: name,
      type,
      method: http.method,
      path: http.path,
      kind: meta.openapi ? "json" : "plain",
      meta,
      ...compile(http.path),
    });
  }
  return routes;
}

export const restRoutes = collectRestRoutes();

export function matchRoute(method: string, path: string): { route: RestRoute; params: Record<string, string> } | null {
  for (const route of restRoutes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    route.params.forEach((name, index) => {
      params[name] = decodeURIComponent(match[index + 1] as string);
    });
    return { route, params };
  }
  return null;
}

export function allowedMethods(path: string): string[] {
  return restRoutes.filter((route) => route.pattern.test(path)).map((route) => route.method);
}

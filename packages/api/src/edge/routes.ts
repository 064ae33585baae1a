import type { AnyProcedure, AnyRouter } from "@trpc/server";
import type { HttpMethod, Meta } from "../trpc";

export type RouteParam = {
  name: string;
  /** A `{name+}` segment: the rest of the path, slashes included. */
  rest: boolean;
};

export type EdgeRoute = {
  /** tRPC path of the procedure, e.g. `products.detail`. */
  procedure: string;
  type: "query" | "mutation";
  method: HttpMethod;
  /** The path as declared, with `{param}` (and a last `{param+}`) segments. */
  path: string;
  /** The path as the OpenAPI document writes it: `{param}` for every parameter. */
  documentPath: string;
  /** `json`: the output is the JSON body. `plain`: the output is a PlainOutput the edge turns into HTTP. */
  kind: "json" | "plain";
  meta: Meta;
  /** The procedure's input schemas (merged by tRPC) and output schema. */
  inputs: unknown[];
  output: unknown;
  params: RouteParam[];
  pattern: RegExp;
};

const PARAM_SEGMENT = /^\{(\w+)(\+?)\}$/;

function compile(path: string): { pattern: RegExp; params: RouteParam[] } {
  const params: RouteParam[] = [];
  const segments = path.split("/");
  const source = segments
    .map((segment, index) => {
      const param = PARAM_SEGMENT.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const rest = param[2] === "+";
      if (rest && index !== segments.length - 1) throw new Error(`${path}: only the last segment may be {name+}`);
      params.push({ name: param[1] as string, rest });
      return rest ? "(.+)" : "([^/]+)";
    })
    .join("/");
  return { pattern: new RegExp(`^${source}$`), params };
}

/** Every REST endpoint of a router, read from its procedures' meta. */
export function collectRoutes(router: AnyRouter): EdgeRoute[] {
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  const routes: EdgeRoute[] = [];
  for (const [name, procedure] of Object.entries(procedures)) {
    const def = procedure._def as { meta?: Meta; inputs?: unknown[]; output?: unknown };
    const meta = def.meta ?? {};
    const http = meta.openapi ?? meta.plain;
    if (!http) continue;
    if (meta.openapi && meta.plain) throw new Error(`${name}: declare either openapi or plain, not both`);
    if (meta.ability === "signed-in") throw new Error(`${name}: a signed-in procedure serves the pages, never REST`);
    routes.push({
      procedure: name,
      type: procedure._def.type as "query" | "mutation",
      method: http.method as HttpMethod,
      path: http.path,
      documentPath: http.path.replace(/\{(\w+)\+\}/g, "{$1}"),
      kind: meta.openapi ? "json" : "plain",
      meta,
      inputs: def.inputs ?? [],
      output: def.output,
      ...compile(http.path),
    });
  }
  return routes;
}

export type RouteMatch = { route: EdgeRoute; params: Record<string, string> };

/** The routes of one edge, matched against decoded-per-segment paths. */
export class RouteTable {
  readonly routes: readonly EdgeRoute[];
  /**
   * The match of each path written without parameters, by method and path, as the scan below finds it for that very
   * path (so an earlier route with parameters that also matches it still wins): most requests are answered by one
   * lookup instead of a regular expression per route.
   */
  private readonly exact = new Map<string, RouteMatch | null>();

  constructor(routes: EdgeRoute[]) {
    this.routes = routes;
    for (const route of routes) {
      if (route.params.length === 0)
        this.exact.set(`${route.method} ${route.path}`, this.scan(route.method, route.path));
    }
  }

  /**
   * The route for a method and raw (still percent-encoded) path, with its parameters decoded segment by segment;
   * the caller checked the encoding is well formed.
   */
  match(method: string, path: string): RouteMatch | null {
    const known = this.exact.get(`${method} ${path}`);
    // A copy: a caller may add to its parameters.
    return known === undefined ? this.scan(method, path) : known && { route: known.route, params: { ...known.params } };
  }

  private scan(method: string, path: string): RouteMatch | null {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.params.forEach(({ name, rest }, index) => {
        const raw = match[index + 1] as string;
        params[name] = rest ? raw.split("/").map(decodeURIComponent).join("/") : decodeURIComponent(raw);
      });
      return { route, params };
    }
    return null;
  }

  /** The methods some route answers on this path (HEAD with GET), for 405 and OPTIONS. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (!route.pattern.test(path)) continue;
      methods.add(route.method);
      if (route.method === "GET") methods.add("HEAD");
    }
    if (methods.size > 0) methods.add("OPTIONS");
    return [...methods];
  }
}

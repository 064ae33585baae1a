import type { Database } from "@shelf/db";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What the edge reads of a route's declaration besides its method and path; a host's routes declare more. */
export type EdgeRouteMeta = {
  /**
   * A limit of the route's own per client address, besides the host's: `name` keeps its counts apart (in Redis too,
   * so every instance shares them), `perMinute` is how many requests a minute one address may make. `instead`: the
   * route's requests count against this limit only, not the host's (a page that loads dozens of images at once,
   * which would use up a minute of the host's limit).
   */
  addressLimit?: { name: string; perMinute: number; instead?: boolean };
  /**
   * Whose budget of the host's rate limit a request uses, when not its credential's (or, without one, its client
   * address's): `false`, nobody's (static answers, alike for everyone and cacheable, which hosted services fetch for
   * all their users from a few addresses); a function, the subject its input names (read from the
   * body, before the procedure runs), or null for the client address's.
   */
  limitedBy?: false | ((db: Database, input: Record<string, unknown>) => Promise<string | null>);
  /**
   * The route also takes `multipart/form-data`: text fields as the JSON body's fields (typed as the input says), and
   * these file fields, each up to `maxBytes`, as UploadedFile values.
   */
  multipart?: { files: Record<string, { maxBytes: number }> };
  /**
   * The route also takes `application/x-www-form-urlencoded` bodies, as form-posting clients send them: each
   * field typed as the JSON body's property says, a field given twice refused. `only`: the route takes
   * nothing else (an endpoint whose standard defines only forms).
   */
  formBody?: boolean | "only";
  /**
   * The route's first path segment is shared with pages (a page answers the same path's GET): the edge owns this
   * exact path only, not everything under its first segment.
   */
  exactPath?: boolean;
  /**
   * The route reads and writes nothing in the database (a signed link is its own permission): it is served while
   * the database is down, when routes that need it fail fast with 503.
   */
  noDatabase?: boolean;
  /** HTTP status of success, when it is not 200. */
  successStatus?: 201 | 202 | 204;
};

export type RouteParam = {
  name: string;
  /** A `{name+}` segment: the rest of the path, slashes included. */
  rest: boolean;
};

export type EdgeRoute<Meta extends EdgeRouteMeta = EdgeRouteMeta> = {
  /** The name of the procedure the route calls (its path in the host's router, e.g. `products.detail`). */
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
  /** The procedure's input schemas (merged in order) and output schema, as the host's router declares them. */
  inputs: unknown[];
  output: unknown;
  params: RouteParam[];
  pattern: RegExp;
};

const PARAM_SEGMENT = /^\{(\w+)(\+?)\}$/;

/** A declared path as a pattern, and its parameters in order. */
export function compileRoutePath(path: string): { pattern: RegExp; params: RouteParam[] } {
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

export type RouteMatch<Meta extends EdgeRouteMeta = EdgeRouteMeta> = {
  route: EdgeRoute<Meta>;
  params: Record<string, string>;
};

/** The routes of one edge, matched against decoded-per-segment paths. */
export class RouteTable<Meta extends EdgeRouteMeta = EdgeRouteMeta> {
  readonly routes: readonly EdgeRoute<Meta>[];
  /**
   * The match of each path written without parameters, by method and path, as the scan below finds it for that very
   * path (so an earlier route with parameters that also matches it still wins): most requests are answered by one
   * lookup instead of a regular expression per route.
   */
  private readonly exact = new Map<string, RouteMatch<Meta> | null>();

  constructor(routes: readonly EdgeRoute<Meta>[]) {
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
  match(method: string, path: string): RouteMatch<Meta> | null {
    const known = this.exact.get(`${method} ${path}`);
    // A copy: a caller may add to its parameters.
    return known === undefined ? this.scan(method, path) : known && { route: known.route, params: { ...known.params } };
  }

  private scan(method: string, path: string): RouteMatch<Meta> | null {
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

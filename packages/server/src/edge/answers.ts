import { JsonText } from "../json-text";
import type { PlainOutput } from "../plain";
import { plainResult } from "./file-answer";
import type { EdgeRequest } from "./request";
import { type EdgeResult, errorResult, jsonResult, type ResponseState } from "./results";
import type { EdgeRoute, RouteTable } from "./routes";

/** The OpenAPI document, written out once when the edge was made; public, and cached a few minutes. */
export function documentAnswer(documentText: string): EdgeResult {
  return {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
    body: documentText,
  };
}

/** A path no route of this method serves: 404, or the methods it has (405, or 204 to OPTIONS). */
export function unrouted(routes: RouteTable, path: string, request: EdgeRequest): EdgeResult {
  const allowed = routes.allowedMethods(path);
  if (allowed.length === 0) return errorResult("not_found", "No such API endpoint.");
  if (request.method === "OPTIONS") return { status: 204, headers: { allow: allowed.join(", ") }, body: null };
  return errorResult("method_not_allowed", undefined, { allow: allowed.join(", ") });
}

/** A procedure's output as the route's answer: JSON (already serialised, or not), or a plain output as HTTP. */
export function routeAnswer(
  route: EdgeRoute,
  output: unknown,
  context: { res: ResponseState },
  request: EdgeRequest,
): EdgeResult {
  const headers = { ...context.res.headers };
  const status = context.res.status ?? route.meta.successStatus ?? 200;
  if (route.kind !== "json") return plainResult(output as PlainOutput, status, headers, request);
  if (status === 204 || output === undefined) return { status, headers, body: null };
  if (output instanceof JsonText) {
    return { status, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: output.text };
  }
  return jsonResult(status, output, headers);
}

/** Whether a path is one of these routes', or under the first segment of one that is not an exact path. */
export function ownsPath(routes: readonly EdgeRoute[]): (path: string) => boolean {
  const prefixes = [
    ...new Set(routes.filter((route) => !route.meta.exactPath).map((route) => `/${route.path.split("/")[1]}`)),
  ];
  const underPrefixes = prefixes.map((prefix) => `${prefix}/`);
  const exactPaths = new Set(routes.filter((route) => route.meta.exactPath).map((route) => route.path));
  return (path) =>
    exactPaths.has(path) ||
    prefixes.some((prefix, index) => path === prefix || path.startsWith(underPrefixes[index] as string));
}

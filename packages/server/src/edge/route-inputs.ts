import { type JsonSchema, nulErrors, type OpenApiParameter, type ParamSpec, paramSpecs, readParameters } from "./input";
import { type EdgeResult, jsonResult, validationBody } from "./results";
import type { EdgeRoute } from "./routes";

/** What the edge reads of an OpenAPI document: its operations' parameters and request bodies, by path and method. */
export type OpenApiPaths = { paths?: Record<string, unknown> };

/** How a route's inputs are read: its path and query parameters' types, and its form body's fields' types. */
export type RouteInputs = { params: ParamSpec[]; formProperties: Record<string, JsonSchema> };

type Operation = {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
};

/** Each route's inputs, read once from the OpenAPI document the routes are described in. */
export function routeInputs(document: OpenApiPaths, routes: readonly EdgeRoute[]): Map<EdgeRoute, RouteInputs> {
  const inputs = new Map<EdgeRoute, RouteInputs>();
  for (const route of routes) {
    const item = document.paths?.[route.documentPath] as Record<string, Operation> | undefined;
    const operation = item?.[route.method.toLowerCase()];
    const formType = route.meta.multipart
      ? "multipart/form-data"
      : route.meta.formBody
        ? "application/x-www-form-urlencoded"
        : undefined;
    inputs.set(route, {
      params: paramSpecs(operation?.parameters ?? []),
      formProperties: (formType && operation?.requestBody?.content?.[formType]?.schema?.properties) || {},
    });
  }
  return inputs;
}

/**
 * A route's input: its path's and query's parameters, typed as `inputs` says, over its body's fields; or the 422
 * that refuses it, for a parameter that does not read, NUL anywhere, or a body that is not a JSON object.
 */
export function readInput(
  inputs: RouteInputs | undefined,
  pathParams: Record<string, string>,
  query: URLSearchParams,
  body: unknown,
): { ok: true; input: Record<string, unknown> } | { ok: false; result: EdgeResult } {
  const { values, errors } = readParameters(inputs?.params ?? [], pathParams, query);
  nulErrors(body, "", errors);
  if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) {
    errors.body = ["must be a JSON object"];
  }
  if (Object.keys(errors).length > 0) return { ok: false, result: jsonResult(422, validationBody(errors)) };
  return { ok: true, input: { ...(body as object | undefined), ...values } };
}

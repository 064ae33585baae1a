import { type JsonSchema, type OpenApiParameter, type ParamSpec, paramSpecs } from "./input";
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

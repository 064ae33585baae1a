import { generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "../root";
import type { Meta } from "../trpc";
import { type RestRoute, restRoutes } from "./routes";

type Operation = {
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
  parameters?: { in: string; name: string }[];
  [key: string]: unknown;
};
type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

const errorRef = { $ref: "#/components/schemas/ErrorBody" };
const validationRef = { $ref: "#/components/schemas/ValidationErrorBody" };

function errorResponse(description: string, codes: string[]) {
  return {
    description: `${description}${codes.length ? ` (error: ${codes.map((code) => `\`${code}\``).join(", ")})` : ""}`,
    content: { "application/json": { schema: errorRef } },
  };
}

/** The error statuses an endpoint can answer, derived from the same meta the middleware enforces. */
export function documentedErrors(
  route: Pick<RestRoute, "meta" | "params">,
  hasInput: boolean,
): Record<string, unknown> {
  const meta: Meta = route.meta;
  const responses: Record<string, unknown> = {};
  if (meta.ability !== "public") {
    responses["401"] = errorResponse("Missing, unknown, revoked or expired API key", [
      "missing_api_key",
      "invalid_api_key",
    ]);
  }
  const forbidden: string[] = [];
  if (meta.ability && meta.ability !== "public" && meta.ability !== "any-key")
    forbidden.push("missing_api_key_ability");
  if (meta.product) forbidden.push("product_api_key_scope_required");
  if (meta.product === "entitled") forbidden.push("product_entitlement_required");
  if (forbidden.length) responses["403"] = errorResponse("Not allowed", forbidden);
  responses["404"] = errorResponse("Not found", ["not_found"]);
  if (hasInput) {
    responses["422"] = {
      description: "Validation failed",
      content: { "application/json": { schema: validationRef } },
    };
  }
  responses["429"] = {
    ...errorResponse("Rate limit exceeded", ["rate_limited"]),
    headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait" } },
  };
  return responses;
}

const rateLimitHeaders = {
  "X-RateLimit-Limit": { schema: { type: "integer" }, description: "Requests allowed per minute" },
  "X-RateLimit-Remaining": { schema: { type: "integer" }, description: "Requests left in this minute" },
};

function buildDocument(baseUrl: string): OpenApiDocument {
  const plainPaths: Record<string, Record<string, Operation>> = {};
  for (const route of restRoutes.filter((r) => r.kind === "plain")) {
    const rest = route.meta.rest;
    if (!rest) continue;
    const operations = plainPaths[route.path] ?? {};
    plainPaths[route.path] = operations;
    operations[route.method.toLowerCase()] = {
      operationId: route.procedure.replace(".", "-"),
      summary: rest.summary,
      tags: rest.tags,
      parameters: route.params.map((name) => ({ in: "path", name, required: true, schema: { type: "string" } })),
      responses: {
        "200": {
          description: "Successful response",
          content: { [rest.contentType.split(";")[0] as string]: { schema: { type: "string" } } },
        },
      },
    };
  }
  const document = generateOpenApiDocument(appRouter, {
    title: "Shelf API",
    version: "1",
    description:
      "The account API: library, products, releases and update checks. Send an account API key as `Authorization: Bearer <key>`.",
    baseUrl: `${baseUrl}/api`,
    securitySchemes: { account_api_key: { type: "http", scheme: "bearer", description: "An account API key" } },
    paths: plainPaths as never,
  });

  for (const route of restRoutes) {
    const operation = (document.paths?.[route.path] as Record<string, Operation> | undefined)?.[
      route.method.toLowerCase()
    ];
    if (!operation) continue;
    const status = String(route.meta.successStatus ?? 200);
    const success = (operation.responses?.["200"] ?? { description: "Successful response" }) as Record<string, unknown>;
    const successResponse = status === "204" ? { description: "No content" } : success;
    const hasInput =
      (operation.parameters?.some((p) => p.in !== "path") ?? false) ||
      "requestBody" in operation ||
      route.params.length > 0;
    operation.responses = {
      [status]: { ...successResponse, headers: rateLimitHeaders },
      ...documentedErrors(route, hasInput),
    };
    operation.security = route.meta.ability === "public" ? [] : [{ account_api_key: [] }];
    operation["x-ability"] = route.meta.ability ?? null;
    operation["x-product-access"] = route.meta.product ?? null;
  }

  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  schemas.ErrorBody = {
    type: "object",
    required: ["message"],
    properties: { message: { type: "string" }, error: { type: "string", description: "Machine-readable code" } },
  };
  schemas.ValidationErrorBody = {
    type: "object",
    required: ["message", "errors"],
    properties: {
      message: { type: "string" },
      errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
    },
  };
  const securitySchemes = (document.components?.securitySchemes ?? {}) as Record<string, unknown>;
  delete securitySchemes.Authorization;
  return document;
}

const documents = new Map<string, OpenApiDocument>();

/** The OpenAPI 3.1 document of every REST path served, built once per base URL. */
export function getOpenApiDocument(baseUrl: string): OpenApiDocument {
  let document = documents.get(baseUrl);
  if (!document) {
    document = buildDocument(baseUrl);
    documents.set(baseUrl, document);
  }
  return document;
}

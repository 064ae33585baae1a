import { jsonTextSchema } from "@shelf/server/json-text";
import { type PlainKind, plainKinds } from "@shelf/server/plain";
import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument } from "trpc-to-openapi";
import { z } from "zod";
import { type DomainErrorCode, domainErrors } from "../errors";
import type { EdgeRoute } from "./routes";

type Operation = {
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
  parameters?: { in: string; name: string; [key: string]: unknown }[];
  requestBody?: unknown;
  [key: string]: unknown;
};
export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

export type DocumentInfo = { title: string; description: string; version: string };

const errorRef = { $ref: "#/components/schemas/ErrorBody" };
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const rpcErrorRef = { $ref: "#/components/schemas/JsonRpcErrorBody" };

function errorResponse(
  description: string,
  codes: readonly string[],
  headers: Record<string, unknown> = {},
  schema: unknown = errorRef,
) {
  return {
    description: `${description}${codes.length ? ` (error: ${codes.map((code) => `\`${code}\``).join(", ")})` : ""}`,
    headers: { "X-Request-Id": header("RequestId"), ...headers },
    content: { "application/json": { schema } },
  };
}

/** The error answers of an endpoint, derived from the same meta the middleware enforces, and its own `errors`. */
export function documentedErrors(route: EdgeRoute, hasInput: boolean, kinds: PlainKind[]): Record<string, unknown> {
  const { meta } = route;
  const codes = new Map<number, string[]>();
  const add = (code: DomainErrorCode) => {
    const status = domainErrors[code].status;
    const list = codes.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    codes.set(status, list);
  };
  add("malformed_request");
  if (meta.ability !== "public") {
    add("missing_api_key");
    add("invalid_api_key");
  }
  if (meta.ability && meta.ability !== "public" && meta.ability !== "any-key") add("missing_api_key_ability");
  if (meta.product || meta.keyScope) add("product_api_key_scope_required");
  if (meta.product === "entitled") add("product_entitlement_required");
  if (route.params.length > 0) add("not_found");
  if (BODY_METHODS.has(route.method)) {
    add("payload_too_large");
    // The authorization server answers a body in the wrong form as invalid_request (400), as OAuth does.
    if (!meta.oauth) add("unsupported_media_type");
  }
  if (kinds.includes("file")) add("range_not_satisfiable");
  for (const code of meta.errors ?? []) add(code);
  if (meta.limitedBy !== false) add("rate_limited");
  // What the server in front answers for any path before the edge sees a request (Node's own limits).
  add("request_timeout");
  add("header_fields_too_large");
  add("internal_error");
  // The authorization server answers an invalid input as OAuth does: 400 with its code (documented among the 400s).
  if (meta.oauth) add(meta.oauth.invalidInput);

  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...codes.entries()].sort(([a], [b]) => a - b)) {
    const headers =
      status === 429
        ? { "Retry-After": header("RetryAfter") }
        : status === 416
          ? { "Content-Range": header("UnsatisfiedRange") }
          : meta.mcp && (status === 401 || status === 403)
            ? { "WWW-Authenticate": header("BearerChallenge") }
            : undefined;
    // An MCP endpoint answers in JSON-RPC, except 401 and 403 (the contract's body beside the Bearer challenge), and
    // what Node answers before the edge sees the request (408, 431).
    const schema = meta.mcp && ![401, 403, 408, 431].includes(status) ? rpcErrorRef : errorRef;
    responses[String(status)] = errorResponse(statusDescriptions[status] ?? "Error", list, headers, schema);
  }
  if (hasInput && meta.mcp) {
    responses["422"] = {
      description: "Not one JSON-RPC message, or nested deeper than 64 levels (JSON-RPC -32600)",
      content: { "application/json": { schema: rpcErrorRef } },
    };
  } else if (hasInput && !meta.oauth) {
    responses["422"] = {
      description: "Validation failed: the fields and what is wrong with each",
      content: { "application/json": { schema: { $ref: "#/components/schemas/ValidationErrorBody" } } },
    };
  }
  responses["405"] = { $ref: "#/components/responses/MethodNotAllowed" };
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

const statusDescriptions: Record<number, string> = {
  400: "Malformed request",
  401: "Missing, unknown, revoked or expired API key",
  403: "Not allowed",
  404: "Not found",
  408: "The request did not arrive in time",
  409: "Conflict",
  413: "Request body too large",
  415: "Request body is not JSON",
  416: "No requested range lies within the file",
  431: "The request's target or headers are too large",
  429: "Rate limit exceeded",
  500: "Internal error (logged, never detailed)",
};

/**
 * A route trpc-to-openapi cannot describe (a plain route, or one whose output is JsonText), for zod-openapi: its
 * input fields as path and query parameters (or a JSON body), and the schema its success answer has.
 */
function manualOperation(route: EdgeRoute) {
  const shape: Record<string, z.ZodType> = {};
  for (const input of route.inputs) if (input instanceof z.ZodObject) Object.assign(shape, input.shape);
  const names = new Set(route.params.map((param) => param.name));
  const pick = (inPath: boolean) =>
    z.object(Object.fromEntries(Object.entries(shape).filter(([name]) => names.has(name) === inPath)));
  const http = route.meta.openapi ?? route.meta.plain;
  const documented = jsonTextSchema(route.output);
  return {
    operationId: route.procedure.replace(/\./g, "-"),
    summary: http?.summary,
    description: http?.description,
    tags: http?.tags,
    requestParams: BODY_METHODS.has(route.method) ? { path: pick(true) } : { path: pick(true), query: pick(false) },
    ...(BODY_METHODS.has(route.method)
      ? { requestBody: { content: { "application/json": { schema: pick(false) } } } }
      : {}),
    responses: {
      "200": documented
        ? { description: "Successful response", content: { "application/json": { schema: documented } } }
        : { description: "Successful response" },
    },
  };
}

function successResponses(route: EdgeRoute, operation: Operation, kinds: PlainKind[]): Record<string, unknown> {
  const status = String(route.meta.successStatus ?? 200);
  const rateLimit = {
    // Static answers count against no budget (`limitedBy: false`): they say nothing of one.
    ...(route.meta.limitedBy === false
      ? {}
      : { "X-RateLimit-Limit": header("RateLimitLimit"), "X-RateLimit-Remaining": header("RateLimitRemaining") }),
    "X-Request-Id": header("RequestId"),
  };
  const cached = route.method === "GET" ? { ETag: header("ETag"), "Cache-Control": header("CacheControl") } : {};
  const language = route.meta.product ? { "Content-Language": header("ContentLanguage") } : {};
  const responses: Record<string, unknown> = {};
  if (route.kind === "json") {
    const generated = (operation.responses?.["200"] ?? {}) as Record<string, unknown>;
    responses[status] =
      status === "204"
        ? { description: "No content", headers: rateLimit }
        : { ...generated, headers: { ...rateLimit, ...cached, ...language } };
    const alternate = route.meta.alternateSuccess;
    if (alternate) {
      responses[String(alternate.status)] = { ...generated, description: alternate.description, headers: rateLimit };
    }
  } else {
    const types = route.meta.plain?.contentTypes ?? [];
    const schema = kinds.includes("file") ? { type: "string", format: "binary" } : { type: "string" };
    if (kinds.includes("file") || kinds.includes("text")) {
      const fileHeaders = kinds.includes("file")
        ? {
            "Accept-Ranges": header("AcceptRanges"),
            "Last-Modified": header("LastModified"),
            "Content-Disposition": header("ContentDisposition"),
          }
        : {};
      responses[status] = {
        description: "The content",
        headers: { ...rateLimit, ...cached, ...language, ...fileHeaders, "Content-Length": header("ContentLength") },
        content: Object.fromEntries(types.map((type) => [type, { schema }])),
      };
    }
    if (kinds.includes("file")) {
      responses["206"] = {
        description: "The requested range, or several ranges as multipart/byteranges",
        headers: { ...rateLimit, "Content-Range": header("ContentRange"), "Content-Length": header("ContentLength") },
        content: Object.fromEntries([...types, "multipart/byteranges"].map((type) => [type, { schema }])),
      };
    }
    if (kinds.includes("redirect")) {
      responses["302"] = {
        description: "Go to the address in Location",
        headers: { ...rateLimit, Location: header("Location") },
      };
    }
  }
  if (route.method === "GET" && !(kinds.length === 1 && kinds[0] === "redirect")) {
    responses["304"] = {
      description: "Not modified: the If-None-Match (or If-Modified-Since) validator still holds",
      headers: { ETag: header("ETag") },
    };
  }
  return responses;
}

/** Header parameters the edge reads for an operation: validators for GETs, ranges for files, an MCP session's. */
function headerParameters(route: EdgeRoute, kinds: PlainKind[]) {
  if (route.meta.mcp) {
    const version = {
      in: "header",
      name: "MCP-Protocol-Version",
      required: false,
      schema: { type: "string" },
      description: "The protocol version initialize agreed",
    };
    if (!route.meta.mcp.sessions) return [version];
    const session = {
      in: "header",
      name: "Mcp-Session-Id",
      required: false,
      schema: { type: "string" },
      description: "The session initialize opened (every request but initialize)",
    };
    return [session, version];
  }
  if (route.method !== "GET") return [];
  const parameters = [
    {
      in: "header",
      name: "If-None-Match",
      required: false,
      schema: { type: "string" },
      description: "An ETag of an earlier answer: 304 when unchanged",
    },
  ];
  if (kinds.includes("file")) {
    parameters.push(
      {
        in: "header",
        name: "Range",
        required: false,
        schema: { type: "string" },
        description: "bytes=first-last, first- or -suffix, several separated by commas (RFC 9110)",
      },
      {
        in: "header",
        name: "If-Range",
        required: false,
        schema: { type: "string" },
        description: "The ETag (or Last-Modified date) the range was taken from: a changed file is sent whole",
      },
      {
        in: "header",
        name: "If-Modified-Since",
        required: false,
        schema: { type: "string" },
        description: "304 when the file has not changed since",
      },
    );
  }
  return parameters;
}

const components = {
  headers: {
    RateLimitLimit: { required: true, schema: { type: "integer" }, description: "Requests allowed per minute" },
    RateLimitRemaining: { required: true, schema: { type: "integer" }, description: "Requests left in this minute" },
    RetryAfter: { required: true, schema: { type: "integer" }, description: "Seconds to wait before trying again" },
    ETag: { schema: { type: "string" }, description: "Validator of this answer, for If-None-Match" },
    CacheControl: { schema: { type: "string" }, description: "How the answer may be cached" },
    ContentLanguage: { schema: { type: "string" }, description: "The product's content language, when it has one" },
    AcceptRanges: { schema: { type: "string", const: "bytes" }, description: "Byte ranges are served" },
    ContentRange: {
      schema: { type: "string" },
      description: "The range sent (bytes first-last/size); in a multipart answer each part carries its own",
    },
    UnsatisfiedRange: { required: true, schema: { type: "string" }, description: "bytes */size" },
    ContentLength: { schema: { type: "integer" }, description: "Exact length of the body" },
    LastModified: { schema: { type: "string" }, description: "When the content last changed" },
    ContentDisposition: { schema: { type: "string" }, description: "attachment; filename=..." },
    Location: { required: true, schema: { type: "string", format: "uri" }, description: "Where to go" },
    Allow: { required: true, schema: { type: "string" }, description: "The methods this path answers" },
    RequestId: { required: true, schema: { type: "string" }, description: "This request's id, as the logs know it" },
    BearerChallenge: {
      required: false,
      schema: { type: "string" },
      description:
        "Bearer challenge (RFC 6750, RFC 9728) on 401, and on a 403 for a missing ability (insufficient_scope): resource_metadata and the scope to ask for",
    },
  },
  responses: {
    MethodNotAllowed: {
      description:
        "The path exists but does not take this method (error: `method_not_allowed`); Allow lists those it takes",
      headers: { Allow: header("Allow"), "X-Request-Id": header("RequestId") },
      content: { "application/json": { schema: errorRef } },
    },
  },
};

type BodySchema = { properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };

/**
 * A route that also takes `multipart/form-data`: the form has every field of the JSON body, its files as binary;
 * the JSON body has no file fields (a JSON document cannot carry one).
 */
function documentMultipart(operation: Operation, files: string[]) {
  const body = operation.requestBody as { content?: Record<string, { schema?: BodySchema }> } | undefined;
  const schema = body?.content?.["application/json"]?.schema;
  if (!body?.content || !schema)
    throw new Error(`${operation.operationId}: a multipart route needs a JSON body schema`);
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([name]) => !files.includes(name)),
  );
  const required = (schema.required ?? []).filter((name) => !files.includes(name));
  body.content["application/json"] = { schema: { ...schema, properties, required } };
  body.content["multipart/form-data"] = {
    schema,
    encoding: Object.fromEntries(files.map((name) => [name, { contentType: "application/octet-stream" }])),
  } as never;
}

/** A route that also takes URL-encoded forms (OAuth clients): the same body schema under that content type. */
function documentFormBody(operation: Operation, only: boolean) {
  const body = operation.requestBody as { content?: Record<string, { schema?: BodySchema }> } | undefined;
  const schema = body?.content?.["application/json"]?.schema;
  if (!body?.content || !schema) throw new Error(`${operation.operationId}: a form route needs a JSON body schema`);
  body.content["application/x-www-form-urlencoded"] = { schema };
  if (only) delete body.content["application/json"];
}

/** The OpenAPI 3.1 document of every route of a router: JSON routes from trpc-to-openapi, plain ones from meta. */
export function buildOpenApiDocument(
  router: AnyRouter,
  routes: readonly EdgeRoute[],
  baseUrl: string,
  info: DocumentInfo,
): OpenApiDocument {
  const isManual = (route: EdgeRoute) => route.kind === "plain" || jsonTextSchema(route.output) !== undefined;
  const manualMetas = new Set(routes.filter(isManual).map((route) => route.meta));
  const manualPaths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter(isManual)) {
    const operations = manualPaths[route.documentPath] ?? {};
    operations[route.method.toLowerCase()] = manualOperation(route);
    manualPaths[route.documentPath] = operations;
  }
  // The contract's schemes (5.12): account API keys on the account API, design agent tokens (with roles) on the design host.
  const schemes = {
    account_api_key: { type: "http", scheme: "bearer", description: "An account API key" },
    design_agent_token: {
      type: "http",
      scheme: "bearer",
      description:
        "A design agent token (from the operator's `design-token:create`) holding the role each operation names in `x-role`: collect, read, write or review",
    },
  } as const;
  const schemeOf = (route: EdgeRoute) => (route.meta.role ? "design_agent_token" : "account_api_key");
  const used = new Set(routes.filter((route) => route.meta.ability !== "public").map(schemeOf));
  const document = generateOpenApiDocument(router, {
    filter: ({ metadata }: { metadata: unknown }) => !manualMetas.has(metadata as EdgeRoute["meta"]),
    title: info.title,
    version: info.version,
    description: info.description,
    baseUrl,
    securitySchemes: Object.fromEntries(Object.entries(schemes).filter(([name]) => used.has(name as never))),
    paths: manualPaths as never,
  });

  for (const route of routes) {
    const operation = (document.paths?.[route.documentPath] as Record<string, Operation> | undefined)?.[
      route.method.toLowerCase()
    ];
    if (!operation) throw new Error(`${route.method} ${route.path} is missing from the document`);
    const kinds = route.kind === "plain" ? plainKinds(route.output) : [];
    const hasInput =
      (operation.parameters?.some((parameter) => parameter.in === "path" || parameter.in === "query") ?? false) ||
      "requestBody" in operation;
    if (route.meta.multipart) documentMultipart(operation, Object.keys(route.meta.multipart.files));
    if (route.meta.formBody) documentFormBody(operation, route.meta.formBody === "only");
    operation.parameters = [...(operation.parameters ?? []), ...headerParameters(route, kinds)];
    if (operation.parameters.length === 0) delete operation.parameters;
    operation.responses = {
      ...successResponses(route, operation, kinds),
      ...documentedErrors(route, hasInput, kinds),
    };
    // An empty requirement beside the key: open without a key, and a key that is sent is used (contract 5.12).
    operation.security =
      route.meta.ability === "public"
        ? []
        : route.meta.anonymous
          ? [{}, { [schemeOf(route)]: [] }]
          : [{ [schemeOf(route)]: [] }];
    if (route.meta.role) operation["x-role"] = route.meta.role;
    else operation["x-ability"] = route.meta.ability ?? null;
    operation["x-product-access"] = route.meta.product ?? null;
    if (route.meta.keyScope) operation["x-key-scope"] = route.meta.keyScope;
    if (route.meta.revokesKey) operation["x-revokes-key"] = true;
    if (route.meta.mcp) operation["x-json-rpc"] = true;
  }

  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  schemas.ErrorBody = {
    type: "object",
    required: ["message", "error"],
    properties: {
      message: { type: "string", description: "What went wrong, for people" },
      error: { type: "string", description: "Machine-readable code" },
    },
  };
  schemas.JsonRpcErrorBody = {
    type: "object",
    required: ["jsonrpc", "error", "id"],
    properties: {
      jsonrpc: { const: "2.0" },
      id: { type: "null" },
      error: {
        type: "object",
        required: ["code", "message"],
        properties: {
          code: { type: "integer", description: "The JSON-RPC code" },
          message: { type: "string", description: "What went wrong, for people" },
          data: {
            type: "object",
            properties: { error: { type: "string", description: "The contract's machine-readable code" } },
          },
        },
      },
    },
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
  Object.assign(document.components as object, components);
  return document;
}

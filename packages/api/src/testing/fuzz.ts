import net from "node:net";
import type { EdgeResult } from "@shelf/server/edge/results";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  maxItems?: number;
  format?: string;
};
type Parameter = { in: string; name: string; required?: boolean; schema?: Schema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<
    string,
    { $ref?: string; content?: Record<string, { schema?: Schema }>; headers?: Record<string, unknown> }
  >;
};
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked loosely
type Document = any;

/** Text that has broken servers before: prototype names, NUL, odd escapes, long and non-ASCII strings. */
const NASTY_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "%",
  "%00",
  "%E0%A4%A",
  "..",
  "../../etc/passwd",
  "a/b",
  "\\",
  "null",
  "NaN",
  "-0",
  "1e3",
  "0x10",
  "1.0",
  "9".repeat(30),
  "x".repeat(5000),
  "é😀\u2028",
  "<script>",
  "' or 1=1 --",
];
const NASTY_NUMBERS = [0, -1, 1, 2_147_483_647, 2_147_483_648, -2_147_483_649, Number.MAX_SAFE_INTEGER, 1.5];

/** Values a schema allows (mostly), for a property-based run. */
function valid(schema: Schema | undefined, document: Document, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  if (schema.$ref) return valid(resolve(schema.$ref, document), document, depth + 1);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => valid(variant, document, depth + 1)));
  if (schema.allOf?.[0]) return valid(schema.allOf[0], document, depth + 1);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((candidate) => candidate !== "null") ?? types[0];
  switch (type) {
    case "integer":
      return fc.integer({
        min: schema.minimum ?? (schema.exclusiveMinimum ?? -1_000_001) + 1,
        max: schema.maximum ?? (schema.exclusiveMaximum ?? 1_000_001) - 1,
      });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(valid(schema.items, document, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case "object": {
      const properties = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) record[name] = valid(property, document, depth + 1);
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
    }
    default:
      if (schema.format === "date-time") return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
      // Text of the pattern reaches what a regex lets through: a cursor of ten digits is past a 32-bit id.
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
  }
}

/** Anything at all: what a broken or hostile client sends where a value of the schema belongs. */
const anything: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(...NASTY_TEXT, ...NASTY_NUMBERS, null, true, [], {}),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: "binary", maxLength: 20 }),
);

function resolve(ref: string, document: Document): Schema {
  return ref
    .replace(/^#\//, "")
    .split("/")
    .reduce((node, part) => node?.[part], document);
}

/** A parameter's text: usually from its schema, sometimes hostile. */
function parameterText(parameter: Parameter, document: Document, known: Record<string, string[]>) {
  const fromSchema = valid(parameter.schema, document).map((value) => String(value));
  const knownValues = known[parameter.name];
  return fc.oneof(
    { weight: 4, arbitrary: knownValues?.length ? fc.constantFrom(...knownValues) : fromSchema },
    { weight: 3, arbitrary: fromSchema },
    {
      weight: 3,
      arbitrary: anything.map((value) => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""))),
    },
  );
}

export type FuzzRequest = { method: string; target: string; headers: Record<string, string>; body: Uint8Array | null };

const ODD_METHODS = ["TRACE", "OPTIONS", "PATCH", "DELETE", "PUT", "HEAD", "PROPFIND", "get"];
/** Path text percent-encoded, except text that starts with `%`, sent raw to try malformed escapes. */
const encodeSegment = (text: string) => (text.startsWith("%") ? text : encodeURIComponent(text));

/** Requests for one operation of the document: valid, boundary and invalid values in every part, odd methods. */
export function requestsFor(
  path: string,
  method: string,
  operation: Operation,
  document: Document,
  options: { keys: string[]; known: Record<string, string[]> },
): fc.Arbitrary<FuzzRequest> {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((parameter) => parameter.in === "path");
  const queryParams = parameters.filter((parameter) => parameter.in === "query");
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  const pathArb = fc.tuple(...pathParams.map((parameter) => parameterText(parameter, document, options.known)));
  const queryArb = fc.array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...(queryParams.length ? queryParams.map((p) => p.name) : ["q"])), fc.string()),
      ...queryParams.map((parameter) =>
        fc.tuple(fc.constant(parameter.name), parameterText(parameter, document, options.known)),
      ),
      fc.tuple(fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "__proto__[x]"), fc.string()),
    ),
    { maxLength: 4 },
  );
  const bodyArb: fc.Arbitrary<Uint8Array | null> = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: bodySchema ? 5 : 1, arbitrary: valid(bodySchema ?? { type: "object" }, document).map(toJson) },
    { weight: 2, arbitrary: anything.map(toJson) },
    { weight: 1, arbitrary: fc.constantFrom("{", '{"a":', "[1,2", "nul").map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  );
  const headerArb = fc.record(
    {
      "content-type": fc.constantFrom(
        "application/json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/merge-patch+json",
        "",
      ),
      range: fc.constantFrom(
        "bytes=0-0",
        "bytes=-5",
        "bytes=5-",
        "bytes=0-1,3-4",
        "bytes=9999999-",
        "bytes=x",
        "items=0-1",
      ),
      "if-none-match": fc.constantFrom('"x"', "*", 'W/"x"', ""),
      "if-range": fc.constantFrom('"x"', "Thu, 01 Jan 1970 00:00:00 GMT", "garbage"),
    },
    { requiredKeys: [] },
  );
  const methodArb = fc.oneof(
    { weight: 8, arbitrary: fc.constant(method.toUpperCase()) },
    fc.constantFrom(...ODD_METHODS),
  );
  // Mostly a working key, so that runs get past the door to the procedures; sometimes none or a broken one.
  const authorizationArb = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...options.keys.map((key) => `Bearer ${key}`)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "Bearer",
        "Bearer shelf_x",
        "Basic Zm9vOmJhcg==",
        `Bearer ${"a".repeat(600)}`,
        "bearer  x",
      ),
    },
  );
  // What only the server in front sees: a target or a header past Node's 16 KiB of request head (431).
  const oversizedArb = fc.oneof(
    { weight: 30, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom("target", "header") },
  );
  return fc
    .tuple(methodArb, pathArb, queryArb, bodyArb, headerArb, authorizationArb, oversizedArb)
    .map(([verb, values, query, body, headers, authorization, oversized]) => {
      let target = path;
      pathParams.forEach((parameter, index) => {
        target = target.replace(`{${parameter.name}}`, encodeSegment(values[index] as string));
      });
      if (oversized === "target") query.push(["padding", "a".repeat(17 * 1024)]);
      const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&");
      const padding = oversized === "header" ? "a".repeat(17 * 1024) : undefined;
      return {
        method: verb,
        target: search ? `${target}?${search}` : target,
        headers: Object.fromEntries(
          Object.entries({ ...headers, authorization, "x-padding": padding }).filter(
            ([, value]) => value !== undefined,
          ),
        ) as Record<string, string>,
        body: verb === "GET" || verb === "HEAD" ? null : body,
      };
    });
}

export type FuzzAnswer = { result: Pick<EdgeResult, "status" | "headers">; body: Buffer | null };

/**
 * Sends one generated request, byte for byte, to a server on this machine, as a client on the network would: what
 * the server answers before the edge sees a request (Node's parse errors, oversized heads) is checked too.
 */
export function sendOverSocket(port: number, request: FuzzRequest): Promise<FuzzAnswer> {
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Connection: close",
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
    ...(request.body ? [`Content-Length: ${request.body.byteLength}`] : []),
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      // Not ended: Node drops the answer to a client that half-closes first. `Connection: close` ends it.
      socket.write(
        Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), request.body ?? Buffer.alloc(0)]),
      );
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const data = Buffer.concat(chunks);
      const end = data.indexOf("\r\n\r\n");
      if (end === -1) return reject(new Error(`no answer to ${request.method} ${request.target.slice(0, 100)}`));
      const [statusLine = "", ...lines] = data.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const raw = data.subarray(end + 4);
      const body = headers["transfer-encoding"] === "chunked" ? dechunk(raw) : raw;
      resolve({
        result: { status: Number(statusLine.split(" ")[1]), headers },
        body: request.method === "HEAD" ? null : body,
      });
    });
  });
}

/** A chunked body's data (RFC 9112 7.1), without extensions or trailers. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", offset);
    const size = Number.parseInt(raw.subarray(offset, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

function toJson(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value) ?? "null");
}

/**
 * Checks an answer against the document: never a 5xx, errors in the contract's JSON, a status the operation (or
 * the document's shared responses) lists, the headers it promises, and a JSON body valid against its schema.
 */
export function createAnswerChecker(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  const compiled = new Map<object, ReturnType<typeof ajv.compile>>();
  const validator = (schema: Schema) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: document.components });
      compiled.set(schema, validate);
    }
    return validate;
  };

  /**
   * `jsonRpc`: the path is an MCP endpoint's (`x-json-rpc`), whose refusals are JSON-RPC errors carrying the
   * contract's code in `data.error`, except 401 and 403, in the contract's shape.
   */
  return function check(
    request: FuzzRequest,
    operation: Operation | undefined,
    answer: FuzzAnswer,
    options: { jsonRpc?: boolean } = {},
  ): string | null {
    const { status, headers } = answer.result;
    const text = answer.body?.toString("utf8") ?? "";
    const where = `${request.method} ${request.target} -> ${status} ${text.slice(0, 200)}`;
    if (status >= 500) return `5xx: ${where}`;
    if (request.method === "HEAD" && answer.body !== null) return `HEAD answered with a body: ${where}`;
    if (status >= 400 && request.method !== "HEAD") {
      let parsed: {
        message?: unknown;
        error?: { code?: unknown; message?: unknown; data?: { error?: unknown } } | string;
        errors?: unknown;
        jsonrpc?: unknown;
      };
      try {
        parsed = JSON.parse(text);
      } catch {
        return `error answer is not JSON: ${where}`;
      }
      // An undocumented method (TRACE) may be refused by the server in front, before the edge, in the contract's shape.
      const byEdge = operation !== undefined || parsed.jsonrpc !== undefined;
      if (options.jsonRpc && byEdge && ![401, 403, 408, 431].includes(status)) {
        const error = typeof parsed.error === "object" ? parsed.error : undefined;
        const valid =
          parsed.jsonrpc === "2.0" &&
          Number.isInteger(error?.code) &&
          typeof error?.message === "string" &&
          typeof error?.data?.error === "string";
        return valid || status === 422 ? checkDocumented() : `error answer not a JSON-RPC error: ${where}`;
      }
      if (typeof parsed.message !== "string") return `error answer without a message: ${where}`;
      if (status === 422 ? typeof parsed.errors !== "object" : typeof parsed.error !== "string") {
        return `error answer not in the contract's shape: ${where}`;
      }
    }
    return checkDocumented();

    function checkDocumented(): string | null {
      // A method the path does not have: refused at the door (or before it, by Node: 408, 431).
      if (!operation)
        return [204, 400, 401, 404, 405, 408, 429, 431].includes(status)
          ? null
          : `undocumented method answered ${where}`;
      const documented =
        operation.responses[String(status)] ??
        (status === 405 ? document.components.responses.MethodNotAllowed : undefined);
      if (!documented) return `status not in the document: ${where}`;
      const response = documented.$ref ? resolve(documented.$ref, document) : documented;
      for (const [name, declared] of Object.entries((response as { headers?: Record<string, Schema> }).headers ?? {})) {
        const header = (declared.$ref ? resolve(declared.$ref, document) : declared) as { required?: boolean };
        if (header.required && headers[name.toLowerCase()] === undefined) return `missing header ${name}: ${where}`;
      }
      const schema = (response as Operation["responses"][string]).content?.["application/json"]?.schema;
      if (schema && answer.body && answer.body.length > 0 && headers["content-type"]?.startsWith("application/json")) {
        const validate = validator(schema);
        if (!validate(JSON.parse(text))) return `body invalid (${ajv.errorsText(validate.errors)}): ${where}`;
      }
      return null;
    }
  };
}

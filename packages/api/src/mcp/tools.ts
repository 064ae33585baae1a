import { jsonTextSchema } from "@shelf/server/json-text";
import type { AnyRouter } from "@trpc/server";
import { z } from "zod";
import { type AccountAbility, accountAbilities } from "../abilities";
import { collectRoutes, type EdgeRoute } from "../edge/routes";
import { toolSchema } from "./schema";

/** A JSON Schema object, as MCP lists a tool's arguments and answer. */
export type ObjectSchema = { type: "object"; [key: string]: unknown };

/** What an MCP client may assume of a call (MCP tool annotations). */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: false;
};

/**
 * A tool of an MCP endpoint here: one call of a procedure (the one its REST route calls, so every check runs again),
 * made from the procedure's route (`accountTools`) or from a tool definition (the design MCP's).
 */
export type McpTool = {
  /** `library_get`, `search_screens`. */
  name: string;
  title: string;
  description: string;
  /** What the caller must hold to see and call it (an account ability, a design role); null for any valid caller. */
  needs: string | null;
  /** The procedure's path in its router. */
  procedure: string;
  type: "query" | "mutation";
  /** JSON Schema of the arguments, self-contained (`$defs`). */
  inputSchema: ObjectSchema;
  /** JSON Schema of `structuredContent`; none for a tool whose description names another tool's schema. */
  outputSchema?: ObjectSchema;
  annotations: ToolAnnotations;
  /** The procedure's input from the tool's arguments (as they are, unless the tool pages or renames). */
  toInput?: (args: Record<string, unknown>) => unknown;
  /** `structuredContent` from the procedure's answer (the answer itself, unless the tool reshapes it). */
  toOutput?: (answer: unknown, args: Record<string, unknown>) => unknown;
};

/** A tool as written out (the design MCP's): its procedure, and its arguments' and answer's zod schemas. */
export type ToolDefinition = Omit<McpTool, "type" | "inputSchema" | "outputSchema"> & {
  input: z.ZodType;
  /** The answer's schema; null for a tool whose description names another tool's (the tools list stays small). */
  output: z.ZodType | null;
};

/** A tool from its definition: the schemas as JSON Schema (mcp/schema.ts), a query when it only reads. */
export function definedTool({ input, output, ...tool }: ToolDefinition): McpTool {
  return {
    ...tool,
    type: tool.annotations.readOnlyHint ? "query" : "mutation",
    inputSchema: toolSchema(input, "input"),
    ...(output ? { outputSchema: toolSchema(output, "output") } : {}),
  };
}

/**
 * Every account API operation that makes sense as a tool, read from the routers' meta, so a new REST endpoint is a
 * tool at once: JSON answers only (files and redirects are for HTTP clients), abilities of an account only (never
 * staff), and never a call that revokes the credential it is made with.
 */
export function accountTools(router: AnyRouter): McpTool[] {
  const tools: McpTool[] = [];
  for (const route of collectRoutes(router)) {
    const ability = toolAbility(route);
    if (ability === undefined || route.kind !== "json" || route.meta.revokesKey || route.meta.multipart) continue;
    // The MCP endpoint itself is no tool of its own.
    if (route.meta.mcp) continue;
    if (route.meta.keyScope) continue;
    const inputSchema = argumentsSchema(route.inputs);
    const outputSchema = answerSchema(route.output);
    if (!inputSchema || !outputSchema) continue;
    const http = route.meta.openapi;
    const summary = http?.summary ?? route.procedure;
    const access = ability ? `Needs the ${ability} ability.` : "Open to any valid credential.";
    tools.push({
      name: toolName(route.procedure),
      title: summary,
      description: [sentence(summary), http?.description, `${access} REST: ${route.method} ${route.path}.`]
        .filter(Boolean)
        .join(" "),
      needs: ability,
      procedure: route.procedure,
      type: route.type,
      inputSchema,
      outputSchema,
      annotations: toolAnnotations(route, summary),
    });
  }
  return tools.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Reads answer `readOnlyHint`; for the rest (MCP's defaults would call every write destructive and not idempotent)
 * PUT, DELETE and routes marked `idempotent` repeat safely, DELETE and routes marked `destructive` take something away, and nothing reaches
 * beyond this account (`openWorldHint: false`).
 */
function toolAnnotations(route: EdgeRoute, title: string): ToolAnnotations {
  if (route.type === "query") return { title, readOnlyHint: true, openWorldHint: false };
  return {
    title,
    readOnlyHint: false,
    destructiveHint: route.method === "DELETE" || route.meta.destructive === true,
    idempotentHint: route.method === "PUT" || route.method === "DELETE" || route.meta.idempotent === true,
    openWorldHint: false,
  };
}

/** A route's ability as a tool sees it: null for any caller, undefined when it is not an account tool at all. */
function toolAbility(route: EdgeRoute): AccountAbility | null | undefined {
  const ability = route.meta.ability;
  if (ability === "any-key") return null;
  if (ability && (accountAbilities as readonly string[]).includes(ability)) return ability as AccountAbility;
  return undefined;
}

/**
 * The procedure's input (tRPC merges several `.input()` objects) as one JSON Schema object. Null when it is not an
 * object of JSON values (a tool's arguments always are).
 */
function argumentsSchema(inputs: unknown[]): ObjectSchema | null {
  const shape: Record<string, z.ZodType> = {};
  for (const input of inputs) {
    if (!(input instanceof z.ZodObject)) return null;
    Object.assign(shape, input.shape);
  }
  try {
    const schema = z.toJSONSchema(z.object(shape), { io: "input", unrepresentable: "throw" }) as Record<
      string,
      unknown
    >;
    delete schema.$schema;
    return { ...schema, type: "object" };
  } catch {
    return null;
  }
}

/**
 * The procedure's output (the schema a JSON text answer stands for) as the tool's output schema, in the design
 * tools' light form (mcp/schema.ts): `structuredContent` is the answer itself (MCP 2025-06-18). Null when the
 * answer is not a JSON object, which `structuredContent` must be.
 */
function answerSchema(output: unknown): ObjectSchema | null {
  const schema = jsonTextSchema(output) ?? output;
  if (!(schema instanceof z.ZodType)) return null;
  const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  const root =
    typeof json.$ref === "string"
      ? (json.$defs as Record<string, Record<string, unknown>> | undefined)?.[json.$ref.replace("#/$defs/", "")]
      : json;
  return root?.type === "object" ? toolSchema(schema, "output") : null;
}

/** `orders.paymentMethods` as `orders_payment_methods`: the way tool names are usually written. */
function toolName(procedure: string): string {
  return procedure
    .replace(/\./g, "_")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

import type { AnyRouter } from "@trpc/server";
import { z } from "zod";
import { type AccountAbility, accountAbilities } from "../abilities";
import type { Caller } from "../auth/caller";
import { collectRoutes, type EdgeRoute } from "../edge/routes";

/** A tool of the account MCP: one account API operation, called through its procedure. */
export type AccountTool = {
  /** `library_get`, `orders_payment_methods`: the procedure's path in snake case. */
  name: string;
  title: string;
  description: string;
  /** What the caller must hold; null when any valid caller may call it. */
  ability: AccountAbility | null;
  procedure: string;
  type: "query" | "mutation";
  /** JSON Schema of the arguments: the procedure's input, self-contained (`$defs`). */
  inputSchema: { type: "object"; [key: string]: unknown };
  /** What an MCP client may assume of a call (MCP tool annotations): from the HTTP method and the route's meta. */
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: false;
  };
};

/**
 * Every account API operation that makes sense as a tool, read from the routers' meta, so a new REST endpoint is a
 * tool at once: JSON answers only (files and redirects are for HTTP clients), abilities of an account only (never
 * staff), and never a call that revokes the credential it is made with.
 */
export function accountTools(router: AnyRouter): AccountTool[] {
  const tools: AccountTool[] = [];
  for (const route of collectRoutes(router)) {
    const ability = toolAbility(route);
    if (ability === undefined || route.kind !== "json" || route.meta.revokesKey || route.meta.multipart) continue;
    // The MCP endpoint itself is no tool of its own.
    if (route.meta.mcp) continue;
    if (route.meta.keyScope) continue;
    const inputSchema = argumentsSchema(route.inputs);
    if (!inputSchema) continue;
    const http = route.meta.openapi;
    const summary = http?.summary ?? route.procedure;
    const access = ability ? `Needs the ${ability} ability.` : "Open to any valid credential.";
    tools.push({
      name: toolName(route.procedure),
      title: summary,
      description: [sentence(summary), http?.description, `${access} REST: ${route.method} ${route.path}.`]
        .filter(Boolean)
        .join(" "),
      ability,
      procedure: route.procedure,
      type: route.type,
      inputSchema,
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
function toolAnnotations(route: EdgeRoute, title: string): AccountTool["annotations"] {
  if (route.type === "query") return { title, readOnlyHint: true, openWorldHint: false };
  return {
    title,
    readOnlyHint: false,
    destructiveHint: route.method === "DELETE" || route.meta.destructive === true,
    idempotentHint: route.method === "PUT" || route.method === "DELETE" || route.meta.idempotent === true,
    openWorldHint: false,
  };
}

/** The tools a caller may call: those whose ability it holds. */
export function toolsFor(tools: readonly AccountTool[], caller: Caller): AccountTool[] {
  return tools.filter((tool) => tool.ability === null || caller.abilities.has(tool.ability));
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
function argumentsSchema(inputs: unknown[]): AccountTool["inputSchema"] | null {
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

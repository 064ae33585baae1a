import { compileRoutePath, type EdgeRoute as KitRoute } from "@shelf/server/edge/routes";
import type { AnyProcedure, AnyRouter } from "@trpc/server";
import type { HttpMethod, Meta } from "../trpc";

/** A route of this API: the kit's route with the API's meta. */
export type EdgeRoute = KitRoute<Meta>;

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
      ...compileRoutePath(http.path),
    });
  }
  return routes;
}

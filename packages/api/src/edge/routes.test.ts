import { RouteTable } from "@shelf/server/edge/routes";
import { describe, expect, it } from "vitest";
import { appRouter } from "../root";
import { collectRoutes, type EdgeRoute } from "./routes";

/** The table's answer as a plain scan of the routes in order would give it: the first route that matches. */
function firstMatch(routes: readonly EdgeRoute[], method: string, path: string) {
  const route = routes.find((candidate) => candidate.method === method && candidate.pattern.test(path));
  if (!route) return null;
  const values = route.pattern.exec(path)?.slice(1) ?? [];
  return {
    route: route.procedure,
    params: Object.fromEntries(route.params.map(({ name }, index) => [name, decodeURIComponent(values[index] ?? "")])),
  };
}

const summary = (match: ReturnType<RouteTable["match"]>) =>
  match && { route: match.route.procedure, params: match.params };

describe("the route table", () => {
  it("matches every route of the account API as the first matching route in order", () => {
    const routes = collectRoutes(appRouter);
    const table = new RouteTable(routes);
    let exact = 0;
    for (const route of routes) {
      const path = route.path.replace(/\{(\w+)\+?\}/g, "7");
      if (route.params.length === 0) exact++;
      expect(summary(table.match(route.method, path)), `${route.method} ${path}`).toEqual(
        firstMatch(routes, route.method, path),
      );
      // Another method on the same path, and the path with something after it.
      expect(summary(table.match("PATCH", path))).toEqual(firstMatch(routes, "PATCH", path));
      expect(summary(table.match(route.method, `${path}/x`))).toEqual(firstMatch(routes, route.method, `${path}/x`));
    }
    expect(exact).toBeGreaterThan(20);
  });

  it("lets an earlier route with a parameter win over a later one written out, and hands out fresh parameters", () => {
    const withParam = collectRoutes(appRouter).find((route) => route.procedure === "products.get") as EdgeRoute;
    const shadowed = { ...withParam, procedure: "shadowed", path: "/api/products/search", params: [] } as EdgeRoute;
    shadowed.pattern = /^\/api\/products\/search$/;
    const table = new RouteTable([withParam, shadowed]);
    const first = table.match("GET", "/api/products/search");
    expect(summary(first)).toEqual({ route: "products.get", params: { product: "search" } });
    (first?.params as Record<string, string>).extra = "changed";
    expect(summary(table.match("GET", "/api/products/search"))?.params).not.toHaveProperty("extra");
    // Written out and alone, the route is found by its path.
    expect(summary(new RouteTable([shadowed]).match("GET", "/api/products/search"))).toEqual({
      route: "shadowed",
      params: {},
    });
  });
});

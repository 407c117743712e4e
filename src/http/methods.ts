import type { Context } from "hono";
import type { AppEnv } from "./context";
import { routeTable } from "./openapi";

/**
 * A method a path does not have (TRACE, or PUT where only GET exists) is 405 method_not_allowed with
 * `Allow` listing the methods it has (RFC 9110 §15.5.6), not a 404 that would say the path is
 * unknown (issue 44). The paths are the route table's (every defineRoute) and the few pages outside
 * it; HEAD goes with GET, as the router answers it.
 */
const OTHER_GET_PATHS = new Set<string>();

let matchers: { pattern: RegExp; methods: Set<string> }[] | undefined;

/** Declares a GET path served outside defineRoute (the health probe, the docs page and files). */
export function registerGetPath(path: string) {
  if (OTHER_GET_PATHS.has(path)) return;
  OTHER_GET_PATHS.add(path);
  matchers = undefined;
}

function build() {
  const byPath = new Map<string, Set<string>>();
  const add = (path: string, method: string) => {
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(method);
    if (method === "GET") methods.add("HEAD");
    byPath.set(path, methods);
  };
  for (const route of routeTable) add(route.path, route.method);
  for (const path of OTHER_GET_PATHS) add(path, "GET");
  return [...byPath].map(([path, methods]) => {
    const source = path
      .split("/")
      .map((segment) => (/^[{:]/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
      .join("/");
    // DGII's receiver services are routed without regard to case (src/app.ts).
    return { pattern: new RegExp(`^${source}/?$`, path.startsWith("/fe/") ? "i" : ""), methods };
  });
}

/** The methods a path has, in a stable order; empty when no route has the path. */
export function allowedMethods(path: string): string[] {
  matchers ??= build();
  const methods = new Set<string>();
  for (const matcher of matchers) if (matcher.pattern.test(path)) for (const method of matcher.methods) methods.add(method);
  return ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter((method) => methods.has(method));
}

/** The router's answer when no route took the request: 405 with Allow for a known path, else 404. */
export function noRoute(c: Context<AppEnv>): Response {
  const allowed = allowedMethods(c.req.path);
  if (allowed.length > 0 && !allowed.includes(c.req.method)) {
    return c.json({ message: `This path does not take ${c.req.method}; it takes ${allowed.join(", ")}.`, code: "method_not_allowed" }, 405, {
      Allow: allowed.join(", "),
    });
  }
  return c.json({ message: "Route not found.", code: "route_not_found" }, 404);
}

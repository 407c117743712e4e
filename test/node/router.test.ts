import type { Result } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { StaticFirstRouter } from "../../src/http/router";

// The app's router (src/http/router.ts): hono's RegExpRouter for the parameter and wildcard routes,
// not the TrieRouter that hono's SmartRouter falls back to (9-14 % of a read's Worker CPU). A route
// RegExpRouter refuses (UnsupportedPathError) makes createApp throw, and these tests with it.
const app = createApp();
// hono adds [handler, route] to its router, route being the object app.routes lists.
type Route = (typeof app.routes)[number];
type Handler = [Route["handler"], Route];
const reference = new TrieRouter<Handler>();
for (const route of app.routes) reference.add(route.method, route.path, [route.handler, route]);

/** A result of either router as [handler, params] pairs, in order. */
function pairs([handlers, stash]: Result<Handler>): [Handler, Record<string, string>][] {
  if (!stash) return handlers.map(([h, params]) => [h, { ...(params as Record<string, string>) }]);
  return handlers.map(([h, indexes]) => [h, Object.fromEntries(Object.entries(indexes as Record<string, number>).map(([k, i]) => [k, stash[i] as string]))]);
}

/** Request paths for a route path: its parameters and wildcards filled with values that could also be fixed segments. */
function samples(path: string): string[] {
  const fixedSegments = ["1", "current", "summary", "0b9a1c2e-6a4f-4c7e-9d3b-2f1e0a9b8c7d", "preferred"];
  const out = new Set<string>();
  for (const value of fixedSegments) {
    const filled = path.replace(/:[^/{]+(\{[^}]*\})?\??/g, value).replace(/\*/g, `${value}/x`);
    out.add(filled);
    out.add(`${filled}/`);
    out.add(`${filled}/extra`);
  }
  return [...out];
}

describe("the app's router", () => {
  it("is the RegExpRouter-backed router, not hono's SmartRouter with its TrieRouter fallback", () => {
    expect(app.router).toBeInstanceOf(StaticFirstRouter);
  });

  it("answers every route's paths as hono's TrieRouter does (same handlers, order and parameters)", () => {
    const methods = [...new Set(app.routes.map((r) => r.method).filter((m) => m !== "ALL")), "OPTIONS"];
    const paths = new Set(app.routes.flatMap((r) => samples(r.path)));
    expect(paths.size).toBeGreaterThan(1000);
    const differences: string[] = [];
    for (const path of paths)
      for (const method of methods) {
        const expected = pairs(reference.match(method, path));
        // Twice: a fixed path's answer is kept after the first.
        for (let i = 0; i < 2; i++)
          if (!isEqualAnswer(pairs(app.router.match(method, path) as Result<Handler>), expected)) differences.push(`${method} ${path}`);
      }
    expect(differences.slice(0, 20)).toEqual([]);
  });
});

function isEqualAnswer(a: [Handler, Record<string, string>][], b: [Handler, Record<string, string>][]): boolean {
  return (
    a.length === b.length &&
    a.every(([h, p], i) => h[1] === b[i]?.[0][1] && JSON.stringify(Object.entries(p).sort()) === JSON.stringify(Object.entries(b[i]?.[1] ?? {}).sort()))
  );
}

import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";

/** A path with no parameter and no wildcard, as hono's RegExpRouter tells them apart. */
const isStaticPath = (path: string) => !/\*|\/:/.test(path);

/**
 * The app's router: hono's RegExpRouter (one regular expression per method) for every request
 * whose path is not one of the table's fixed paths, the TrieRouter's answer, computed once and
 * kept, for the fixed paths.
 *
 * hono's default SmartRouter falls back to its TrieRouter (walked on every request, 9-14 % of a
 * read's Worker CPU: docs/performance.md) for this table, because hono 4.13's RegExpRouter refuses
 * a fixed segment and a parameter at the same position (`/auth/tokens/current` beside
 * `/auth/tokens/:token_id`: UnsupportedPathError), which a REST API has throughout. Without the
 * fixed paths it takes the table. A request path that is not a fixed path of the table can only
 * match the parameter and wildcard routes, so the RegExpRouter over those answers it as the
 * TrieRouter over all of them would; a fixed path's answer (its own routes, the parameter routes
 * it also matches and the middleware, in order) is the TrieRouter's, kept per method.
 * test/node/router.test.ts checks both against the TrieRouter on every route of the app.
 */
export class StaticFirstRouter<T> implements Router<T> {
  name = "StaticFirstRouter";
  readonly #trie = new TrieRouter<T>();
  readonly #regexp = new RegExpRouter<T>();
  readonly #methods = new Set<string>();
  /** Fixed path → method → the TrieRouter's answer. */
  readonly #fixed = new Map<string, Map<string, Result<T>>>();

  add(method: string, path: string, handler: T): void {
    this.#trie.add(method, path, handler);
    this.#methods.add(method);
    if (isStaticPath(path)) {
      if (!this.#fixed.has(path)) this.#fixed.set(path, new Map());
    } else this.#regexp.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const answers = this.#fixed.get(path);
    if (!answers) return this.#regexp.match(method, path);
    let answer = answers.get(method);
    if (!answer) {
      answer = this.#trie.match(method, path);
      // Only the table's methods are kept: any other (a client may send any) is looked up each time.
      if (this.#methods.has(method)) answers.set(method, answer);
    }
    return answer;
  }
}

/**
 * A port: what a module needs from a module above it. A lower layer never imports a higher one
 * (CONTRIBUTING.md, "The layers"), so the lower module declares the port with the type it needs,
 * and the higher one's implementation is plugged in at the composition root (src/app.ts,
 * createApp) before any request is served.
 */
export interface Port<T> {
  provide(implementation: T): void;
  /** The implementation; throws when none was provided (a wiring bug, never a request's fault). */
  readonly use: T;
}

export function port<T>(name: string): Port<T> {
  let implementation: T | undefined;
  return {
    provide(value) {
      implementation = value;
    },
    get use() {
      if (implementation === undefined) throw new Error(`${name} is not provided: createApp (src/app.ts) plugs it in`);
      return implementation;
    },
  };
}

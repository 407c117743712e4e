import fs, { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { CONFIGURATION_VARIABLES, devPort, devVarsFile, WRANGLER_DEV_ENV, wranglerDevArgs } from "../../scripts/dev";
import { testWranglerConfig } from "../support/wrangler-config";

/** The names README's "Configuration" table lists as a var or a secret (bindings excluded). */
function readmeVariables(): string[] {
  const readme = readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
  const names: string[] = [];
  for (const line of readme.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 4 || !/\b(var|secret|secrets)\b/.test(cells[2]!) || /binding/i.test(cells[2]!)) continue;
    for (const match of cells[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.push(match[1]!);
  }
  return names;
}

const parse = (file: string) =>
  Object.fromEntries(
    file
      .trim()
      .split("\n")
      .map((line) => [line.slice(0, line.indexOf("=")), JSON.parse(line.slice(line.indexOf("=") + 1).replaceAll("\\$", "$"))]),
  );

describe("npm run dev honours its configuration (issue 35)", () => {
  it("passes every variable README lists, set in the shell, to the Worker's .dev.vars", () => {
    const listed = readmeVariables();
    expect(listed).toContain("RATE_LIMIT_AUTHENTICATED_PER_MINUTE");
    expect(listed).toContain("RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE");
    expect(listed).toContain("ECF_TRUSTED_CA_PEM");
    expect([...CONFIGURATION_VARIABLES].sort()).toEqual([...new Set(listed)].sort());
    const shell = Object.fromEntries(listed.map((name) => [name, `from-shell-${name}`]));
    shell.ECF_TRUSTED_CA_PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const vars = parse(devVarsFile({ JWT_SECRET: "local-secret", DB_WS_PROXY: "127.0.0.1:1" }, shell));
    for (const name of listed) expect(vars[name], name).toBe(shell[name]);
  });

  it("keeps its own local values for what the shell does not set", () => {
    const vars = parse(devVarsFile({ JWT_SECRET: "local-secret", APP_URL: "http://demo.localhost:8787", UPSTASH_REDIS_REST_URL: undefined }, { PORT: "1" }));
    expect(vars).toEqual({ JWT_SECRET: "local-secret", APP_URL: "http://demo.localhost:8787" });
  });

  it("takes the port from --port or --port=, else PORT, else 8787", () => {
    expect(devPort(["--port", "8790"], {})).toBe(8790);
    expect(devPort(["--port=8791"], { PORT: "9000" })).toBe(8791);
    expect(devPort([], { PORT: "9000" })).toBe(9000);
    expect(devPort([], {})).toBe(8787);
    expect(() => devPort(["--port", "http"], {})).toThrow("Not a port: http");
  });
});

/**
 * Where the values go (issue 44): a variable given to one `npm run dev` lasts for that run, and
 * `npm test` reads no developer's .dev.vars. Judged by wrangler's own reading of a config folder
 * (the function vitest-pool-workers calls; `wrangler dev` reads its vars the same way).
 */
describe("npm run dev's vars last one run; npm test reads no .dev.vars (issue 44)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sucursal-dev-vars-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A project folder as a developer's: wrangler.toml, and a .dev.vars and .env left by hand or by an older npm run dev.
  fs.copyFileSync(path.resolve(__dirname, "../../wrangler.toml"), path.join(dir, "wrangler.toml"));
  fs.writeFileSync(path.join(dir, ".dev.vars"), 'RATE_LIMIT_AUTHENTICATED_PER_MINUTE="5"\nLEFT_OVER="from .dev.vars"\n');
  fs.writeFileSync(path.join(dir, ".env"), 'LEFT_OVER_ENV="from .env"\n');
  // Its typings leave out envFiles, which it takes (and passes to the reading of vars, as `wrangler dev --env-file` does).
  const readConfig = unstable_getMiniflareWorkerOptions as unknown as (
    config: string,
    env: undefined,
    options: { envFiles?: string[] },
  ) => { workerOptions: { bindings?: Record<string, unknown> } };
  const bindingsOf = (config: string, envFiles?: string[]) => {
    const saved = { ...process.env };
    Object.assign(process.env, WRANGLER_DEV_ENV);
    try {
      return readConfig(config, undefined, { envFiles }).workerOptions.bindings ?? {};
    } finally {
      for (const name of Object.keys(WRANGLER_DEV_ENV)) if (saved[name] === undefined) delete process.env[name];
      Object.assign(process.env, saved);
    }
  };

  it("wrangler dev reads this run's file only: its values, not .dev.vars', and nothing of the shell beyond what the file says", () => {
    const runFile = path.join(dir, "run-1.vars");
    fs.writeFileSync(runFile, devVarsFile({ JWT_SECRET: "local-$ecret" }, { RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "7" }));
    const args = wranglerDevArgs(8787, runFile);
    expect(args.slice(-2)).toEqual(["--env-file", runFile]);
    const bindings = bindingsOf(path.join(dir, "wrangler.toml"), [args.at(-1)!]);
    expect(bindings.RATE_LIMIT_AUTHENTICATED_PER_MINUTE).toBe("7");
    // `$` is kept as written, not expanded as a variable by wrangler's dotenv.
    expect(bindings.JWT_SECRET).toBe("local-$ecret");
    expect(bindings.LEFT_OVER).toBeUndefined();
    expect(bindings.LEFT_OVER_ENV).toBeUndefined();
    expect(bindings.PATH).toBeUndefined();
  });

  it("the test Worker's config is a copy in a folder of its own: wrangler.toml's values, never the developer's .dev.vars or .env", () => {
    // Without the copy, wrangler would read them: what the test run did before issue 44.
    expect(bindingsOf(path.join(dir, "wrangler.toml")).RATE_LIMIT_AUTHENTICATED_PER_MINUTE).toBe("5");
    const copy = testWranglerConfig(dir, path.join(dir, "test-copy"));
    const bindings = bindingsOf(copy);
    expect(bindings.RATE_LIMIT_AUTHENTICATED_PER_MINUTE).toBe("60");
    expect(bindings.LEFT_OVER).toBeUndefined();
    expect(bindings.LEFT_OVER_ENV).toBeUndefined();
    expect(readFileSync(copy, "utf8")).toContain(`main = ${JSON.stringify(path.join(dir, "src/index.ts"))}`);
  });
});

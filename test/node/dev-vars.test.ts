import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIGURATION_VARIABLES, devPort, devVarsFile } from "../../scripts/dev";

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
      .map((line) => [line.slice(0, line.indexOf("=")), JSON.parse(line.slice(line.indexOf("=") + 1))]),
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

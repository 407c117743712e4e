import fs from "node:fs";
import path from "node:path";

/**
 * The wrangler.toml the test Worker is built from: the project's, copied into a folder of its own.
 * wrangler reads `.dev.vars` (else `.env`) from the folder of the config it is given, and
 * vitest-pool-workers offers no way to turn that off; the project's folder holds the developer's
 * own, so a `RATE_LIMIT_…` left there would reach every test (issue 44). The copy's folder holds
 * neither, and the test bindings (vitest.config.ts) say the rest.
 */
export function testWranglerConfig(root: string, into = path.join(root, ".wrangler", "test-config")): string {
  const toml = fs.readFileSync(path.join(root, "wrangler.toml"), "utf8");
  // main is relative to the config's folder: point it back at the project's entry.
  const copied = toml.replace(/^main\s*=\s*"([^"]+)"/m, (_, main: string) => `main = ${JSON.stringify(path.resolve(root, main))}`);
  fs.mkdirSync(into, { recursive: true });
  for (const name of [".dev.vars", ".env"]) fs.rmSync(path.join(into, name), { force: true });
  const target = path.join(into, "wrangler.toml");
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== copied) fs.writeFileSync(target, copied);
  return target;
}

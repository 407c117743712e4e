import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/database";

/**
 * GET /api/v1/docs renders with no internet: `npm run dev` (wrangler dev, the demo tenant), opened
 * in headless Chromium whose every request to a host other than the dev server is aborted.
 * Chromium is Debian's package, installed by scripts/ensure-chromium.sh when missing (as root with
 * apt-get); where it cannot be, the test skips and says why.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

function ensureChromium(): { path: string } | { skip: string } {
  try {
    const out = execFileSync("sh", [path.join(ROOT, "scripts/ensure-chromium.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000 });
    return { path: out.trim().split("\n").at(-1)! };
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? error).trim();
    return { skip: `Chromium is not available (${stderr.split("\n").at(-1)})` };
  }
}

const chromiumPath = ensureChromium();
const skipReason = "skip" in chromiumPath ? chromiumPath.skip : undefined;
if (skipReason) console.warn(`docs-offline.test.ts skipped: ${skipReason}`);

let dev: ChildProcess | undefined;
let browser: Browser | undefined;
let port = 0;

/** `npm run dev`'s script on a free port, until it prints that it runs (it has waited for /health). */
async function startDev(): Promise<ChildProcess> {
  port = await freePort();
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/dev.ts"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: wrangler and workerd end with it
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Sucursal is running on")) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`npm run dev exited (${code}):\n${output.slice(-3000)}`)));
  });
  return child;
}

describe.skipIf(skipReason !== undefined)("GET /api/v1/docs offline, in Chromium", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    dev = await startDev();
    browser = await chromium.launch({
      executablePath: (chromiumPath as { path: string }).path,
      // demo.localhost is the demo tenant's host; wrangler dev listens on 127.0.0.1 only.
      args: ["--host-resolver-rules=MAP demo.localhost 127.0.0.1", "--no-sandbox"],
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (dev?.pid) {
      const exited = new Promise((resolve) => dev!.once("exit", resolve));
      process.kill(-dev.pid, "SIGTERM");
      await exited;
    }
  }, 60_000);

  it("renders operations with nothing fetched from another host", async () => {
    const origin = `http://demo.localhost:${port}`;
    const page = await browser!.newPage();
    const blocked: string[] = [];
    await page.route("**/*", (route) => {
      if (new URL(route.request().url()).origin === origin) return route.continue();
      blocked.push(route.request().url());
      return route.abort("internetdisconnected");
    });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
    page.on("response", (res) => res.status() >= 400 && problems.push(`${res.status()} ${res.url()}`));
    const response = await page.goto(`${origin}/api/v1/docs`);
    expect(response?.status()).toBe(200);

    await page
      .locator(".opblock-summary-path")
      .first()
      .waitFor({ state: "visible", timeout: 60_000 })
      .catch((error) => {
        throw new Error(`${error.message}\n${problems.join("\n")}`);
      });
    // Each operation's path as shown, without the zero-width spaces Swagger UI breaks long paths with.
    const paths = () => page.locator(".opblock-summary-path").evaluateAll((elements) => elements.map((e) => (e.textContent ?? "").replace(/\u200b/g, "")));
    // Operations of the first tag, Auth. (Swagger UI draws tags one after the other; on this machine
    // it had drawn Auth and Inventory and no more within a minute: see docs/api.md, "Docs page".)
    const shown = await paths();
    expect(shown.filter((p) => p === "/api/v1/auth/tokens")).toHaveLength(2); // POST (log in) and GET (list)
    expect(shown).toContain("/api/v1/me");
    expect(await page.locator(".info .title").innerText()).toContain("Sucursal API");
    expect(blocked).toEqual([]);
  });
});

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

  it("renders every operation of the document, with nothing fetched from another host", async () => {
    const origin = `http://demo.localhost:${port}`;
    const page = await browser!.newPage();
    // Swagger UI draws the operations that are in view: a page tall enough holds them all.
    await page.setViewportSize({ width: 1280, height: 40_000 });
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

    // What the document describes: each operation as METHOD path, and its tags.
    // Fetched by the page (Node's resolver does not know demo.localhost).
    const document = (await page.evaluate(() => fetch("/api/v1/openapi.json").then((res) => res.json()))) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const expected = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => ["get", "post", "put", "patch", "delete", "head"].includes(method))
        .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, tags: operation.tags ?? [] })),
    );
    const tags = new Set(expected.flatMap((operation) => operation.tags));
    expect(tags.size).toBeGreaterThan(20);

    await page
      .locator(".opblock-tag")
      .nth(tags.size - 1)
      .waitFor({ state: "visible", timeout: 120_000 })
      .catch((error) => {
        throw new Error(`${error.message}\n${problems.join("\n")}`);
      });
    // Each operation as drawn, without the zero-width spaces Swagger UI breaks long paths with.
    // Swagger UI draws an operation under each of its tags; the webhooks section's entries are not paths.
    const shown = await page
      .locator(".opblock-summary")
      .evaluateAll((elements) =>
        elements
          .filter((e) => !e.closest(".webhooks-container"))
          .map(
            (e) =>
              `${e.querySelector(".opblock-summary-method")?.textContent ?? ""} ${(e.querySelector(".opblock-summary-path")?.textContent ?? "").replace(/\u200b/g, "")}`,
          ),
      );
    expect(new Set(shown)).toEqual(new Set(expected.map((operation) => operation.key)));
    expect(shown).toHaveLength(expected.reduce((sum, operation) => sum + Math.max(1, operation.tags.length), 0));
    expect(await page.locator(".opblock-tag").evaluateAll((elements) => elements.map((e) => e.getAttribute("data-tag")))).toEqual(
      expect.arrayContaining([...tags]),
    );
    expect(await page.locator(".info .title").innerText()).toContain("Sucursal API");
    expect(blocked).toEqual([]);
  });
});

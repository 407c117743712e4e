import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/database";

/**
 * `npm run dev` as a newcomer runs it: the curls it prints answer (the demo's invoices, an E31's
 * PDF). And GET /api/v1/docs renders with no internet: `npm run dev` (wrangler dev, the demo tenant), opened
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
let devOutput = "";
let browser: Browser | undefined;
let port = 0;

/** `npm run dev`'s script on a free port, until it has printed its curls (it has waited for /health and made the demo data). */
async function startDev(): Promise<ChildProcess> {
  port = await freePort();
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/dev.ts"], {
    cwd: ROOT,
    // Its own rate-limit namespace: Redis is shared with other runs of npm run dev, whose demo admin has the same ids.
    // And a setting given to this run only (issue 44): the Worker has it, .dev.vars never does.
    // (The cast: wrangler's generated types give process.env the literal values of wrangler.toml's vars.)
    env: {
      ...process.env,
      PORT: String(port),
      RATE_LIMIT_NAMESPACE: `docs-offline-${process.pid}-${Date.now()}`,
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "997" as "60",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: wrangler and workerd end with it
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      devOutput = output;
      if (output.includes("Ctrl-C stops everything.")) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`npm run dev exited (${code}):\n${output.slice(-3000)}`)));
  });
  return child;
}

/** The DGII stand-in `npm run dev` started (null when the shell pointed it at another DGII). */
const standIn = () => /DGII: local stand-in at (http:\/\/127\.0\.0\.1:\d+)\)/.exec(devOutput)?.[1] ?? null;

/** A control call to the DGII stand-in (scripts/fake-dgii.ts). */
async function dgiiControl(route: string, body: unknown): Promise<void> {
  const res = await fetch(`${standIn()}/_control/${route}`, { method: "POST", body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

/** The demo tenant's API as its admin (the token npm run dev printed), on its host. */
function demoApi<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: { data: T; code?: string } }> {
  const token = /Authorization: Bearer ([^']+)'/.exec(devOutput)![1]!;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: `/api/v1${apiPath}`,
        headers: { Host: `demo.localhost:${port}`, Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The developer's .dev.vars as it was before npm run dev started (null: there was none). */
const devVarsPath = path.join(ROOT, ".dev.vars");
const devVarsBefore = fs.existsSync(devVarsPath) ? fs.readFileSync(devVarsPath, "utf8") : null;

beforeAll(async () => {
  dev = await startDev();
  // The crons' check below starts now, so that the minute it waits for overlaps the other tests:
  // the stand-in's status service reports DGII's reception down (DGII's "PreCertificacion" is testecf).
  if (standIn()) await dgiiControl("dgii-status", { ambiente: "PreCertificacion", servicio: "Recepción", estatus: "No Disponible" });
}, 300_000);

afterAll(async () => {
  if (dev?.pid) {
    const exited = new Promise((resolve) => dev!.once("exit", resolve));
    process.kill(-dev.pid, "SIGTERM");
    await exited;
  }
}, 60_000);

/** A GET of the demo API through node:http (fetch cannot send the tenant's Host): status, headers, body. */
function demoGet(apiPath: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const token = /Authorization: Bearer ([^']+)'/.exec(devOutput)![1]!;
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: `/api/v1${apiPath}`, headers: { Host: `demo.localhost:${port}`, Authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      })
      .on("error", reject);
  });
}

describe("a setting given to npm run dev (issue 44)", () => {
  it("reaches the Worker for that run, and .dev.vars is left as it was", async () => {
    const me = await demoGet("/me");
    expect(me.status).toBe(200);
    expect(me.headers["x-ratelimit-limit"]).toBe("997");
    expect(fs.existsSync(devVarsPath) ? fs.readFileSync(devVarsPath, "utf8") : null).toBe(devVarsBefore);
  });
});

describe("README's worked example", () => {
  it("runs as written against the demo: an E31 issued, its e-CF accepted by the local DGII, the XML and PDF saved, the QR's timbre page showing it accepted", async () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const block = /<!-- worked example: run as written by test\/node\/docs-offline\.test\.ts -->\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "README.md has the worked example").toBeTruthy();
    // As a reader runs it: the token npm run dev printed pasted in, on this run's port.
    const token = /Authorization: Bearer ([^']+)'/.exec(devOutput)![1]!;
    const script = block!.replace(/^TOKEN='…'/m, `TOKEN='${token}'`).replaceAll(":8787", `:${port}`);
    expect(script).toContain(`TOKEN='${token}'`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sucursal-readme-"));
    try {
      const output = execFileSync("sh", ["-e", "-c", script], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      const created = JSON.parse(fs.readFileSync(path.join(dir, "invoice.json"), "utf8")) as {
        data: { id: number; document_number: string; total_amount: string };
      };
      expect(output).toContain('"message":"Invoice created."');
      expect(created.data.document_number).toMatch(/^E31\d{10}$/);
      // 10 × 495.00 + 2,500.00, plus ITBIS 18%: as README prints it.
      expect(created.data.total_amount).toBe("8791.00");
      let ecf: { status: string; encf: string; qr_url: string } | undefined;
      await expect
        .poll(
          async () => {
            ecf = JSON.parse((await demoGet(`/invoices/${created.data.id}/ecf`)).text).data;
            return ecf?.status;
          },
          { timeout: 60_000, interval: 500 },
        )
        .toBe("accepted");
      expect(ecf!.encf).toBe(created.data.document_number);
      expect(fs.readFileSync(path.join(dir, "e-cf.xml"), "utf8")).toContain(`<eNCF>${ecf!.encf}</eNCF>`);
      expect(fs.readFileSync(path.join(dir, "factura.pdf")).subarray(0, 5).toString("latin1")).toBe("%PDF-");
      // The QR opens the local DGII stand-in's timbre page (DGII's consultatimbre), which knows the e-CF it accepted.
      expect(ecf!.qr_url.startsWith(`${standIn()}/testecf/consultatimbre?`)).toBe(true);
      const timbre = await fetch(ecf!.qr_url);
      expect(timbre.status).toBe(200);
      const page = await timbre.text();
      expect(page).toContain(`<th>e-NCF</th><td>${ecf!.encf}</td>`);
      expect(page).toContain("<th>Monto Total</th><td>8791.00</td>");
      expect(page).toContain("<th>Estado</th><td>Aceptado</td>");
      // Another security code is not that e-CF's timbre.
      const forged = await (await fetch(ecf!.qr_url.replace(/codigoseguridad=[^&]*/, "codigoseguridad=AAAAAA"))).text();
      expect(forged).toContain("No fue encontrada la factura (e-CF)");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("npm run dev's printed curls", () => {
  it("list the demo's invoices (its E31 accepted, its B02) and fetch the E31's PDF", () => {
    const curls = devOutput.split("\n").filter((line) => line.startsWith("  curl "));
    expect(curls).toHaveLength(3);
    const run = (line: string) => execFileSync("sh", ["-c", line], { encoding: "latin1", timeout: 60_000 });
    expect(JSON.parse(run(curls[0]!)).data.email).toBe("admin@demo.do");
    const invoices = JSON.parse(run(curls[1]!)).data as { id: number; document_number: string; total_amount: string }[];
    // The PDF's curl names the demo's E31, which the list shows with its B02 (a fresh .dev-data: the newest).
    const pdfOf = Number(/\/invoices\/(\d+)\/pdf/.exec(curls[2]!)?.[1]);
    expect(invoices.find((invoice) => invoice.id === pdfOf)?.document_number).toMatch(/^E31/);
    expect(invoices.some((invoice) => invoice.document_number.startsWith("B02"))).toBe(true);
    // -o writes the file: the same command, its output to stdout instead.
    expect(run(curls[2]!.replace("-o factura-e31.pdf", "-o -")).slice(0, 5)).toBe("%PDF-");
  }, 120_000);
});

describe.skipIf(skipReason !== undefined)("GET /api/v1/docs and the consumer lookup page offline, in Chromium", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: (chromiumPath as { path: string }).path,
      // demo.localhost is the demo tenant's host; wrangler dev listens on 127.0.0.1 only.
      args: ["--host-resolver-rules=MAP demo.localhost 127.0.0.1", "--no-sandbox"],
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
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

  it("the consumer lookup page (/consulta) finds the demo's E32 by e-NCF and security code, on a phone (390x844) and a desktop, and any miss is the one not-found", async () => {
    const origin = `http://demo.localhost:${port}`;
    const token = /Authorization: Bearer ([^']+)'/.exec(devOutput)?.[1];
    expect(token, "npm run dev printed the admin's token").toBeTruthy();
    const page = await browser!.newPage();
    const blocked: string[] = [];
    await page.route("**/*", (route) => {
      if (new URL(route.request().url()).origin === origin) return route.continue();
      blocked.push(route.request().url());
      return route.abort("internetdisconnected");
    });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    // The lookup's Content-Security-Policy blocks nothing the page itself uses (a blocked style or form would say so here).
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
    });
    await page.setViewportSize({ width: 390, height: 844 });
    // The demo's E32, as its admin reads it from the API (fetched by the browser: Node does not resolve demo.localhost),
    // from a page of the host the lookup's policy does not govern (its connect-src is 'none').
    await page.goto(`${origin}/health`);
    const e32 = (await page.evaluate(async (bearer) => {
      const headers = { authorization: `Bearer ${bearer}` };
      const list = (await (await fetch("/api/v1/invoices?per_page=100", { headers })).json()) as { data: { id: number; document_number: string }[] };
      // The demo's own E32, the oldest: a rerun on the same .dev-data also holds the cron check's.
      const invoice = list.data.filter((row) => row.document_number.startsWith("E32")).sort((x, y) => x.id - y.id)[0];
      if (!invoice) return null;
      return ((await (await fetch(`/api/v1/invoices/${invoice.id}/ecf`, { headers })).json()) as { data: { encf: string; security_code: string } }).data;
    }, token!)) as { encf: string; security_code: string } | null;
    expect(e32, "the demo data has an E32").not.toBeNull();
    expect((await page.goto(`${origin}/consulta`))?.status()).toBe(200);

    await page.fill('input[name="encf"]', e32!.encf);
    await page.fill('input[name="codigo"]', e32!.security_code);
    await Promise.all([page.waitForURL(/\/consulta\?encf=/), page.click('button[type="submit"]')]);
    await page.locator("#comprobante").waitFor({ state: "visible" });
    expect(await page.locator("#encf").innerText()).toBe(e32!.encf);
    expect(await page.locator("#codigo").innerText()).toBe(e32!.security_code);
    expect(await page.locator("#titulo").innerText()).toBe("Factura de Consumo Electrónica");
    expect(await page.locator("#lineas tbody tr").count()).toBe(1);
    expect(await page.locator("#totales").innerText()).toContain("1,947.00");
    // The QR drawn, square, inside the phone's width; nothing wider than the screen, no sideways scroll.
    const qr = await page.locator("figure svg").boundingBox();
    expect(qr!.width).toBeGreaterThan(150);
    expect(Math.abs(qr!.width - qr!.height)).toBeLessThan(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    // Each line stacked on the phone: its ITBIS and its value (with their names) on screen, not cut off to the right.
    for (const cell of ["#lineas td.itbis", "#lineas td.valor"]) {
      await expect.poll(() => page.locator(cell).first().isVisible(), { timeout: 5_000 }).toBe(true);
      const box = (await page.locator(cell).first().boundingBox())!;
      expect(box.x, cell).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, cell).toBeLessThanOrEqual(390);
      expect(await page.locator(cell).first().innerText(), cell).toMatch(/^[\d,]+\.\d{2}$/);
      // Its column's name beside it (the table's head is hidden on a phone).
      expect(
        await page
          .locator(cell)
          .first()
          .evaluate((e) => getComputedStyle(e, "::before").content),
        cell,
      ).toBe(cell.endsWith("itbis") ? '"ITBIS"' : '"Valor"');
    }
    for (const id of ["#pdf", "#xml"]) {
      const box = await page.locator(id).boundingBox();
      expect(box!.x + box!.width, id).toBeLessThanOrEqual(390);
    }
    // The downloads answer for the e-NCF and code the page was given (fetched, as above, outside the page's policy).
    const links = await page.evaluate(() => ["#pdf", "#xml"].map((id) => (document.querySelector(id) as HTMLAnchorElement).href));
    await page.goto(`${origin}/health`);
    const downloads = await page.evaluate(async (hrefs) => {
      const head = async (href: string) => {
        const res = await fetch(href);
        return [res.status, res.headers.get("content-type"), (await res.text()).slice(0, 5)];
      };
      return [await head(hrefs[0]!), await head(hrefs[1]!)];
    }, links);
    expect(downloads).toEqual([
      [200, "application/pdf", "%PDF-"],
      [200, "application/xml; charset=utf-8", "<?xml"],
    ]);
    await page.goto(`${origin}/consulta`);

    // A wrong code: the form again and the one not-found message.
    await page.fill('input[name="encf"]', e32!.encf);
    await page.fill('input[name="codigo"]', "000000");
    await Promise.all([page.waitForURL(/codigo=000000/), page.click('button[type="submit"]')]);
    await page.locator("#no-encontrado").waitFor({ state: "visible" });
    expect(await page.locator("#comprobante").count()).toBe(0);

    // A desktop: the same document, the totals beside the lines' right edge.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${origin}/consulta?encf=${e32!.encf}&codigo=${encodeURIComponent(e32!.security_code)}`);
    expect(await page.locator("#encf").innerText()).toBe(e32!.encf);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(problems).toEqual([]);
    expect(blocked).toEqual([]);
  });
});

describe("npm run dev runs wrangler.toml's crons (issue 43)", () => {
  it("says so, and a held e-CF goes to DGII by itself within two minutes of the stand-in reporting reception back", async () => {
    expect(devOutput).toContain(
      `Crons: wrangler.toml's "0 6 * * SUN", "* * * * *", "0 * * * *" fire on their minute (UTC) through /cdn-cgi/handler/scheduled; --no-cron turns them off.`,
    );
    if (!standIn()) return console.warn("docs-offline.test.ts: npm run dev used another DGII; the held e-CF check needs the stand-in");
    type Status = { services: { environment: string; service: string; available: boolean }[] };
    type Ecf = { status: string; last_error: string | null; timeline: { state: string; code: string | null; cause: string | null }[] };
    // The minute cron read DGII's status service: reception down (set in beforeAll).
    const reception = async () =>
      (await demoApi<Status>("GET", "/ecf/dgii-status")).body.data.services.find((s) => s.environment === "testecf" && s.service === "Recepción")?.available;
    // Polled every 5 s: the demo admin may make 60 requests a minute.
    await expect.poll(reception, { timeout: 75_000, interval: 5_000 }).toBe(false);
    // A total contingency (one left open by an earlier run on the same .dev-data is closed first), and an E32 issued under it: held.
    for (const open of (await demoApi<{ id: number; open: boolean }[]>("GET", "/ecf/contingency")).body.data.filter((c) => c.open)) {
      expect((await demoApi("DELETE", `/ecf/contingency/${open.id}`)).status).toBe(200);
    }
    const contingency = await demoApi<{ id: number }>("POST", "/ecf/contingency", { scope: "total", reason: "DGII no recibe (prueba de npm run dev)" });
    expect(contingency.status).toBe(201);
    const subtypes = (await demoApi<{ id: number; prefix: string }[]>("GET", "/document-subtypes?per_page=100")).body.data;
    const taxes = (await demoApi<{ id: number; name: string }[]>("GET", "/taxes?per_page=100")).body.data;
    const consumer = await demoApi<{ id: number }>("POST", "/contacts", { name: "Consumidor (cron)" });
    const service = (await demoApi<{ id: number; sku: string | null }[]>("GET", "/products?per_page=100")).body.data.find((p) => p.sku === "SRV-INS")!;
    const invoice = await demoApi<{ id: number }>("POST", "/invoices", {
      contact_id: consumer.body.data.id,
      document_subtype_id: subtypes.find((row) => row.prefix === "E32")!.id,
      issue_date: new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10),
      items: [{ product_id: service.id, quantity: "1", unit_price: "1000.00", tax_ids: [taxes.find((tax) => tax.name === "ITBIS 18%")!.id] }],
    });
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201);
    const ecf = async () => (await demoApi<Ecf>("GET", `/invoices/${invoice.body.data.id}/ecf`)).body.data;
    await expect
      .poll(async () => (await ecf()).last_error, { timeout: 30_000, interval: 1_000 })
      .toBe(`Paused: held by contingency #${contingency.body.data.id} until it closes.`);

    // DGII's reception back: the minute's status sweep closes the contingency and sends what it held.
    await dgiiControl("dgii-status", { reset: true });
    const back = Date.now();
    await expect.poll(async () => (await ecf()).status, { timeout: 130_000, interval: 3_000 }).toBe("accepted");
    expect(Date.now() - back).toBeLessThan(120_000);
    const { timeline } = await ecf();
    expect(timeline.map((entry) => [entry.state, entry.code])).toEqual([
      ["signed", "issued"],
      ["held", "contingency"],
      ["accepted", "dgii_answer"],
    ]);
    expect(timeline[2]!.cause).toBe(
      "Consumer summary (RFCE) sent to DGII on attempt 1, after the contingency that held it was closed; DGII answered Aceptado.",
    );
    const closed = (await demoApi<{ id: number; closed_how: string | null }[]>("GET", "/ecf/contingency")).body.data.find(
      (c) => c.id === contingency.body.data.id,
    );
    expect(closed?.closed_how).toBe("dgii");
  }, 300_000);
});

/**
 * npm run docs:pictures: a picture of one printed document per kind, for readers of docs/fiscal.md
 * ("The printed document"). On a fresh database (createTestDatabase: DATABASE_URL's server, else
 * 127.0.0.1:5432, else in-memory PGlite) and a demo tenant with a complete fiscal profile, it
 * starts the Worker (wrangler's dev server), creates through the API one B01 invoice (buyer with an
 * RNC, several lines, one with a long wrapping description, ITBIS), one quotation, one credit note
 * and one debit note, fetches each PDF and renders its page 1 to docs/pictures/<kind>.png with
 * mupdf (WASM; no system package). A kind whose endpoint answers 404 is skipped and said so.
 * The database is dropped at the end. Not part of npm test.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import * as mupdf from "mupdf";
import { unstable_startWorker } from "wrangler";
import { normalizeIdentification } from "../src/lib/identification";
import { command, commandLine, isMain, runMain } from "./lib/args";
import { createTestDatabase, type DatabaseTarget, freePort, portAnswers, ROOT } from "./lib/database";
import { createTenantWithToken } from "./lib/tenants";
import { startUpstashRelay, type UpstashRelay } from "./lib/upstash-relay";
import { startWsRelay, type WsRelay } from "./lib/ws-relay";

const PICTURES_DIR = path.join(ROOT, "docs/pictures");
/** Resolution of the pictures: readable on a screen, each file well under 300 KB. */
const DPI = 120;
const MAX_BYTES = 300 * 1024;

const SUBDOMAIN = "demo";
const ISSUE_DATE = "2026-11-20";
const NOTE_DATE = "2026-11-22";

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> & { id: number }; [key: string]: unknown };
  bytes: Uint8Array;
}

/** The API of the demo tenant at the Worker's port, with node:http (fetch would not send our Host header). */
function apiClient(port: number, host: string, token: string) {
  return (method: string, route: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { host, authorization: `Bearer ${token}`, accept: "application/json" };
      if (payload) Object.assign(headers, { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) });
      const request = http.request({ host: "127.0.0.1", port, method, path: `/api/v1${route}`, headers, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const bytes = new Uint8Array(Buffer.concat(chunks));
          const json = (res.headers["content-type"] ?? "").includes("json") && bytes.length ? JSON.parse(Buffer.from(bytes).toString("utf8")) : {};
          resolve({ status: res.statusCode ?? 0, body: json, bytes });
        });
      });
      request.on("timeout", () => request.destroy(new Error(`${method} ${route} timed out`)));
      request.on("error", reject);
      request.end(payload);
    });
}
type Api = ReturnType<typeof apiClient>;

/** The answer's data; anything but `status` is a failure of the script. */
async function expectData(api: Api, method: string, route: string, body: unknown, status = 201) {
  const res = await api(method, route, body);
  if (res.status !== status || !res.body.data) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body.data;
}

/** An RNC with a valid check digit that is not the issuer's. */
function buyerRnc(): string {
  for (let digit = 0; digit < 10; digit++) if (normalizeIdentification("rnc", `10100012${digit}`).ok) return `10100012${digit}`;
  throw new Error("no check digit fits");
}

/** PNG of the PDF's page 1 at DPI. */
function pageOnePng(pdf: Uint8Array, dpi = DPI): Uint8Array {
  const document = mupdf.Document.openDocument(pdf, "application/pdf");
  try {
    const page = document.loadPage(0);
    const pixmap = page.toPixmap(mupdf.Matrix.scale(dpi / 72, dpi / 72), mupdf.ColorSpace.DeviceRGB, false, true);
    return pixmap.asPNG();
  } finally {
    document.destroy();
  }
}

/** The PDF at `route`, fetched as soon as its document exists (the invoice's before any note moves what it shows as due). */
async function pdfOf(api: Api, route: string): Promise<Uint8Array> {
  const res = await api("GET", route);
  if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${Buffer.from(res.bytes).toString("utf8").slice(0, 300)}`);
  return res.bytes;
}

/** Creates the documents; returns, per kind, its PDF (or why the kind is skipped). */
async function createDocuments(api: Api, workspaceId: number): Promise<Record<string, Uint8Array | { skipped: string }>> {
  await expectData(
    api,
    "PATCH",
    "/company",
    {
      trade_name: "Demo Ferretería",
      phone: "809-555-0100",
      email: "facturacion@demo.do",
      municipality_code: "010101",
      province_code: "010000",
      economic_activity: "Venta de materiales de construcción",
    },
    200,
  );
  await expectData(api, "PATCH", `/workspaces/${workspaceId}`, { address: "Calle El Conde 52, Zona Colonial, Santo Domingo", phone: "809-555-0111" }, 200);

  const taxes = (await api("GET", "/taxes?per_page=100", undefined)).body.data as unknown as { id: number; name: string }[];
  const subtypes = (await api("GET", "/document-subtypes?per_page=100", undefined)).body.data as unknown as { id: number; prefix: string }[];
  const tax = (name: string) => taxes.find((t) => t.name === name)!.id;
  const subtype = (prefix: string) => subtypes.find((s) => s.prefix === prefix)!.id;

  const contact = await expectData(api, "POST", "/contacts", {
    name: "Constructora del Caribe SRL",
    email: "compras@caribe.do",
    phone: "809-555-0199",
    identification_type: "rnc",
    identification: buyerRnc(),
  });
  const goods = (name: string, sku: string, price: string, cost: string) =>
    expectData(api, "POST", "/products", { name, sku, price, cost, default_tax_ids: [tax("ITBIS 18%")] });
  const cement = await goods("Cemento gris Portland tipo I, funda de 42.5 kg", "CEM-425", "545.00", "430.00");
  const rods = await goods("Varilla corrugada 3/8 × 20 pies", "VAR-038", "310.00", "240.00");
  const service = await expectData(api, "POST", "/products", {
    name: "Instalación",
    sku: "SRV-INST",
    price: "3500.00",
    product_type: "service",
    track_inventory: false,
  });
  const stock = await api("POST", "/inventory/initial-stock", {
    items: [
      { product_id: cement.id, quantity: "200" },
      { product_id: rods.id, quantity: "500" },
    ],
  });
  if (stock.status !== 201) throw new Error(`POST /inventory/initial-stock: ${stock.status} ${JSON.stringify(stock.body)}`);

  const items = [
    { product_id: cement.id, quantity: "40", unit_price: "545.00", tax_ids: [tax("ITBIS 18%")] },
    { product_id: rods.id, quantity: "120", unit_price: "310.00", discount: "5", tax_ids: [tax("ITBIS 18%")] },
    {
      product_id: service.id,
      quantity: "1",
      unit_price: "18500.00",
      tax_ids: [tax("ITBIS 18%")],
      description:
        "Instalación eléctrica del local comercial según la cotización aprobada: canalización empotrada, " +
        "cableado THHN 12 AWG, 14 tomacorrientes dobles, 9 interruptores, panel de distribución de 24 " +
        "circuitos con breakers, puesta a tierra y certificación final del trabajo por un ingeniero colegiado.",
    },
    { product_id: service.id, quantity: "2", unit_price: "1250.00", tax_ids: [tax("Exento")], description: "Transporte de materiales (exento)" },
  ];

  const pdfs: Record<string, Uint8Array | { skipped: string }> = {};
  const invoice = await expectData(api, "POST", "/invoices", {
    contact_id: contact.id,
    document_subtype_id: subtype("B01"),
    issue_date: ISSUE_DATE,
    due_date: "2026-12-20",
    notes: "Pago a 30 días. Transferencia a Banco Popular, cuenta corriente 700-123456-7 a nombre de Demo SRL.",
    items,
  });
  pdfs.invoice = await pdfOf(api, `/invoices/${invoice.id}/pdf`);

  const quotation = await expectData(api, "POST", "/quotations", {
    contact_id: contact.id,
    document_subtype_id: subtype("COT"),
    issue_date: ISSUE_DATE,
    due_date: "2026-12-20",
    notes: "Válida 30 días. Precios sujetos a disponibilidad.",
    items,
  });
  pdfs.quotation = await pdfOf(api, `/quotations/${quotation.id}/pdf`);

  const lines = (await expectData(api, "GET", `/invoices/${invoice.id}`, undefined, 200)).items as { id: number }[];
  const notes = {
    "credit-note": {
      route: `/invoices/${invoice.id}/credit-notes`,
      body: {
        modification_code: 3,
        reason: "Devolución de 5 fundas de cemento dañadas en el transporte",
        issue_date: NOTE_DATE,
        items: [{ invoice_item_id: lines[0]!.id, quantity: "5" }],
      },
      pdf: (id: number) => `/credit-notes/${id}/pdf`,
    },
    "debit-note": {
      route: `/invoices/${invoice.id}/debit-notes`,
      body: {
        modification_code: 3,
        reason: "Intereses por mora",
        issue_date: NOTE_DATE,
        items: [{ description: "Intereses por mora, 2 % mensual", amount: "1500.00", tax_ids: [tax("ITBIS 18%")] }],
      },
      pdf: (id: number) => `/debit-notes/${id}/pdf`,
    },
  };
  for (const [kind, note] of Object.entries(notes)) {
    const res = await api("POST", note.route, note.body);
    if (res.status === 404) {
      pdfs[kind] = { skipped: `POST /api/v1${note.route.replace(String(invoice.id), "{id}")} answered 404` };
      continue;
    }
    if (res.status !== 201 || !res.body.data) throw new Error(`POST ${note.route}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    pdfs[kind] = await pdfOf(api, note.pdf(res.body.data.id));
  }
  return pdfs;
}

export const COMMAND = command({
  usage: `Usage: npm run docs:pictures

Renders page 1 of one invoice, quotation, credit note and debit note PDF to docs/pictures/, made
through the API of a Worker on a fresh database that is dropped at the end. Takes no options.`,
  options: {},
});

async function main(): Promise<number> {
  commandLine(COMMAND);
  const temporary = fs.mkdtempSync(path.join(os.tmpdir(), "sucursal-pictures-"));
  let database: DatabaseTarget | undefined;
  let relay: WsRelay | undefined;
  let upstash: UpstashRelay | null = null;
  let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
  try {
    database = await createTestDatabase("sucursal_pictures");
    relay = await startWsRelay();
    upstash = (await portAnswers("127.0.0.1", 6379)) ? await startUpstashRelay() : null;
    const jwtSecret = randomBytes(32).toString("hex");
    const created = await createTenantWithToken(database.ownerUrl, jwtSecret, {
      subdomain: SUBDOMAIN,
      name: "Demo SRL",
      adminEmail: "admin@demo.do",
      adminPassword: randomBytes(12).toString("hex"),
      adminName: "Demo Admin",
      rnc: "131246796",
      legalName: "Demo SRL",
      address: "Av. Winston Churchill 1099, Piantini, Santo Domingo",
      demoSequences: true,
    });

    const port = await freePort();
    const envPath = path.join(temporary, "pictures.env");
    const vars: Record<string, string | undefined> = {
      DATABASE_URL: database.appUrl,
      DB_SET_ROLE: database.setRole,
      DB_WS_PROXY: relay.url,
      JWT_SECRET: jwtSecret,
      UPSTASH_REDIS_REST_URL: upstash?.url,
      UPSTASH_REDIS_REST_TOKEN: upstash?.token,
      RATE_LIMIT_NAMESPACE: `pictures-${Date.now()}`,
      APP_URL: `http://${SUBDOMAIN}.localhost:${port}`,
      APP_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    fs.writeFileSync(
      envPath,
      `${Object.entries(vars)
        .filter(([, v]) => v)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join("\n")}\n`,
    );
    process.env.WRANGLER_SEND_METRICS = "false";
    process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
    process.env.WRANGLER_HIDE_BANNER = "true";
    process.env.XDG_CONFIG_HOME ??= path.join(ROOT, ".config");
    worker = await unstable_startWorker({
      config: path.join(ROOT, "wrangler.toml"),
      // As bench/worker-host.ts: unstable_startWorker does not derive the bundle's Node.js
      // compatibility from wrangler.toml's nodejs_compat (the signer's node:crypto, xml-crypto).
      build: { nodejsCompatMode: "v2" },
      envFiles: [envPath],
      dev: {
        server: { hostname: "127.0.0.1", port },
        inspector: false,
        watch: false,
        liveReload: false,
        logLevel: "warn",
        persist: path.join(temporary, "state"),
      },
    });
    await worker.ready;
    const api = apiClient(port, `${SUBDOMAIN}.localhost:${port}`, created.token);

    const pdfs = await createDocuments(api, created.workspace.id);
    fs.mkdirSync(PICTURES_DIR, { recursive: true });
    let failures = 0;
    for (const [kind, pdf] of Object.entries(pdfs)) {
      if (!(pdf instanceof Uint8Array)) {
        console.log(`${kind}: skipped (${pdf.skipped})`);
        continue;
      }
      const png = pageOnePng(pdf);
      const file = path.join(PICTURES_DIR, `${kind}.png`);
      fs.writeFileSync(file, png);
      const size = `${Math.round(png.length / 1024)} KB`;
      if (png.length > MAX_BYTES) failures++;
      console.log(`${kind}: ${path.relative(ROOT, file)} (${size}${png.length > MAX_BYTES ? `, over ${MAX_BYTES / 1024} KB` : ""})`);
    }
    return failures ? 1 : 0;
  } finally {
    await worker?.dispose().catch(() => undefined);
    await upstash?.close().catch(() => undefined);
    await relay?.close().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    fs.rmSync(temporary, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) runMain(main);

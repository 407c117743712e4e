import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { DgiiRecord } from "../../bench/rnc-generator";
import { dgiiLine, dgiiText } from "../../bench/rnc-generator";
import worker from "../../src/index";
import { runWorkerRncSync, workerStore } from "../../src/jobs/rnc-sync";
import { utf8Length } from "../../src/modules/rnc/sync/parse";
import { openUrl, runRncSync, type SyncOptions } from "../../src/modules/rnc/sync/sync";
import type { ApiResponse } from "../support/api";
import { env } from "../support/env";
import { catalogIds, createContact } from "../support/sales";
import { type SeededTenant, seedTenant } from "../support/seed";
import { createProduct } from "../support/stock";
import { buildFile, captureQueue, deliver, fileServer, leftovers, type Row, registry, runRow, serveFile, streamedZip } from "./helpers";

/*
 * The registry is global, so everything that syncs or reads it lives in this one file and runs in
 * order: first sync (through the cron handler), second sync (through the sync function with a URL),
 * failures that must change nothing, then lookup and search over the second file.
 */

const FIRST_HAND: DgiiRecord[] = [
  { identification: "101000001", name: "MARÍA PEÑA FERNÁNDEZ", status: "ACTIVO" },
  { identification: "101000002", name: "COMERCIAL ÑANDÚ SRL", comercialName: "FERRETERÍA EL MARTILLO", status: "SUSPENDIDO" },
  { identification: "101000003", name: "SE VA DEL REGISTRO SA", status: "ACTIVO" },
  { identification: "101000004", name: "NOMBRE VIEJO SRL", status: "ACTIVO" },
];

const SEARCH_FIXTURES: DgiiRecord[] = [
  { identification: "131000001", name: "ZAPATERÍA YÁÑEZ", status: "ACTIVO" },
  { identification: "131000002", name: "YÁÑEZ & ASOCIADOS SRL", status: "ACTIVO" },
  { identification: "131000003", name: "GRUPO FERRETERO", comercialName: "YAÑEZ HERMANOS", status: "INACTIVO" },
  { identification: "131000004", name: "ALMACENES DEL YANEZ", status: "ACTIVO" },
  { identification: "13100000300", name: "PERSONA DE PRUEBA", status: "ACTIVO" },
  { identification: "40131000003", name: "OTRA PERSONA DE PRUEBA", status: "SUSPENDIDO" },
  { identification: "131000010", name: "HERMANAS ÁLVAREZ", comercialName: "BOUTIQUE ÁLVAREZ", status: "ACTIVO" },
  ...Array.from({ length: 12 }, (_, i) => ({
    identification: String(132000001 + i),
    name: `BODEGA NÚMERO ${String(i + 1).padStart(2, "0")}`,
    status: "ACTIVO",
  })),
];

const SECOND_HAND: DgiiRecord[] = [
  FIRST_HAND[0]!,
  { ...FIRST_HAND[1]!, status: "ACTIVO" },
  { identification: "101000004", name: "NOMBRE NUEVO SRL", status: "DADO DE BAJA" },
  ...SEARCH_FIXTURES,
  // Buyers of invoices (valid check digits, as contacts need): one suspended, one active.
  { identification: "133000008", name: "COMPRADOR SUSPENDIDO SRL", status: "SUSPENDIDO" },
  { identification: "133000016", name: "COMPRADOR AL DIA SRL", status: "ACTIVO" },
];

// 3,000 synthetic records (several Queue messages) plus the hand-written ones; the second file
// drops every 50th synthetic record, renames or re-statuses some (version 1) and adds 200.
const first = buildFile({ from: 0, to: 3000, version: 0, extra: FIRST_HAND });
const second = buildFile({ from: 0, to: 3200, version: 1, skip: (i) => i % 50 === 0, extra: SECOND_HAND });

const find = (rows: Row[], id: string) => rows.find((r) => r.identification === id);

describe("RNC registry sync", () => {
  it("the cron handler streams the file into Queue batches and the consumer writes them", async () => {
    expect(await registry()).toEqual([]);
    await serveFile("DGII_RNC.zip", first.zip); // the URL in TAX_AUTHORITY_DATA_URL
    const { queue, messages } = captureQueue();
    const ctx = createExecutionContext();
    await worker.scheduled!(
      createScheduledController({ cron: "0 6 * * SUN", scheduledTime: new Date("2026-11-22T06:00:00Z") }),
      { ...env, RNC_SYNC_QUEUE: queue as unknown as Queue },
      ctx,
    );
    await waitOnExecutionContext(ctx);

    expect(messages.length).toBeGreaterThanOrEqual(2);
    for (const message of messages) expect(utf8Length(JSON.stringify(message))).toBeLessThan(128 * 1024 - 1024);
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
    const runId = messages[0]!.runId;
    const parsed = await runRow(runId);
    expect(parsed).toMatchObject({
      status: "running",
      trigger: "cron",
      source: `${fileServer()}/files/DGII_RNC.zip`,
      batches_expected: messages.length,
      batches_done: 0,
      lines_read: first.expected.length + first.malformed,
      lines_rejected: first.malformed,
    });
    expect((parsed.rejections as unknown[]).length).toBe(first.malformed);

    // Everything but the last batch: the run is still running and readers still see nothing new.
    for (const message of messages.slice(0, -1)) expect((await deliver([message])).explicitAcks).toHaveLength(1);
    expect(await registry()).toEqual([]);
    expect(await runRow(runId)).toMatchObject({ status: "running", batches_done: messages.length - 1 });

    const last = await deliver([messages.at(-1)]);
    expect(last.explicitAcks).toHaveLength(1);
    expect(last.retryMessages).toEqual([]);
    const done = await runRow(runId);
    expect(done).toMatchObject({ status: "completed", batches_done: messages.length, records_written: first.expected.length, error: null });
    expect(done.finished_at).not.toBeNull();
    expect(await registry()).toEqual(first.expected);
    expect(find(await registry(), "101000002")).toEqual({
      identification: "101000002",
      name: "COMERCIAL ÑANDÚ SRL",
      comercial_name: "FERRETERÍA EL MARTILLO",
      status: "SUSPENDIDO",
    });
    expect(await leftovers()).toEqual({ generations: 1, receipts: 0 });

    // A redelivered message after completion changes nothing.
    expect((await deliver([messages[0]])).explicitAcks).toHaveLength(1);
    expect(await registry()).toEqual(first.expected);
  });

  it("a second sync with changed, added and removed records ends equal to the new file, old data readable throughout", async () => {
    const url = await serveFile("second.zip", second.zip);
    const { queue, messages } = captureQueue();
    const result = await runWorkerRncSync(env, { url, queue, trigger: "test" });
    expect(result).toMatchObject({ status: "running", batches: messages.length });

    const half = Math.floor(messages.length / 2);
    for (const message of messages.slice(0, half)) await deliver([message]);
    await deliver([messages[0]]); // redelivered: its receipt makes it a no-op
    // Mid-run the readers still see exactly the first file: removed records too, old values too.
    expect(await registry()).toEqual(first.expected);
    expect(await runRow(result.runId)).toMatchObject({ status: "running", batches_done: half });

    for (const message of messages.slice(half)) await deliver([message]);
    expect(await runRow(result.runId)).toMatchObject({ status: "completed", batches_done: messages.length });
    const rows = await registry();
    expect(rows).toEqual(second.expected);
    expect(find(rows, "101000003")).toBeUndefined();
    expect(find(rows, "101000004")).toEqual({ identification: "101000004", name: "NOMBRE NUEVO SRL", comercial_name: "", status: "DADO DE BAJA" });
    expect(find(rows, "101000002")?.status).toBe("ACTIVO");
    expect(find(rows, "100000000")).toBeUndefined(); // synthetic record 0 was dropped
    expect(await leftovers()).toEqual({ generations: 1, receipts: 0 });
  });

  it("an unreachable URL, an HTTP error, a corrupt ZIP, a ZIP without the TXT or a file of only bad lines fail the run and change nothing", async () => {
    const before = await registry();
    const valid = second.zip;
    const corruptLate = valid.slice();
    for (let i = valid.length - 2000; i < valid.length - 1000; i++) corruptLate[i] = 0x55; // fails after some batches were sent
    const { dgiiLine, dgiiText, dgiiZip } = await import("../../bench/rnc-generator");
    const cases: [string, RegExp][] = [
      ["http://127.0.0.1:9/DGII_RNC.zip", /^download failed: /],
      [`${fileServer()}/status/503`, /^download failed: HTTP 503$/],
      [`${fileServer()}/files/missing.zip`, /^download failed: HTTP 404$/],
      [await serveFile("corrupt.zip", corruptLate), /^corrupt ZIP/],
      [await serveFile("truncated.zip", valid.slice(0, valid.length - 500)), /^corrupt ZIP/],
      [await serveFile("html.zip", new TextEncoder().encode("<html>mantenimiento</html>")), /^the download is not a ZIP file$/],
      [
        await serveFile("other.zip", dgiiZip(dgiiText([dgiiLine({ identification: "101000001", name: "X", status: "ACTIVO" })]), "TMP/OTRO.TXT")),
        /^the ZIP holds no TMP\/DGII_RNC\.TXT$/,
      ],
      [await serveFile("bad-lines.zip", dgiiZip(dgiiText(["a|b", "|||||||||||"]))), /^the file holds no valid records$/],
    ];
    for (const [url, reason] of cases) {
      const { queue, messages } = captureQueue();
      const result = await runWorkerRncSync(env, { url, queue, trigger: "test" });
      expect(result.status, url).toBe("failed");
      expect(result.error).toMatch(reason);
      const run = await runRow(result.runId);
      expect(run).toMatchObject({ status: "failed" });
      expect(run.error).toMatch(reason);
      // Batches sent before the failure are acknowledged and skipped.
      for (const message of messages) expect((await deliver([message])).explicitAcks).toHaveLength(1);
      expect(await registry()).toEqual(before);
      expect(await leftovers()).toEqual({ generations: 1, receipts: 0 });
    }
  });

  it("a batch that keeps failing is retried, then fails the run, leaving the registry as it was", async () => {
    const before = await registry();
    const { queue, messages } = captureQueue();
    const result = await runWorkerRncSync(env, { url: await serveFile("third.zip", first.zip), queue, trigger: "test" });
    await deliver([messages[0]]);
    const poisoned = { ...messages[1]!, records: [[null, "SIN ID", "", "ACTIVO"]] };
    const retried = await deliver([poisoned], 1);
    expect(retried.retryMessages).toHaveLength(1);
    expect(await runRow(result.runId)).toMatchObject({ status: "running" });
    const final = await deliver([poisoned], 6);
    expect(final.explicitAcks).toHaveLength(1);
    const run = await runRow(result.runId);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^batch 1 could not be written/);
    expect(await registry()).toEqual(before);
    expect(await leftovers()).toEqual({ generations: 1, receipts: 0 });
  });
});

describe("RNC import limits", () => {
  const syncWith = async (url: string, options: Partial<SyncOptions> = {}) => {
    const { queue, messages } = captureQueue();
    const result = await runRncSync({ store: workerStore(env), queue, source: url, trigger: "test", open: openUrl(url), ...options });
    for (const message of messages) expect((await deliver([message])).explicitAcks).toHaveLength(1);
    return { result, run: await runRow(result.runId) };
  };

  it("a TXT that inflates beyond the cap fails the run, registry unchanged, whether or not the local header declares its size", async () => {
    const before = await registry();
    expect(before).toEqual(second.expected);
    const text = dgiiText(second.lines);
    expect(text.length).toBeGreaterThan(100_000);
    for (const [name, zip] of [
      ["declared.zip", second.zip],
      ["streamed.zip", streamedZip(text)],
    ] as const) {
      const { result, run } = await syncWith(await serveFile(name, zip), { maxUncompressedBytes: 100_000 });
      expect(result.status, name).toBe("failed");
      expect(run.error, name).toBe("TMP/DGII_RNC.TXT is larger than 100000 bytes uncompressed");
      expect(await registry()).toEqual(before);
      expect(await leftovers()).toEqual({ generations: 1, receipts: 0 });
    }
    // The streamed ZIP itself is fine under the real cap (512 MiB).
    const { run } = await syncWith(await serveFile("streamed-ok.zip", streamedZip(text)));
    expect(run.status).toBe("completed");
    expect(await registry()).toEqual(second.expected);
  });

  it("a line over 4,096 characters is skipped and counted as rejected, a 200,000-character one without being held whole", async () => {
    // Both would be valid records but for their length: nothing of them reaches the registry.
    const long = dgiiLine({ identification: "109999991", name: "N".repeat(5000), status: "ACTIVO" });
    const huge = dgiiLine({ identification: "109999992", name: "H".repeat(200_000), status: "ACTIVO" });
    const lines = [...second.lines.slice(0, 1000), long, ...second.lines.slice(1000), huge];
    const { result, run } = await syncWith(await serveFile("long-lines.zip", streamedZip(dgiiText(lines))));
    expect(result.status).toBe("running");
    expect(run).toMatchObject({ status: "completed", lines_read: lines.length, lines_rejected: second.malformed + 2 });
    const rejections = run.rejections as { line: number; reason: string }[];
    expect(rejections).toHaveLength(second.malformed + 2); // under the 10 kept
    expect(rejections.filter((r) => r.reason === "line longer than 4096 characters").map((r) => r.line)).toEqual([1001, lines.length]);
    expect(await registry()).toEqual(second.expected);
  });

  it("a file with under 50 % of the current registry's records is refused, registry unchanged; the operator's --force replaces it", async () => {
    const before = await registry();
    const small = buildFile({ from: 0, to: Math.floor(before.length / 2) - 50, version: 2, extra: [] });
    expect(small.expected.length * 2).toBeLessThan(before.length);
    const url = await serveFile("small.zip", small.zip);
    // The cron's path (runWorkerRncSync) never forces.
    const { queue, messages } = captureQueue();
    const refused = await runWorkerRncSync(env, { url, queue, trigger: "test" });
    for (const message of messages) expect((await deliver([message])).explicitAcks).toHaveLength(1);
    const reason = `refused: the file holds ${small.expected.length} valid records, under 50 % of the current registry's ${before.length}; the registry is unchanged (an operator can replace it with npm run rnc:sync -- --force)`;
    expect(refused).toMatchObject({ status: "failed", error: reason });
    expect(await runRow(refused.runId)).toMatchObject({ status: "failed", error: reason });
    expect(await registry()).toEqual(before);
    expect(await leftovers()).toEqual({ generations: 1, receipts: 0 });

    const forced = await syncWith(url, { force: true });
    expect(forced.run).toMatchObject({ status: "completed", records_written: small.expected.length });
    expect(await registry()).toEqual(small.expected);
    // Back to the second file: more records than the current registry, so not refused.
    expect((await syncWith(await serveFile("second-again.zip", second.zip))).run.status).toBe("completed");
    expect(await registry()).toEqual(second.expected);
  });
});

describe("RNC lookup and search", () => {
  let tenant: SeededTenant;
  beforeAll(async () => {
    tenant = await seedTenant();
  });

  it("looks up a record by RNC or cédula, with dashes, warning when not ACTIVO", async () => {
    const active = await tenant.api.get("/rnc/131000002");
    expect(active.status).toBe(200);
    expect(active.body).toEqual({ data: { identification: "131000002", name: "YÁÑEZ & ASOCIADOS SRL", comercial_name: "", status: "ACTIVO" } });

    const inactive = await tenant.api.get("/rnc/131-00000-3");
    expect(inactive.status).toBe(200);
    expect(inactive.body).toEqual({
      data: { identification: "131000003", name: "GRUPO FERRETERO", comercial_name: "YAÑEZ HERMANOS", status: "INACTIVO" },
      warning: "RNC 131000003 is INACTIVO in the DGII registry, not ACTIVO.",
    });

    const cedula = await tenant.api.get("/rnc/401-3100000-3");
    expect(cedula.status).toBe(200);
    expect(cedula.body.data.name).toBe("OTRA PERSONA DE PRUEBA");
    expect(cedula.body.warning).toBe("RNC 40131000003 is SUSPENDIDO in the DGII registry, not ACTIVO.");
  });

  it("contacts whose RNC the registry knows carry its taxpayer record", async () => {
    const known = await tenant.api.post("/contacts", { name: "Yáñez", identification_type: "rnc", identification: "1-31-00000-2" });
    expect(known.status).toBe(201);
    expect(known.body.data.taxpayer).toEqual({ name: "YÁÑEZ & ASOCIADOS SRL", comercial_name: "", status: "ACTIVO" });
    const passport = await tenant.api.post("/contacts", { name: "Visitante", identification_type: "passport", identification: "PA1234567" });
    expect(passport.body.data.taxpayer).toBeNull();
    const list = await tenant.api.get("/contacts?sort=id");
    expect(list.body.data.map((c: { taxpayer: unknown }) => c.taxpayer)).toEqual([
      { name: "YÁÑEZ & ASOCIADOS SRL", comercial_name: "", status: "ACTIVO" },
      null,
    ]);
    expect((await tenant.api.get(`/contacts/${known.body.data.id}`)).body.data.taxpayer.status).toBe("ACTIVO");
  });

  /** A write naming a party by RNC: SUSPENDIDO (133000008) and unlisted (133000024) warn, ACTIVO (133000016) does not. */
  async function expectRegistryWarnings(write: (identification: string) => Promise<ApiResponse>, role: "buyer" | "supplier", field: string) {
    const suspended = await write("133000008");
    expect(suspended.status, suspended.text).toBe(201);
    expect(suspended.body.warnings).toEqual([
      { code: `${role}_not_active`, field, message: `The ${role}'s status in DGII's RNC registry is SUSPENDIDO, not ACTIVO.` },
    ]);
    const active = await write("133000016");
    expect(active.status).toBe(201);
    expect(active.body.warnings).toEqual([]);
    const unknown = await write("133000024");
    expect(unknown.status).toBe(201);
    expect(unknown.body.warnings).toEqual([{ code: `${role}_not_in_registry`, field, message: `The ${role}'s RNC 133000024 is not in DGII's RNC registry.` }]);
  }

  it("a fiscal invoice to a buyer the registry lists other than ACTIVO, or an RNC it does not list, carries a warning, not a refusal", async () => {
    const ids = await catalogIds(tenant.api);
    const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
    const issue = async (identification: string) => {
      const contact = await createContact(tenant.api, { identification });
      return tenant.api.post("/invoices", {
        contact_id: contact.id,
        document_subtype_id: ids.b01,
        issue_date: "2026-11-20",
        items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [] }],
      });
    };
    await expectRegistryWarnings(issue, "buyer", "contact_id");
  });

  it("a purchase from a supplier the registry lists other than ACTIVO, or whose RNC it does not list, carries a warning, not a refusal", async () => {
    // A tenant of its own: the invoice test above made contacts of these RNCs in the shared one.
    const buyer = await seedTenant();
    const product = await createProduct(buyer.api, { product_type: "service", track_inventory: false });
    const enter = async (identification: string) => {
      const supplier = await createContact(buyer.api, { identification, contact_type: "supplier" });
      return buyer.api.post("/purchases", {
        supplier_id: supplier.id,
        supplier_ncf: "B0100000001",
        issue_date: "2026-11-20",
        expense_type: "02",
        items: [{ product_id: product.id, quantity: "1", unit_cost: "100.00", tax_ids: [] }],
      });
    };
    await expectRegistryWarnings(enter, "supplier", "supplier_id");
  });

  it("answers 404 for an unknown or removed RNC and 422 for a malformed one", async () => {
    for (const id of ["999999999", "101000003"]) {
      const res = await tenant.api.get(`/rnc/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "RNC not found.", code: "not_found" });
    }
    for (const id of ["12345", "1234567890", "13100000A", "-131000003", "131000003-"]) {
      const res = await tenant.api.get(`/rnc/${id}`);
      expect(res.status, id).toBe(422);
      expect(res.body).toEqual({
        message: "The given data was invalid.",
        code: "validation_failed",
        errors: { identification: ["The identification must have 9 (RNC) or 11 (cédula) digits; dashes are allowed."] },
      });
    }
  });

  it("ranks exact identification, then prefixes, then the rest", async () => {
    const byId = await tenant.api.get("/rnc?search=131000003");
    expect(byId.status).toBe(200);
    expect(byId.body.data.map((r: Row) => r.identification)).toEqual(["131000003", "13100000300", "40131000003"]);
    const dashed = await tenant.api.get("/rnc?search=131-00000-3");
    expect(dashed.body).toEqual(byId.body);

    const byName = await tenant.api.get("/rnc?search=yanez");
    expect(byName.status).toBe(200);
    expect(byName.body.data).toEqual([
      {
        identification: "131000003",
        name: "GRUPO FERRETERO",
        comercial_name: "YAÑEZ HERMANOS",
        status: "INACTIVO",
        warning: "RNC 131000003 is INACTIVO in the DGII registry, not ACTIVO.",
      },
      { identification: "131000002", name: "YÁÑEZ & ASOCIADOS SRL", comercial_name: "", status: "ACTIVO" },
      { identification: "131000004", name: "ALMACENES DEL YANEZ", comercial_name: "", status: "ACTIVO" },
      { identification: "131000001", name: "ZAPATERÍA YÁÑEZ", comercial_name: "", status: "ACTIVO" },
    ]);
  });

  it("is case- and accent-insensitive both ways", async () => {
    for (const term of ["alvarez", "ÁLVAREZ", "Álvarez", "boutique alvarez", "HERMANAS  álvarez"]) {
      const res = await tenant.api.get(`/rnc?search=${encodeURIComponent(term)}`);
      expect(res.status, term).toBe(200);
      expect(
        res.body.data.map((r: Row) => r.identification),
        term,
      ).toEqual(["131000010"]);
    }
    const maria = await tenant.api.get("/rnc?search=maria");
    expect(maria.body.data).toHaveLength(10);
    for (const r of maria.body.data as Row[]) expect(`${r.name} ${r.comercial_name}`.normalize("NFD").replace(/[\u0300-\u036f]/g, "")).toMatch(/MARIA/);
  });

  it("returns at most 10 records, and nothing for a term nobody has", async () => {
    const res = await tenant.api.get("/rnc?search=bodega%20numero");
    expect(res.status).toBe(200);
    // 12 records match, all as prefixes: 10 of them come back, distinct and ordered by name.
    const names: string[] = res.body.data.map((r: Row) => r.name);
    expect(names).toHaveLength(10);
    expect(new Set(names).size).toBe(10);
    for (const name of names) expect(name).toMatch(/^BODEGA NÚMERO (0[1-9]|1[0-2])$/);
    expect(names).toEqual([...names].sort());
    const none = await tenant.api.get("/rnc?search=zzzqqq");
    expect(none.body).toEqual({ data: [] });
    const wildcard = await tenant.api.get("/rnc?search=%25%25%25");
    expect(wildcard.body).toEqual({ data: [] });
  });

  it("refuses a term shorter than 3 characters, a missing term and unknown parameters with 422", async () => {
    const short = await tenant.api.get("/rnc?search=%20ab%20");
    expect(short.status).toBe(422);
    expect(short.body).toEqual({
      message: "The given data was invalid.",
      code: "validation_failed",
      errors: { search: ["The search term must have at least 3 characters."] },
    });
    const missing = await tenant.api.get("/rnc");
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["search"]);
    const unknown = await tenant.api.get("/rnc?search=maria&page=2");
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe("validation_failed");
  });

  it("requires a token", async () => {
    const res = await tenant.api.as(undefined).get("/rnc/131000002");
    expect(res.status).toBe(401);
  });
});

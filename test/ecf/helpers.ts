import { expect, vi } from "vitest";
import type { Data } from "../support/api";
import { makeCertificate, type TestCertificate } from "../support/certificates";
import { today } from "../support/dates";
import { env } from "../support/env";
import { runQueue } from "../support/jobs";
import { catalogIds, createContact, freshRnc } from "../support/sales";
import { ownerRow, ownerRows, type SeededTenant, seedTenant, sql, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";

/** The fake DGII (scripts/fake-dgii.ts), started by the test setup. */
export const fakeDgii = (env as unknown as { TEST_FAKE_DGII_URL: string }).TEST_FAKE_DGII_URL;

/** What the fake DGII received from a signer (its certificate's CN). */
export interface Received {
  kind: "ecf" | "rfce";
  encf: string;
  rnc: string;
  trackId: string | null;
  fileName: string;
  errors: string[];
  xml: string;
  /** The fake's verdict on it, once judged. */
  final?: string | null;
}

export async function received(signer: string): Promise<Received[]> {
  return (await (await fetch(`${fakeDgii}/_control/received?signer=${encodeURIComponent(signer)}`)).json()) as Received[];
}

/**
 * Scripts the fake DGII for one signer: the next `down` calls answer 503; the next result queries
 * answer `results`; the next call to each `answers[].service` answers that status and body instead.
 */
export async function script(
  signer: string,
  body: {
    down?: number;
    drop?: number;
    unindexed?: number;
    results?: string[];
    reject?: string[];
    answers?: { service: string; status: number; body: unknown }[];
  },
): Promise<void> {
  const res = await fetch(`${fakeDgii}/_control/script`, { method: "POST", body: JSON.stringify({ signer, ...body }) });
  expect(res.status).toBe(200);
}

export interface EcfTenant {
  tenant: SeededTenant;
  /** The CN of the tenant's certificate: how the fake DGII tells tenants apart. */
  signer: string;
  /** The company's RNC (a fresh one per tenant, as DGII knows each issuer by its RNC). */
  rnc: string;
  /** Its certificate (to call the fake DGII as the tenant would). */
  cert: TestCertificate;
  ids: Awaited<ReturnType<typeof catalogIds>>;
  contact: { id: number; name: string };
  service: { id: number };
  /** An E-series subtype of the tenant, created on first use. */
  subtype(prefix: string, body?: Record<string, unknown>): Promise<number>;
}

/** A tenant with e-CF on (its own certificate, environment testecf), a buyer with an RNC and a service. */
export async function ecfTenant(): Promise<EcfTenant> {
  const tenant = await seedTenant();
  const rnc = freshRnc();
  expect((await tenant.api.patch("/company", { rnc })).status).toBe(200);
  const signer = uniqueName("EMISOR ");
  const cert = await makeCertificate({ commonName: signer, holderId: rnc });
  expect((await tenant.api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password })).status).toBe(200);
  expect((await tenant.api.put("/ecf/settings", { environment: "testecf", enabled: true })).status).toBe(200);
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api);
  const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  const subtypes = new Map<string, number>();
  return {
    tenant,
    signer,
    rnc,
    cert,
    ids,
    contact,
    service,
    async subtype(prefix, body = {}) {
      const known = subtypes.get(prefix);
      if (known) return known;
      const res = await tenant.api.post("/document-subtypes", {
        name: uniqueName(`${prefix} `),
        type: prefix === "E33" ? "debit_note" : prefix === "E34" ? "credit_note" : "invoice",
        prefix,
        start_number: 1,
        end_number: 1000,
        valid_until: "2027-12-31",
        authorization_number: "AUT-ECF-0001",
        authorized_at: "2026-05-01",
        ...body,
      });
      expect(res.status, res.text).toBe(201);
      subtypes.set(prefix, res.body.data.id);
      return res.body.data.id as number;
    },
  };
}

/** An E31 invoice of one service line at `unitPrice` with ITBIS 18%, to the tenant's buyer. */
export async function issueE31(t: EcfTenant, api = t.tenant.api, unitPrice = "100") {
  const res = await api.post("/invoices", {
    contact_id: t.contact.id,
    document_subtype_id: await t.subtype("E31"),
    issue_date: today(),
    items: [{ product_id: t.service.id, quantity: "1", unit_price: unitPrice, tax_ids: [t.ids.itbis18] }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: number; document_number: string; total_amount: string; issue_date: string };
}

export interface EcfView {
  encf: string;
  type: string;
  status: string;
  track_id: string | null;
  security_code: string;
  signed_at: string;
  qr_url: string | null;
  dgii_messages: { codigo: string; valor: string }[];
  sequence_used: boolean | null;
  consumer_summary: boolean;
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
  total_amount: string;
}

export async function ecfOf(t: EcfTenant, path: string, api = t.tenant.api): Promise<EcfView> {
  const res = await api.get<Data<EcfView>>(`${path}/ecf`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The states in which an e-CF still has a step to take (jobs/ecf.ts). */
const OPEN = new Set(["pending", "in_process"]);

/** A wait DGII's 429 or 503 put on the company (modules/ecf/dgii-pace.ts) is a due time too: brought to the present. */
async function endDgiiWait(tenantId: number) {
  await ownerRows(sql`UPDATE ecf_dgii_backoff SET until = LEAST(until, now()) WHERE tenant_id = ${tenantId} RETURNING tenant_id`);
}

/**
 * Makes the e-CF's next step due now and hands it to the Worker's consumer: its due time
 * (next_attempt_at, the backoff between steps, and the company's wait) is brought to the present, as the owner, and its
 * message is put on ECF_QUEUE, which miniflare delivers at once (vitest.config.ts). The step runs
 * in the Worker's own module instance, as the request did: its caches (DGII's token) are the ones
 * a test counts. A step already under way holds the row (SKIP LOCKED) or has moved it on: this
 * message then does nothing.
 */
export async function stepNow(tenantId: number, ecfId: number) {
  await endDgiiWait(tenantId);
  await ownerRows(
    sql`UPDATE ecf_documents SET next_attempt_at = LEAST(next_attempt_at, now()) WHERE tenant_id = ${tenantId} AND id = ${ecfId} AND status IN ('pending', 'in_process') RETURNING id`,
  );
  await env.ECF_QUEUE!.send({ tenant_id: tenantId, ecf_id: ecfId }, { contentType: "json" });
}

/**
 * Takes the next step of every open e-CF of the tenant now, in one batch through the Worker's queue
 * handler (runQueue). The handler runs in the test's module instance, whose DGII token cache is not
 * the Worker's: a test that counts tokens steps with stepNow.
 */
export async function stepOpen(tenantId: number) {
  await endDgiiWait(tenantId);
  const rows = await ownerRows<{ id: number }>(
    sql`UPDATE ecf_documents SET next_attempt_at = LEAST(next_attempt_at, now()) WHERE tenant_id = ${tenantId} AND status IN ('pending', 'in_process') RETURNING id`,
  );
  if (rows.length)
    await runQueue(
      "ecf",
      rows.map((row) => ({ tenant_id: tenantId, ecf_id: Number(row.id) })),
    );
}

/**
 * Drives the document's e-CF step by step (stepNow, each step waited for) until it reaches `status`, watching the row as
 * the owner (polling the API would meet its rate limit), then answers the API's view of it. The
 * wait is bounded: a document that settles in another state fails the test after `timeout`.
 */
export async function waitForStatus(t: EcfTenant, path: string, status: string, timeout = 20_000, api = t.tenant.api): Promise<EcfView> {
  const [, kind, id] = /^\/(invoices|credit-notes|debit-notes|purchases)\/(\d+)$/.exec(path)!;
  const column = kind === "invoices" ? sql`invoice_id` : kind === "purchases" ? sql`purchase_id` : sql`note_id`;
  const read = () =>
    ownerRow<{ id: number; status: string; attempts: number; messages: unknown }>(
      sql`SELECT id, status, attempts, dgii_messages AS messages FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId} AND ${column} = ${Number(id)}`,
    );
  await vi.waitFor(
    async () => {
      let row = await read();
      if (row.status !== status && OPEN.has(row.status)) {
        const before = row;
        await stepNow(t.tenant.tenantId, Number(row.id));
        // Bounded: a message that met the row locked by another step is sent again by the next round.
        await vi.waitFor(
          async () => {
            row = await read();
            expect([row.status, row.attempts]).not.toEqual([before.status, before.attempts]);
          },
          { timeout: 5_000, interval: 20 },
        );
      }
      expect(row.status, JSON.stringify(row.messages)).toBe(status);
    },
    { timeout, interval: 20 },
  );
  return ecfOf(t, path, api);
}

/** An invoice's e-CF row as the transmission tests follow it, read as the owner. */
export async function ecfRow(invoiceId: number) {
  const row = await ownerRow<{
    id: number;
    tenant_id: number;
    status: string;
    attempts: number;
    next_attempt_at: string;
    unreachable_since: string | null;
    last_error: string | null;
  }>(sql`SELECT id, tenant_id, status, attempts, next_attempt_at, unreachable_since, last_error FROM ecf_documents WHERE invoice_id = ${invoiceId}`);
  return {
    ...row,
    next_attempt_at: new Date(row.next_attempt_at),
    unreachable_since: row.unreachable_since === null ? null : new Date(row.unreachable_since),
  };
}

/** Waits (bounded, polling the row) for the first step of the e-CF, which the issuing request queued, so that what follows is driven by the test alone. */
export async function afterFirstAttempt(invoiceId: number) {
  return vi.waitFor(
    async () => {
      const row = await ecfRow(invoiceId);
      if (row.attempts < 1) throw new Error("the queue has not sent the e-CF yet");
      return row;
    },
    { timeout: 20_000, interval: 20 },
  );
}

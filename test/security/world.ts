import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import { createApp } from "../../src/app";
import * as schema from "../../src/db/schema";
import type { Env } from "../../src/env";
import { issueAccessToken } from "../../src/modules/auth/service";
import { botToken, chatAccountInput, platformId } from "../integrations/helpers";
import { type ApiResponse, type CallOptions, type Client, client, readResponse, testRequest, v1 } from "../support/api";
import { makeCertificate } from "../support/certificates";
import { checkConformance } from "../support/conformance";
import { env } from "../support/env";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, type SeededTenant, type SeededUser, seedTenant, seedUser, seedWorkspace, uniqueName } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";
import { receiverKey } from "../webhooks/helpers";

export const securityEnv = env as typeof env & {
  TEST_CONTROL_URL: string;
  TEST_FAULT_WS_PROXY: string;
  TEST_FAULT_HTTP_ENDPOINT: string;
  TEST_BLACKHOLE_DATABASE_URL: string;
  TEST_FAULT_UPSTASH_URL: string;
  TEST_FAULT_UPSTASH_TOKEN: string;
  TEST_SOAK: string;
  TEST_FAKE_PROVIDERS_URL: string;
};

/** `npm run soak` sets TEST_SOAK: the suites then run their large sizes. */
export const SOAK = securityEnv.TEST_SOAK === "1";

/** Reports what a suite tried to the control server; `npm run soak` prints and saves them. */
export async function record(entry: { suite: string; cases: number; failures: number; invariants: number; notes?: string; ms?: number }) {
  await fetch(`${securityEnv.TEST_CONTROL_URL}/soak/record`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...entry, soak: SOAK, at: new Date().toISOString() }),
  }).catch(() => undefined);
}

/** The control server's answer: `configured` on GET /redis, nothing the suites read otherwise. */
export async function control(path: string, method = "POST"): Promise<{ configured?: boolean }> {
  const res = await fetch(`${securityEnv.TEST_CONTROL_URL}${path}`, { method });
  expect(res.status, path).toBe(200);
  return res.json();
}

/** The documented error shape: {message, code, errors?} and nothing else. */
export function expectErrorShape(res: ApiResponse, context = "") {
  expect(res.headers.get("content-type") ?? "", `${context} content-type`).toContain("application/json");
  const body = res.body as Record<string, unknown>;
  expect(typeof body, context).toBe("object");
  expect(typeof body.message, `${context} message: ${res.text.slice(0, 300)}`).toBe("string");
  expect(typeof body.code, `${context} code: ${res.text.slice(0, 300)}`).toBe("string");
  for (const key of Object.keys(body)) expect(["message", "code", "errors"], `${context} key ${key}`).toContain(key);
  if (body.errors !== undefined) {
    expect(typeof body.errors).toBe("object");
    for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>)) {
      expect(Array.isArray(messages), `${context} errors.${field}`).toBe(true);
      for (const m of messages as unknown[]) expect(typeof m).toBe("string");
    }
  }
}

/** One app, as the Worker has (src/index.ts): building it registers every route and schema (~20 ms). */
let app: ReturnType<typeof createApp> | undefined;
/**
 * The Worker's env with each overrides object applied, made once per overrides object: the app
 * parses an env object's settings once (src/env.ts), so a new object per call re-parsed them.
 */
const envWith = new WeakMap<Record<string, unknown>, Env>();

/**
 * Calls the app directly with env overrides (createApp().fetch), e.g. a lifted rate limit for
 * suites that are not about rate limits, or a database URL / relay under fault.
 */
export async function appCall(subdomain: string, path: string, options: CallOptions & { env?: Record<string, unknown> } = {}): Promise<ApiResponse> {
  const ctx = createExecutionContext();
  const request = testRequest(subdomain, v1(path), options);
  app ??= createApp();
  let workerEnv = options.env ? envWith.get(options.env) : env;
  if (!workerEnv) {
    workerEnv = { ...env, ...options.env } as Env;
    envWith.set(options.env!, workerEnv);
  }
  const response = await app.fetch(request, workerEnv, ctx);
  await checkConformance(request.method, request.url, response); // as workerFetch's (test/support/api.ts)
  const result = await readResponse(response);
  await waitOnExecutionContext(ctx);
  return result;
}

/** Env overrides that lift the per-user limit for suites that are not about rate limiting. */
export const NO_LIMIT = { RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "1000000", RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1000000" };

/** A client over appCall with the limiter lifted. */
export function unlimited(subdomain: string, token?: string, extraEnv: Record<string, unknown> = {}) {
  const overrides = { ...NO_LIMIT, ...extraEnv };
  const go =
    (method: string) =>
    (path: string, body?: unknown, options: CallOptions = {}) =>
      appCall(subdomain, path, { token, ...options, method, body, env: overrides });
  return {
    get: (path: string, options: CallOptions = {}) => go("GET")(path, undefined, options),
    post: go("POST"),
    put: go("PUT"),
    patch: go("PATCH"),
    delete: (path: string, options: CallOptions = {}) => go("DELETE")(path, undefined, options),
  };
}

export const TEMPLATE = {
  name: "factura_emitida",
  language: "es",
  category: "UTILITY",
  components: [{ type: "BODY", text: "Su factura {{1}} está lista.", example: { body_text: [["B0100000001"]] } }],
};

// The same ids and tokens as the integration tests use: one definition, in integrations/helpers.ts.
export { botToken, platformId };

async function ok(res: ApiResponse, status = 201) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/**
 * Tenant A with one object of every kind in workspace W1 (each carrying a unique marker), a second
 * workspace W2 and a third W3. `markers` are strings that only W1's objects carry; `tenantMarkers`
 * only tenant A's.
 */
export async function buildWorld() {
  const tenant = await seedTenant();
  const api = tenant.api;
  const w1 = tenant.workspaceId;
  const w2 = await seedWorkspace(tenant, uniqueName("W2 "));
  const w3 = await seedWorkspace(tenant, uniqueName("W3 "));
  const ids = await catalogIds(api);
  const mark = (prefix: string) => uniqueName(`zq${prefix}`);

  const contact = await createContact(api, { name: mark("Contacto"), email: `${mark("mail")}@secreto.do`, workspace_id: w1 });
  const product = await createProduct(api, { name: mark("Producto"), sku: mark("SKU"), workspace_id: w1 });
  const shared = await createProduct(api, { workspace_id: null });
  await initialStock(api, [
    { product_id: product.id, quantity: "100", cost: "10" },
    { product_id: shared.id, quantity: "100", cost: "10" },
  ]);
  const invoiceNotes = mark("Factura");
  const invoice = (
    await ok(
      await api.post("/invoices", {
        contact_id: contact.id,
        document_subtype_id: ids.b02,
        issue_date: "2026-11-20",
        notes: invoiceNotes,
        items: [{ product_id: product.id, quantity: "1", unit_price: "500" }],
      }),
    )
  ).data;
  const paymentId = (await ok(await api.post(`/invoices/${invoice.id}/payments`, { amount: "100.00", payment_date: "2026-11-21", payment_method: "cash" })))
    .data.payment.id as number;
  const creditReason = mark("Credito");
  const creditNote = (
    await ok(
      await api.post(`/invoices/${invoice.id}/credit-notes`, {
        modification_code: 3,
        reason: creditReason,
        items: [{ description: creditReason, amount: "10.00" }],
      }),
    )
  ).data;
  const debitReason = mark("Debito");
  const debitNote = (
    await ok(
      await api.post(`/invoices/${invoice.id}/debit-notes`, {
        modification_code: 3,
        reason: debitReason,
        items: [{ description: debitReason, amount: "10.00" }],
      }),
    )
  ).data;
  const quotationNotes = mark("Cotizacion");
  const quotation = (
    await ok(
      await api.post("/quotations", {
        contact_id: contact.id,
        document_subtype_id: ids.cot,
        issue_date: "2026-11-20",
        notes: quotationNotes,
        items: [{ product_id: product.id, quantity: "1", unit_price: "500" }],
      }),
    )
  ).data;
  const supplier = await createContact(api, { name: mark("Suplidor"), contact_type: "supplier", workspace_id: w1 });
  const purchaseNotes = mark("Compra");
  const purchase = (
    await ok(
      await api.post("/purchases", {
        supplier_id: supplier.id,
        supplier_ncf: "B0100000777",
        issue_date: "2026-11-20",
        expense_type: "09",
        notes: purchaseNotes,
        items: [{ product_id: product.id, quantity: "1", unit_cost: "300" }],
      }),
    )
  ).data;
  const purchasePaymentId = (
    await ok(await api.post(`/purchases/${purchase.id}/payments`, { amount: "10.00", payment_date: "2026-11-21", payment_method: "cash" }))
  ).data.payment.id as number;
  const transferNotes = mark("Traslado");
  const transfer = (await ok(await api.post("/stock-transfers", { product_id: shared.id, to_workspace_id: w3, quantity: "1", notes: transferNotes }))).data;
  const adjustmentNotes = mark("Ajuste");
  const adjustment = (
    await ok(
      await api.post("/inventory-adjustments", {
        reference: adjustmentNotes,
        items: [{ product_id: product.id, quantity_adjustment: "-1", reason: "damaged", notes: adjustmentNotes }],
      }),
    )
  ).data;
  const invitationEmail = `${mark("invitee")}@secreto.do`;
  const invitation = (await ok(await api.post("/workspace/invitations", { email: invitationEmail, role: "viewer" }))).data;
  const roleName = mark("rol")
    .replace(/[^a-z0-9_]/gi, "_")
    .toLowerCase();
  const role = (await ok(await api.post("/roles", { name: roleName, display_name: mark("Rol"), permissions: ["products:view"] }))).data;
  const tax = (await ok(await api.post("/taxes", { name: mark("Impuesto"), type: "other", rate: "5", dgii_code: "002" }))).data;
  const currency = (await ok(await api.post("/currencies", { code: "EUR", name: mark("Euro"), symbol: "€", exchange_rate: "64" }))).data;
  const subtype = (
    await ok(
      await api.post("/document-subtypes", {
        name: mark("Secuencia"),
        type: "invoice",
        prefix: "B15",
        // Past the demo range (1-5,000): ranges of one prefix never overlap.
        start_number: 5001,
        end_number: 6000,
        valid_until: "2030-12-31",
      }),
    )
  ).data;
  const salesman = (await ok(await api.post("/salesmen", { full_name: mark("Vendedor"), email: `${mark("sales")}@secreto.do` }))).data;
  const bank = (await ok(await api.post("/bank-accounts", { name: mark("Banco"), type: "bank", account_number: "000123" }))).data;
  const botName = mark("Bot");
  const bot = (await ok(await api.post("/api/messaging-bots", { name: botName, token: botToken() }))).data;
  const chatName = mark("Chat");
  const chat = (await ok(await api.post("/api/chat-accounts", chatAccountInput({ name: chatName })))).data;
  // Tenant-wide; it points at the fake receiver, which answers 200 to whatever the suites cause.
  const webhookDescription = mark("Webhook");
  const webhook = (await ok(await api.post("/webhook-endpoints", { url: receiverKey().url, events: ["*"], description: webhookDescription }))).data;
  const w1Viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [w1] });
  const certificate = await makeCertificate();
  // An e-CF a supplier sent tenant A (tenant-wide: received by the company's RNC, not a branch).
  const receivedIssuer = mark("Proveedor Electrónico");
  const [receivedEcf] = await asOwner((db) =>
    db
      .insert(schema.receivedEcf)
      .values({
        tenantId: tenant.tenantId,
        ecfType: "31",
        encf: "E310000000777",
        issuerRnc: "101000122",
        issuerName: receivedIssuer,
        buyerRnc: "131246796",
        issueDate: "2026-11-20",
        totalAmount: "1180.00",
        itbisAmount: "180.00",
        securityCode: "AbC123",
        signer: receivedIssuer,
        xml: `<ECF><RazonSocialEmisor>${receivedIssuer}</RazonSocialEmisor></ECF>`,
        xmlSha256: "0".repeat(64),
        receiptXml: "<ARECF/>",
      })
      .returning({ id: schema.receivedEcf.id }),
  );
  // A certification test set (tenant-wide, ecf:manage), its file name tenant A's alone.
  const testSetFile = `${mark("SetPruebas")}.xlsx`;
  const [testSet] = await asOwner((db) =>
    db
      .insert(schema.ecfCertificationTestSets)
      .values({ tenantId: tenant.tenantId, kind: "approval", fileName: testSetFile, caseCount: 0 })
      .returning({ id: schema.ecfCertificationTestSets.id }),
  );
  // A contingency of W1, closed already (ecf:manage at company level or as a member of W1): closing
  // it again is 409 for whoever may.
  const [contingency] = await asOwner((db) =>
    db
      .insert(schema.ecfContingencies)
      .values({ tenantId: tenant.tenantId, workspaceIds: [w1], reason: "Apagón", closedAt: new Date(), closedHow: "manual" })
      .returning({ id: schema.ecfContingencies.id }),
  );
  const tokens = (await api.get("/auth/tokens")).body.data as { id: string }[];
  // An event of the log (the invoice's invoice.created): tenant-wide, admin-only (webhooks:manage).
  const event = ((await ok(await api.get("/events?filter[type]=invoice.created&sort=created_at&per_page=1"), 200)).data as { id: string }[])[0]!;

  return {
    tenant,
    w1,
    w2,
    w3,
    ids,
    objects: {
      contact,
      product,
      shared,
      invoice,
      paymentId,
      supplier,
      purchase,
      purchasePaymentId,
      creditNote,
      debitNote,
      quotation,
      transfer,
      adjustment,
      invitation,
      role,
      tax,
      currency,
      subtype,
      salesman,
      bank,
      bot,
      chat,
      webhook,
      event,
      w1Viewer,
      certificate,
      receivedEcf: receivedEcf!,
      testSet: testSet!,
      contingency: contingency!,
      adminTokenId: tokens[0]!.id,
    },
    /** Strings only W1's objects carry (a member of W2 must never see them). */
    markers: [
      contact.name,
      contact.email!,
      product.name,
      product.sku,
      invoiceNotes,
      purchaseNotes,
      creditReason,
      debitReason,
      quotationNotes,
      adjustmentNotes,
      invitationEmail,
      botName,
      chatName,
      w1Viewer.email,
    ],
    /** Strings only tenant A carries (another tenant must never see them). */
    tenantMarkers: [
      receivedIssuer,
      testSetFile,
      contact.name,
      contact.email!,
      product.name,
      invoiceNotes,
      purchaseNotes,
      creditReason,
      debitReason,
      quotationNotes,
      invitationEmail,
      tax.name,
      currency.name,
      subtype.name,
      salesman.full_name,
      bank.name,
      botName,
      chatName,
      webhookDescription,
      tenant.admin.email,
      w1Viewer.email,
      roleName,
    ],
  };
}

export type World = Awaited<ReturnType<typeof buildWorld>>;

/** Users of one kind, each used for at most `budget` requests (give 50 when the 60/min limit applies). */
export class TokenPool {
  private used = 0;
  constructor(
    readonly tokens: string[],
    private readonly budget = 50,
  ) {}
  next(): string {
    const index = Math.floor(this.used++ / this.budget);
    if (index >= this.tokens.length) throw new Error(`token pool exhausted after ${this.used - 1} requests`);
    return this.tokens[index]!;
  }
  static async of(count: number, make: () => Promise<string>, budget = Number.POSITIVE_INFINITY): Promise<TokenPool> {
    const tokens: string[] = [];
    for (let i = 0; i < Math.max(1, Math.ceil(count / budget)); i++) tokens.push(await make());
    return new TokenPool(tokens, budget);
  }
}

export async function expiredToken(tenant: SeededTenant, userId: number): Promise<string> {
  const { token } = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId, name: "expired", ttlDays: -1 }));
  return token;
}

export async function revokedToken(tenant: SeededTenant): Promise<string> {
  const user = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
  const res = await user.api.delete("/auth/tokens/current");
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return user.token;
}

/**
 * A live, unrevoked token of a deactivated user — as a login racing the deactivation could leave
 * one (the deactivation itself revokes the tokens it finds): only request_context refuses it.
 */
export async function deactivatedUserToken(tenant: SeededTenant): Promise<string> {
  const user = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
  const res = await tenant.api.post(`/users/${user.id}/deactivate`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { token } = await asOwner((db) => issueAccessToken(db, env.JWT_SECRET, { tenantId: tenant.tenantId, userId: user.id, name: "raced" }));
  return token;
}

/** A token signed with another key but otherwise well-formed (the tenant and user are real). */
export async function forgedToken(tenant: SeededTenant): Promise<string> {
  const { SignJWT } = await import("jose");
  return new SignJWT({ tid: tenant.tenantId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("sucursal")
    .setSubject(String(tenant.admin.id))
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode("not-the-server-secret-but-long-enough-0123"));
}

/** An unsigned token (alg "none") claiming to be the tenant's admin. */
export function unsignedToken(tenant: SeededTenant): string {
  const b64 = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${b64({ alg: "none", typ: "JWT" })}.${b64({ tid: tenant.tenantId, sub: String(tenant.admin.id), iss: "sucursal", jti: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600 })}.`;
}

export type { Client, SeededTenant, SeededUser };
export { client };

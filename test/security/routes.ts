import { type RouteAccess, routeTable } from "../../src/http/openapi";
import { uniqueName } from "../support/seed";
import { receiverKey } from "../webhooks/helpers";
import { botToken, platformId, TEMPLATE, type World } from "./world";

/**
 * The route table (every defineRoute) turned into concrete requests against a World: path
 * parameters resolved from the segment before them, and a valid body for each write. A route whose
 * parameter has no resolver makes the suites fail, so a new route cannot go uncovered silently.
 */
export type Scope = "workspace" | "tenant" | "self" | "public";

export interface ConcreteRoute {
  route: RouteAccess;
  key: string;
  method: string;
  url: string;
  body: unknown;
  /** W1 workspace-scoped objects named in the path (or body) — a member of W2 must get 403/404. */
  namesWorkspaceObject: boolean;
  /** The path names any object of tenant A — another tenant must get 403/404. */
  namesTenantObject: boolean;
  scope: Scope;
  isWrite: boolean;
  /**
   * A route of `level: "branches"` (an act on the branches it names), as a request naming W1: a
   * member of W2 only, even its admin, must get 403 `forbidden`.
   */
  namingW1: { url: string; body: unknown } | null;
}

/** Segment → the W1 object id, and whether the resource is workspace-scoped or tenant-wide. */
function resolver(world: World): Record<string, { id: string | number; scope: Scope }> {
  const o = world.objects;
  return {
    "auth/tokens": { id: o.adminTokenId, scope: "self" },
    invoices: { id: o.invoice.id, scope: "workspace" },
    payments: { id: o.paymentId, scope: "workspace" },
    purchases: { id: o.purchase.id, scope: "workspace" },
    "purchases/{id}/payments": { id: o.purchasePaymentId, scope: "workspace" },
    "credit-notes": { id: o.creditNote.id, scope: "workspace" },
    "debit-notes": { id: o.debitNote.id, scope: "workspace" },
    quotations: { id: o.quotation.id, scope: "workspace" },
    "stock-transfers": { id: o.transfer.id, scope: "workspace" },
    "inventory-adjustments": { id: o.adjustment.id, scope: "workspace" },
    // W1's product and contact are workspace-specific (workspace_id = W1).
    products: { id: o.product.id, scope: "workspace" },
    contacts: { id: o.contact.id, scope: "workspace" },
    workspaces: { id: world.w1, scope: "workspace" },
    "workspace-context": { id: world.w1, scope: "self" },
    "workspace/invitations": { id: o.invitation.id, scope: "workspace" },
    "workspace/members": { id: o.w1Viewer.id, scope: "workspace" },
    // Deactivation of W1's viewer: no identity of the suites may succeed (only admins of every
    // workspace of the user may), and the viewer is no owner nor anyone's token.
    users: { id: o.w1Viewer.id, scope: "workspace" },
    "messaging-bots": { id: o.bot.id, scope: "workspace" },
    "chat-accounts": { id: o.chat.id, scope: "workspace" },
    roles: { id: o.role.id, scope: "tenant" },
    // The company's role holders: a grant to W1's viewer (viewer at company level) is harmless.
    "company/members": { id: o.w1Viewer.id, scope: "tenant" },
    taxes: { id: o.tax.id, scope: "tenant" },
    currencies: { id: o.currency.id, scope: "tenant" },
    "document-subtypes": { id: o.subtype.id, scope: "tenant" },
    salesmen: { id: o.salesman.id, scope: "tenant" },
    "bank-accounts": { id: o.bank.id, scope: "tenant" },
    "received-ecf": { id: o.receivedEcf.id, scope: "tenant" },
    // Step 13 (declaración jurada) is one the admin marks: a write by the admin succeeds, nothing else changes.
    "ecf/certification/steps": { id: 13, scope: "tenant" },
    "ecf/certification/test-sets": { id: o.testSet.id, scope: "tenant" },
    // A case's position in tenant A's test set (the set's id names the tenant's object).
    "test-sets/{id}/cases": { id: 1, scope: "tenant" },
    "ecf/contingency": { id: o.contingency.id, scope: "tenant" },
    "webhook-endpoints": { id: o.webhook.id, scope: "tenant" },
    events: { id: o.event.id, scope: "tenant" },
    // Public: a bogus token, so that the anonymous check never accepts the real invitation.
    invitations: { id: "bogus-invitation-token-0000000000", scope: "public" },
    // Public: an E32 number no tenant of the world issued (the lookup answers the same 404 for any miss).
    consulta: { id: "E320000000001", scope: "public" },
    rnc: { id: "131246796", scope: "tenant" },
    // A month no suite writes into (they date documents in 2026): closing it locks nothing they use.
    "fiscal-periods": { id: "201901", scope: "tenant" },
  };
}

/** The collection a path is about, for routes without parameters (lists and creates). */
const COLLECTION_SCOPE: [RegExp, Scope][] = [
  [/^\/api\/v1\/(auth|me|permissions)\b/, "self"],
  [/^\/api\/v1\/(taxes|currencies|document-subtypes|salesmen|bank-accounts|roles|rnc)\b/, "tenant"],
  [/^\/api\/v1\/invoices\/validate-ncf$/, "tenant"],
  [/^\/api\/v1\/ecf\/submissions$/, "workspace"],
  [/^\/api\/v1\/ecf\//, "tenant"],
  [/^\/api\/v1\/received-ecf\b/, "tenant"],
  // The sales summary is the request's workspace's unless the caller may see every location.
  [/^\/api\/v1\/reports\/sales-summary$/, "workspace"],
  // DGII's reports are the whole company's (workspace_id only narrows them for review).
  [/^\/api\/v1\/reports\//, "tenant"],
  [/^\/api\/v1\/(webhook-endpoints|events)\b/, "tenant"],
  [/^\/api\/v1\/company\b/, "tenant"],
  [/^\/api\/v1\/fiscal-periods\b/, "tenant"],
  [/^\/api\/v1\/workspaces$/, "tenant"],
  [/./, "workspace"],
];

function testSetUpload(): FormData {
  const form = new FormData();
  form.append("file", new File(["not a workbook"], "SetPruebas.xlsx"));
  return form;
}

export function validBody(world: World, method: string, path: string): unknown {
  const o = world.objects;
  const ids = world.ids;
  const line = { product_id: o.product.id, quantity: "1", unit_price: "1.00" };
  const bodies: Record<string, unknown> = {
    "POST /api/v1/auth/tokens": { email: `${uniqueName("nobody")}@nowhere.do`, password: "not the password" },
    // A wrong current password: the fuzz (as the world's admin) can never change the password.
    "POST /api/v1/me/password": { current_password: "not the current password", new_password: "a long enough new password" },
    "POST /api/v1/stock-transfers": { product_id: o.shared.id, to_workspace_id: world.w3, quantity: "1" },
    "POST /api/v1/inventory-adjustments": { items: [{ product_id: o.product.id, quantity_adjustment: "1", reason: "found" }] },
    "POST /api/v1/inventory/initial-stock": { items: [{ product_id: o.shared.id, quantity: "1" }] },
    "PUT /api/v1/products/{id}/stock/minimum": { workspace_id: world.w1, minimum_quantity: "1" },
    "POST /api/v1/invoices": { contact_id: o.contact.id, document_subtype_id: ids.b02, issue_date: "2026-11-20", items: [line] },
    "PATCH /api/v1/invoices/{id}": { notes: "cambiada" },
    "DELETE /api/v1/fiscal-periods/{period}/close": { reason: "Declaración rectificativa" },
    "POST /api/v1/invoices/{id}/payments": { amount: "1.00", payment_date: "2026-11-21", payment_method: "cash" },
    "PUT /api/v1/invoices/{id}/withholdings": { itbis_withheld: "0", isr_withheld: "0", withholding_date: null },
    "DELETE /api/v1/invoices/{id}": { annulment_reason: "04" },
    "POST /api/v1/invoices/{id}/cancel": { annulment_reason: "04" },
    "POST /api/v1/invoices/{id}/issue": { issue_date: "2026-11-21" },
    "PUT /api/v1/ecf/certificate": { p12_base64: o.certificate.p12Base64, password: o.certificate.password },
    "PUT /api/v1/ecf/settings": { environment: "testecf" },
    "PUT /api/v1/ecf/certification": { uses_certified_provider: false },
    "PUT /api/v1/ecf/certification/steps/{number}": { note: "Hecho en la OFV" },
    // Multipart: a file that is not a workbook, refused with 422 by a caller who may import (test/ecf/certification-test-sets.test.ts imports real ones).
    "POST /api/v1/ecf/certification/test-sets": testSetUpload(),
    "POST /api/v1/ecf/annulments": { document_subtype_id: o.subtype.id, from: 1, to: 1 },
    "POST /api/v1/ecf/contingency": { scope: "branches", workspace_ids: [world.w3], reason: "Sin enlace" },
    "POST /api/v1/received-ecf/{id}/approval": { approved: true },
    // The world's received e-CF has no lines to read: a permitted caller gets 422, never a purchase.
    "POST /api/v1/received-ecf/{id}/purchase": { expense_type: "09" },
    "POST /api/v1/invoices/{id}/credit-notes": { modification_code: 3, reason: "Descuento", items: [{ description: "Descuento", amount: "0.01" }] },
    "POST /api/v1/invoices/{id}/debit-notes": { modification_code: 3, reason: "Cargo", items: [{ description: "Cargo", amount: "0.01" }] },
    // A new supplier NCF per request would be refused only as a duplicate (409) after the first.
    "POST /api/v1/purchases": {
      supplier_id: o.supplier.id,
      supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`,
      issue_date: "2026-11-20",
      expense_type: "09",
      items: [{ product_id: o.product.id, quantity: "1", unit_cost: "1.00" }],
    },
    "PATCH /api/v1/purchases/{id}": { notes: "cambiada" },
    "DELETE /api/v1/purchases/{id}": { reason: "Registrada por error" },
    "POST /api/v1/purchases/{id}/payments": { amount: "1.00", payment_date: "2026-11-21", payment_method: "cash" },
    "POST /api/v1/quotations/bulk/pdf": { quotation_ids: [o.quotation.id] },
    "POST /api/v1/quotations": { contact_id: o.contact.id, document_subtype_id: ids.cot, issue_date: "2026-11-20", items: [line] },
    "PATCH /api/v1/quotations/{id}": { notes: "cambiada" },
    "POST /api/v1/quotations/{id}/convert-to-invoice": {},
    "POST /api/v1/workspace/invitations": { email: `${uniqueName("inv")}@x.do`, role: "viewer" },
    "POST /api/v1/invitations/{token}/accept": { name: "Nadie", password: "a long enough password" },
    "PATCH /api/v1/workspace/members/{user_id}": { role: "member" },
    "POST /api/v1/roles": { name: uniqueName("r_").toLowerCase(), display_name: "Rol", permissions: ["products:view"] },
    "PATCH /api/v1/roles/{id}": { display_name: "Rol cambiado" },
    "POST /api/v1/workspaces": { name: uniqueName("WS ") },
    "PATCH /api/v1/workspaces/{id}": { name: uniqueName("WS ") },
    "POST /api/v1/workspaces/{id}/transfer-ownership": { user_id: o.w1Viewer.id },
    "POST /api/v1/products": { name: uniqueName("P "), price: "1.00" },
    "PATCH /api/v1/products/{id}": { name: uniqueName("P ") },
    "POST /api/v1/contacts": { name: uniqueName("C ") },
    "PATCH /api/v1/contacts/{id}": { name: uniqueName("C ") },
    "POST /api/v1/taxes": { name: uniqueName("T "), type: "other", rate: "1", dgii_code: "002" },
    "PATCH /api/v1/taxes/{id}": { name: uniqueName("T ") },
    "POST /api/v1/currencies": { code: "CAD", name: uniqueName("Dólar "), symbol: "C$" },
    "PATCH /api/v1/currencies/{id}": { name: uniqueName("Euro ") },
    "POST /api/v1/document-subtypes": { name: uniqueName("S "), type: "invoice", prefix: "B16", end_number: 100 },
    "PATCH /api/v1/document-subtypes/{id}": { name: uniqueName("S ") },
    "PUT /api/v1/workspaces/{id}/preferred-document-subtype": { type: "invoice", document_subtype_id: null },
    "POST /api/v1/invoices/validate-ncf": { ncf: "B0200000001", document_subtype_id: ids.b02 },
    "POST /api/v1/webhook-endpoints": { url: receiverKey().url, events: ["invoice.created"] },
    "PATCH /api/v1/webhook-endpoints/{id}": { description: uniqueName("Webhook ") },
    "POST /api/v1/events/{id}/resend": { endpoint_id: o.webhook.id },
    "PATCH /api/v1/company": { trade_name: uniqueName("Comercial ") },
    "PUT /api/v1/company/members/{user_id}": { role: "viewer" },
    // No such user: the owner's request is refused (404), so the world keeps its owner.
    "POST /api/v1/company/transfer-ownership": { user_id: 2147483647 },
    "POST /api/v1/salesmen": { full_name: uniqueName("V ") },
    "PATCH /api/v1/salesmen/{id}": { full_name: uniqueName("V ") },
    "POST /api/v1/bank-accounts": { name: uniqueName("B ") },
    "PATCH /api/v1/bank-accounts/{id}": { name: uniqueName("B ") },
    "POST /api/messaging-bots": { name: "Bot", token: botToken() },
    "PATCH /api/messaging-bots/{bot}": { name: "Bot cambiado" },
    "POST /messaging-bots/{bot}/test": { chat_id: "12345", message: "hola" },
    "POST /webhooks/messaging-bots/{bot}": { update_id: 1, message: { text: "hola" } },
    "POST /api/chat-accounts": {
      name: "Chat",
      phone_number: "+1 809-555-0100",
      phone_number_id: platformId(),
      business_account_id: platformId(),
      access_token: `EAAG${uniqueName("a")}`,
      app_secret: uniqueName("s"),
      webhook_verify_token: uniqueName("v"),
    },
    "PATCH /api/chat-accounts/{account}": { name: "Chat cambiado" },
    "POST /api/chat-accounts/{account}/templates": TEMPLATE,
    "POST /api/chat-accounts/{account}/messages": { to: "18095550123", template: "factura_emitida" },
    "POST /webhooks/chat-accounts/{account}": { object: "whatsapp_business_account", entry: [] },
  };
  return bodies[`${method} ${path}`];
}

/** Queries that name W1 (lists that take a workspace). */
const W1_QUERIES: Record<string, (world: World) => string> = {
  "GET /api/v1/inventory/low-stock": (w) => `?workspace_id=${w.w1}`,
  "GET /api/v1/inventory/movements": (w) => `?workspace_id=${w.w1}`,
};

/**
 * The acts on named branches (`level: "branches"`), each as a request naming W1. The world's
 * contingency covers W1 (closed: whoever may close it gets 409).
 */
const NAMING_W1: Record<string, (world: World) => { query?: string; body?: unknown }> = {
  "POST /api/v1/ecf/contingency": (w) => ({ body: { scope: "branches", workspace_ids: [w.w1], reason: "Sin enlace" } }),
  "DELETE /api/v1/ecf/contingency/{id}": () => ({}),
  "GET /api/v1/ecf/certification/printed-representations.zip": (w) => ({ query: `?workspace_id=${w.w1}` }),
};

/** Queries a route needs to answer at all (not naming a workspace). */
const REQUIRED_QUERIES: Record<string, string> = {
  "GET /api/v1/reports/606": "?period=202610",
  "GET /api/v1/reports/608": "?period=202610",
  "GET /api/v1/reports/it1": "?period=202610",
  "GET /api/v1/reports/ir17": "?period=202610",
  "GET /api/v1/fiscal-periods/{period}/snapshot": "?report=606",
  "GET /api/v1/reports/sales-summary": "?from=2026-10-01&to=2026-10-31&group_by=workspace",
  // The lookup page without a query is its form (200, for anyone): with one, a miss, the 404 every stranger gets.
  "GET /consulta": "?encf=E320000000001&codigo=aB3dE5",
  "GET /consulta/{encf}/pdf": "?codigo=aB3dE5",
  "GET /consulta/{encf}/xml": "?codigo=aB3dE5",
};

export function concreteRoutes(world: World): ConcreteRoute[] {
  const resolve = resolver(world);
  return routeTable.map((route) => {
    let namesWorkspaceObject = false;
    let namesTenantObject = false;
    let scope: Scope | null = route.access === "public" ? "public" : null;
    const url = route.path.replace(/\{(\w+)\}/g, (_match, _param: string, offset: number) => {
      const before = route.path.slice(0, offset).replace(/\/$/, "");
      const key = Object.keys(resolve)
        .filter((segment) => before.endsWith(`/${segment}`))
        .sort((a, b) => b.length - a.length)[0];
      if (!key) throw new Error(`no fixture for the parameter of ${route.method} ${route.path}: add it to test/security/routes.ts`);
      const target = resolve[key]!;
      if (target.scope === "workspace") namesWorkspaceObject = true;
      // An RNC of the registry, a step number of DGII's certification and a month are every tenant's.
      if (target.scope !== "public" && !["rnc", "ecf/certification/steps", "fiscal-periods"].includes(key)) namesTenantObject = true;
      // The innermost parameter decides (payments of an invoice are workspace-scoped...).
      if (scope !== "public") scope = target.scope;
      return encodeURIComponent(String(target.id));
    });
    const isWrite = route.method !== "GET";
    const key = `${route.method} ${route.path}`;
    const query = W1_QUERIES[key]?.(world) ?? "";
    if (query) namesWorkspaceObject = true;
    const required = REQUIRED_QUERIES[key] ?? "";
    if (key === "POST /api/v1/quotations/bulk/pdf") namesWorkspaceObject = true;
    scope ??= COLLECTION_SCOPE.find(([pattern]) => pattern.test(route.path))![1];
    const body = validBody(world, route.method, route.path);
    let namingW1: ConcreteRoute["namingW1"] = null;
    if (typeof route.access === "object" && route.access.level === "branches") {
      const naming = NAMING_W1[key]?.(world);
      if (!naming) throw new Error(`no request naming W1 for ${key}, an act on named branches: add it to NAMING_W1 in test/security/routes.ts`);
      namingW1 = { url: url + (naming.query ?? ""), body: naming.body ?? body };
    }
    return {
      route,
      key,
      method: route.method,
      url: url + (query || required),
      body,
      namesWorkspaceObject,
      namesTenantObject,
      scope,
      isWrite,
      namingW1,
    };
  });
}

import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, type WebhookEventType } from "../../src/modules/events/catalog";
import type { WebhookEvent } from "../../src/modules/webhooks/schemas";
import { botToken, chatAccountInput } from "../integrations/helpers";
import { createSupplier, purchaseBody } from "../purchases/helpers";
import { walk } from "../quotations/helpers";
import type { Page } from "../support/api";
import { salesSetup, serviceInvoice } from "../support/sales";
import { seedTenant, seedUser, seedWorkspace, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";
import { storedEvents } from "../webhooks/helpers";
import { mark } from "./helpers";

/**
 * What each DELETE route tells a syncing client (docs/api.md, "Deletions"): a row that leaves a
 * list has its `<resource>.deleted` event; a DELETE that changes a row which stays has that row's
 * change event; the rest say why they need none. A new DELETE route fails the first test until it is
 * classified here and, when it names an event, given a fixture (FIXTURES) that the walk deletes to
 * see the event recorded.
 */
const DELETE_EVENTS: Record<string, string | null> = {
  "/api/v1/invoices/{id}": "invoice.deleted",
  "/api/v1/invoices/{id}/payments/{payment_id}": "invoice.updated",
  "/api/v1/quotations/{id}": "quotation.deleted",
  "/api/v1/purchases/{id}": "purchase.deleted", // a draft; a voided purchase stays in the list
  "/api/v1/contacts/{id}": "contact.deleted",
  "/api/v1/products/{id}": "product.deleted",
  "/api/v1/taxes/{id}": "tax.deleted",
  "/api/v1/currencies/{id}": "currency.deleted",
  "/api/v1/document-subtypes/{id}": "document_subtype.deleted",
  "/api/v1/salesmen/{id}": "salesman.deleted",
  "/api/v1/bank-accounts/{id}": "bank_account.deleted",
  "/api/v1/roles/{id}": "role.deleted",
  "/api/v1/workspace/members/{user_id}": "member.deleted",
  "/api/messaging-bots/{bot}": "messaging_bot.deleted",
  "/api/chat-accounts/{account}": "chat_account.deleted",
  // A purchase's payments are no list; purchases have no events of their own yet.
  "/api/v1/purchases/{id}/payments/{payment_id}": null,
  // A revoked invitation stays in the list with status `revoked` and a new updated_at.
  "/api/v1/workspace/invitations/{id}": null,
  // The caller's own credentials and preference, not the company's data.
  "/api/v1/auth/tokens/current": null,
  "/api/v1/auth/tokens/{token_id}": null,
  "/api/v1/workspace-context/{id}": null,
  // Configuration, not a list's row: GET /ecf/settings shows it gone.
  "/api/v1/ecf/certificate": null,
  // An admin's mark on a certification step, not a list's row: GET /ecf/certification shows it gone.
  "/api/v1/ecf/certification/steps/{number}": null,
  // Closes a contingency: it stays in GET /ecf/contingency with its closed_at.
  "/api/v1/ecf/contingency/{id}": null,
  // A company role taken back: not a list's row of a branch; GET /company/members shows it gone.
  "/api/v1/company/members/{user_id}": null,
  // Re-opens a closed month: it stays in GET /fiscal-periods, open, its closes recorded.
  "/api/v1/fiscal-periods/{period}/close": null,
  // The endpoints themselves: an event about them would go to the endpoints being changed.
  "/api/v1/webhook-endpoints/{id}": null,
};

function deletePaths(): string[] {
  const doc = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal", version: "1" } });
  return Object.entries(doc.paths ?? {})
    .filter(([, item]) => item?.delete)
    .map(([path]) => path)
    .sort();
}

type Setup = Awaited<ReturnType<typeof salesSetup>>;

/** A row made for its DELETE: the request, and the resource and workspace its event must name. */
interface Fixture {
  path: string;
  id: number;
  workspaceId: number | null;
}

/** POSTs `body` to `path` and answers the new row's id and workspace (null: the company's). */
async function made({ tenant }: Setup, path: string, body: unknown): Promise<Fixture> {
  const res = await tenant.api.post(path, body);
  expect(res.status, `${path} ${res.text}`).toBe(201);
  const { id, workspace_id } = res.body.data as { id: number; workspace_id?: number | null };
  return { path: `${path}/${id}`, id, workspaceId: workspace_id ?? null };
}

const serviceLine = ({ service }: Setup) => [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [] }];
const sale = (s: Setup, document_subtype_id: number) => ({ contact_id: s.contact.id, document_subtype_id, issue_date: "2026-11-20", items: serviceLine(s) });

/**
 * For each DELETE that names an event, a row of salesSetup's tenant it deletes: the walk deletes
 * each and checks its event, so a route classified with an event it does not record fails.
 */
const FIXTURES: Record<string, (setup: Setup) => Promise<Fixture>> = {
  "/api/v1/invoices/{id}": (s) => made(s, "/invoices", { ...sale(s, s.ids.b02), draft: true }),
  "/api/v1/invoices/{id}/payments/{payment_id}": async (s) => {
    const invoice = await made(s, "/invoices", sale(s, s.ids.b02));
    const paid = await s.tenant.api.post(`/invoices/${invoice.id}/payments`, { amount: "40.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(paid.status, paid.text).toBe(201);
    return { ...invoice, path: `/invoices/${invoice.id}/payments/${paid.body.data.payment.id}` };
  },
  "/api/v1/quotations/{id}": (s) => made(s, "/quotations", sale(s, s.ids.cot)),
  "/api/v1/purchases/{id}": async (s) => {
    const supplier = await createSupplier(s.tenant);
    const product = await createProduct(s.tenant.api, { cost: "60.00" });
    return made(s, "/purchases", { ...purchaseBody({ supplier, product, ids: s.ids }, "1", "60.00"), status: "draft" });
  },
  "/api/v1/contacts/{id}": (s) => made(s, "/contacts", { name: uniqueName("Cliente ") }),
  "/api/v1/products/{id}": (s) => made(s, "/products", { name: uniqueName("Producto "), price: "10.00" }),
  "/api/v1/taxes/{id}": (s) => made(s, "/taxes", { name: uniqueName("T "), type: "other", rate: "1", dgii_code: "002" }),
  "/api/v1/currencies/{id}": (s) => made(s, "/currencies", { code: "CAD", name: uniqueName("Dólar "), symbol: "C$" }),
  "/api/v1/document-subtypes/{id}": (s) =>
    made(s, "/document-subtypes", { name: uniqueName("S "), type: "invoice", prefix: "B16", end_number: 100, valid_until: "2027-12-31" }),
  "/api/v1/salesmen/{id}": (s) => made(s, "/salesmen", { full_name: uniqueName("V ") }),
  "/api/v1/bank-accounts/{id}": (s) => made(s, "/bank-accounts", { name: uniqueName("B ") }),
  "/api/v1/roles/{id}": (s) => made(s, "/roles", { name: uniqueName("r_").toLowerCase(), display_name: "Rol", permissions: ["products:view"] }),
  "/api/v1/workspace/members/{user_id}": async (s) => {
    const member = await seedUser(s.tenant, { role: "member", workspaceIds: [s.tenant.workspaceId] });
    return { path: `/workspace/members/${member.id}`, id: member.id, workspaceId: s.tenant.workspaceId };
  },
  // Their responses carry no workspace_id: they are the request's workspace's.
  "/api/messaging-bots/{bot}": async (s) => ({
    ...(await made(s, "/api/messaging-bots", { name: "Bot", token: botToken() })),
    workspaceId: s.tenant.workspaceId,
  }),
  "/api/chat-accounts/{account}": async (s) => ({ ...(await made(s, "/api/chat-accounts", chatAccountInput())), workspaceId: s.tenant.workspaceId }),
};

describe("deletions for a syncing client", () => {
  it("every DELETE route is classified, and each event it names is a type endpoints can subscribe to", () => {
    expect(deletePaths()).toEqual(Object.keys(DELETE_EVENTS).sort());
    for (const type of Object.values(DELETE_EVENTS)) if (type) expect(WEBHOOK_EVENT_TYPES, type).toContain(type);
    const withEvent = Object.keys(DELETE_EVENTS).filter((path) => DELETE_EVENTS[path]);
    expect(Object.keys(FIXTURES).sort(), "each DELETE with an event has a fixture the walk deletes").toEqual(withEvent.sort());
  });

  it("each DELETE with an event, walked: 200 and exactly one event of its type, naming the row (resource, workspace, data), found by GET /events' resource filter", async () => {
    const setup = await salesSetup();
    const { tenant } = setup;
    for (const [route, type] of Object.entries(DELETE_EVENTS) as [string, WebhookEventType | null][]) {
      if (!type) continue;
      const fixture = await FIXTURES[route]!(setup);
      const before = await storedEvents(tenant.tenantId, type);
      const res = await tenant.api.delete(fixture.path);
      expect(res.status, `${route} ${res.text}`).toBe(200);
      const added = (await storedEvents(tenant.tenantId, type)).slice(before.length);
      expect(added, route).toHaveLength(1);
      const [event] = added;
      const resource = WEBHOOK_EVENTS[type].resource;
      expect([event!.resource_type, event!.resource_id, event!.workspace_id], route).toEqual([resource, fixture.id, fixture.workspaceId]);
      if (type.endsWith(".deleted")) {
        expect({ ...event!.data, deleted_at: undefined }, route).toMatchObject({ id: fixture.id, workspace_id: fixture.workspaceId });
        expect(event!.data.deleted_at, route).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      } else {
        expect(event!.data.id, route).toBe(fixture.id);
      }
      const log = await tenant.api.get<Page<WebhookEvent>>(`/events?filter[resource_type]=${resource}&filter[resource_id]=${fixture.id}`);
      expect(log.status, route).toBe(200);
      const logged = log.body.data.find((e) => e.id === event!.public_id);
      expect(logged, route).toBeDefined();
      // deleted_at is the delete's transaction time: the event's created_at, on the database's clock.
      if (type.endsWith(".deleted")) expect(logged!.data, route).toMatchObject({ deleted_at: logged!.created_at });
    }
  });

  it("an invoice: a draft is removed (document_number null), one pending payment hidden with its NCF; deleting it again is 404 and records nothing", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const line = [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [] }];
    const draft = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: line,
      draft: true,
    });
    const issued = await tenant.api.post("/invoices", { contact_id: contact.id, document_subtype_id: ids.b02, issue_date: "2026-11-20", items: line });
    expect([draft.status, issued.status]).toEqual([201, 201]);
    expect((await tenant.api.delete(`/invoices/${draft.body.data.id}`)).status).toBe(200);
    expect((await tenant.api.delete(`/invoices/${issued.body.data.id}`, { body: { annulment_reason: "04" } })).status).toBe(200);
    const ws = tenant.workspaceId;
    const invoiceEvents = await storedEvents(tenant.tenantId, "invoice.deleted");
    expect(invoiceEvents.map((e) => [e.resource_id, e.workspace_id, e.data.id, e.data.document_number])).toEqual([
      [draft.body.data.id, ws, draft.body.data.id, null],
      [issued.body.data.id, ws, issued.body.data.id, issued.body.data.document_number],
    ]);
    // A deletion, not a cancellation: no invoice.cancelled (nor invoice.updated) for either.
    expect(await storedEvents(tenant.tenantId, "invoice.cancelled", "invoice.updated")).toEqual([]);
    expect((await tenant.api.delete(`/invoices/${issued.body.data.id}`)).status).toBe(404);
    expect(await storedEvents(tenant.tenantId, "invoice.deleted")).toHaveLength(2);
  });

  it("a role's past invitations, deleted with it, each leave their workspace's list with invitation.deleted; a pending one refuses the delete and nothing is recorded", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant);
    const role = await tenant.api.post("/roles", { name: uniqueName("r_").toLowerCase(), display_name: "Rol", permissions: ["products:view"] });
    expect(role.status, role.text).toBe(201);
    const invite = async (workspaceId: number) => {
      const res = await tenant.api.post(
        "/workspace/invitations",
        { email: `${uniqueName("i").toLowerCase()}@example.com`, role: role.body.data.name },
        { headers: { "X-Workspace-ID": String(workspaceId) } },
      );
      expect(res.status, res.text).toBe(201);
      return res.body.data.id as number;
    };
    const [here, there] = [await invite(tenant.workspaceId), await invite(second)];
    expect((await tenant.api.delete(`/workspace/invitations/${here}`)).status).toBe(200);

    // `there` is still pending: 409, and neither event.
    const refused = await tenant.api.delete(`/roles/${role.body.data.id}`);
    expect([refused.status, refused.body.code]).toEqual([409, "role_in_use"]);
    expect(await storedEvents(tenant.tenantId, "role.deleted", "invitation.deleted")).toEqual([]);

    expect((await tenant.api.delete(`/workspace/invitations/${there}`, { headers: { "X-Workspace-ID": String(second) } })).status).toBe(200);
    expect((await tenant.api.delete(`/roles/${role.body.data.id}`)).status).toBe(200);
    const events = await storedEvents(tenant.tenantId, "role.deleted", "invitation.deleted");
    expect(events.map((e) => [e.type, e.resource_type, e.resource_id, e.workspace_id, e.data.id, e.data.workspace_id])).toEqual([
      ["role.deleted", "role", role.body.data.id, null, role.body.data.id, null],
      ["invitation.deleted", "invitation", here, tenant.workspaceId, here, tenant.workspaceId],
      ["invitation.deleted", "invitation", there, second, there, second],
    ]);
    // What the events say: the invitations are gone from both lists.
    for (const [id, workspaceId] of [
      [here, tenant.workspaceId],
      [there, second],
    ]) {
      const list = await tenant.api.get("/workspace/invitations", { headers: { "X-Workspace-ID": String(workspaceId) } });
      expect(list.status).toBe(200);
      expect(list.body.data.map((i: { id: number }) => i.id)).not.toContain(id);
    }
    const log = await tenant.api.get(`/events?filter[resource_type]=invitation&filter[resource_id]=${there}`);
    expect(log.body.data.map((e: { type: string; workspace_id: number }) => [e.type, e.workspace_id])).toEqual([["invitation.deleted", second]]);
  });

  it("a refused delete records nothing: rows in use (409 in_use), a paid invoice, an approved quotation, the owner, the default currency, a built-in role; voiding an entered purchase keeps it in the list, no purchase.deleted", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const bank = await tenant.api.post("/bank-accounts", { name: uniqueName("B ") });
    const salesman = await tenant.api.post("/salesmen", { full_name: uniqueName("V ") });
    expect([bank.status, salesman.status]).toEqual([201, 201]);
    const invoice = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      salesman_ids: [salesman.body.data.id],
      items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [ids.itbis18] }],
    });
    expect(invoice.status, invoice.text).toBe(201);
    const invoiceId = invoice.body.data.id as number;
    const paid = await tenant.api.post(`/invoices/${invoiceId}/payments`, {
      amount: invoice.body.data.total_amount,
      payment_date: "2026-11-21",
      payment_method: "bank_transfer",
      bank_account_id: bank.body.data.id,
    });
    expect(paid.status, paid.text).toBe(201);
    const quotation = await tenant.api.post("/quotations", {
      contact_id: contact.id,
      document_subtype_id: ids.cot,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [] }],
    });
    expect(quotation.status, quotation.text).toBe(201);
    await walk(tenant.api, quotation.body.data.id, ["send", "approve"]);

    const refusals: [string, string][] = [
      [`/invoices/${invoiceId}`, "invoice_not_deletable"],
      [`/quotations/${quotation.body.data.id}`, "invalid_transition"],
      [`/contacts/${contact.id}`, "in_use"],
      [`/products/${service.id}`, "in_use"],
      [`/taxes/${ids.itbis18}`, "in_use"],
      [`/document-subtypes/${ids.b02}`, "in_use"],
      [`/salesmen/${salesman.body.data.id}`, "in_use"],
      [`/bank-accounts/${bank.body.data.id}`, "in_use"],
      [`/workspace/members/${tenant.admin.id}`, "owner_cannot_be_removed"],
    ];
    for (const [path, code] of refusals) {
      const res = await tenant.api.delete(path);
      expect([res.status, res.body.code], path).toEqual([409, code]);
    }
    // The default currency (409 in_use) and a built-in role (403).
    const currencies = await tenant.api.get("/currencies");
    const base = currencies.body.data.find((c: { is_default: boolean }) => c.is_default);
    expect((await tenant.api.delete(`/currencies/${base.id}`)).status).toBe(409);
    const roles = await tenant.api.get("/roles");
    const admin = roles.body.data.find((r: { name: string }) => r.name === "admin");
    expect((await tenant.api.delete(`/roles/${admin.id}`)).status).toBe(403);

    // An entered purchase is voided, not deleted: it stays in the list with its status, and an incremental sync sees it.
    const supplier = await createSupplier(tenant);
    const product = await createProduct(tenant.api, { cost: "60.00" });
    const purchase = await tenant.api.post("/purchases", purchaseBody({ supplier, product, ids }, "1", "60.00"));
    expect(purchase.status, purchase.text).toBe(201);
    const before = await mark();
    const voided = await tenant.api.delete(`/purchases/${purchase.body.data.id}`, { body: { reason: "Factura duplicada" } });
    expect([voided.status, voided.body.message]).toEqual([200, "Purchase voided."]);
    const listed = await tenant.api.get(`/purchases?filter%5Bupdated_since%5D=${encodeURIComponent(before)}`);
    expect(listed.body.data.map((p: { id: number; status: string }) => [p.id, p.status])).toEqual([[purchase.body.data.id, "voided"]]);

    const deletions = (await storedEvents(tenant.tenantId)).filter((e) => e.type.endsWith(".deleted"));
    expect(deletions).toEqual([]);
  });

  it("an invoice changed without a list leaving: a payment removed, a debit note and a credit note each send invoice.updated with the invoice after the change", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const paid = await tenant.api.post(`/invoices/${id}/payments`, { amount: "40.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(paid.status).toBe(201);
    expect((await tenant.api.delete(`/invoices/${id}/payments/${paid.body.data.payment.id}`)).status).toBe(200);
    let [updated] = await storedEvents(tenant.tenantId, "invoice.updated");
    expect(updated!.data).toMatchObject({ id, amount_paid: "0.00", status: "pending_payment", payments: [] });

    const note = await tenant.api.post(`/invoices/${id}/debit-notes`, {
      modification_code: 3,
      reason: "Intereses por mora",
      items: [{ description: "Intereses", amount: "15.00" }],
    });
    expect(note.status, note.text).toBe(201);
    const events = await storedEvents(tenant.tenantId, "invoice.updated");
    expect(events).toHaveLength(2);
    updated = events[1];
    expect(updated!.data).toEqual((await tenant.api.get(`/invoices/${id}`)).body.data);
    expect(updated!.data.debit_notes.map((n: { id: number }) => n.id)).toEqual([note.body.data.id]);

    // A credit of everything left settles the invoice: invoice.updated says paid, and no invoice.paid (nothing was received).
    const credit = await tenant.api.post(`/invoices/${id}/credit-notes`, {
      modification_code: 3,
      reason: "Descuento total acordado",
      items: [{ description: "Descuento", amount: "115.00" }],
    });
    expect(credit.status, credit.text).toBe(201);
    const after = await storedEvents(tenant.tenantId, "invoice.updated", "credit_note.created", "invoice.paid");
    expect(after.map((e) => [e.type, e.resource_id])).toEqual([
      ["invoice.updated", id],
      ["invoice.updated", id],
      ["credit_note.created", credit.body.data.id],
      ["invoice.updated", id],
    ]);
    expect(after[3]!.data).toEqual((await tenant.api.get(`/invoices/${id}`)).body.data);
    expect(after[3]!.data).toMatchObject({ status: "paid", amount_due: "0.00", credited_amount: "115.00" });
  });
});

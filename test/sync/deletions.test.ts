import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { WEBHOOK_EVENT_TYPES } from "../../src/modules/webhooks/schemas";
import { botToken, chatAccountInput } from "../integrations/helpers";
import { createSupplier, purchaseBody } from "../purchases/helpers";
import { walk } from "../quotations/helpers";
import { salesSetup, serviceInvoice } from "../support/sales";
import { type SeededTenant, seedTenant, seedUser, seedWorkspace, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";
import { storedEvents } from "../webhooks/helpers";
import { mark } from "./helpers";

/**
 * What each DELETE route tells a syncing client (docs/api.md, "Deletions"): a row that leaves a
 * list has its `<resource>.deleted` event; a DELETE that changes a row which stays has that row's
 * change event; the rest say why they need none. A new DELETE route fails the first test until it is
 * classified here.
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

/** The one event of `type` the tenant has, checked to be `{id, workspace_id, deleted_at}` of the row. */
async function expectDeleted(tenant: SeededTenant, type: string, id: number, workspaceId: number | null) {
  const events = await storedEvents(tenant.tenantId, type);
  expect(events, type).toHaveLength(1);
  const [event] = events;
  expect(event!.resource_type, type).toBe(type.replace(/\.deleted$/, ""));
  expect(event!.resource_id, type).toBe(id);
  expect(event!.workspace_id, type).toBe(workspaceId);
  expect({ ...event!.data, deleted_at: undefined }, type).toMatchObject({ id, workspace_id: workspaceId });
  expect(Number.isNaN(Date.parse(event!.data.deleted_at)), type).toBe(false);
  return event!;
}

describe("deletions for a syncing client", () => {
  it("every DELETE route is classified, and each event it names is a type endpoints can subscribe to", () => {
    expect(deletePaths()).toEqual(Object.keys(DELETE_EVENTS).sort());
    for (const type of Object.values(DELETE_EVENTS)) if (type) expect(WEBHOOK_EVENT_TYPES, type).toContain(type);
  });

  it("the company's catalog rows: tax, currency, document subtype, salesman, bank account and role, each once, workspace null", async () => {
    const tenant = await seedTenant();
    const created: [string, string, Record<string, unknown>][] = [
      ["tax.deleted", "/taxes", { name: uniqueName("T "), type: "other", rate: "1", dgii_code: "002" }],
      ["currency.deleted", "/currencies", { code: "CAD", name: uniqueName("Dólar "), symbol: "C$" }],
      [
        "document_subtype.deleted",
        "/document-subtypes",
        { name: uniqueName("S "), type: "invoice", prefix: "B16", end_number: 100, valid_until: "2027-12-31" },
      ],
      ["salesman.deleted", "/salesmen", { full_name: uniqueName("V ") }],
      ["bank_account.deleted", "/bank-accounts", { name: uniqueName("B ") }],
      ["role.deleted", "/roles", { name: uniqueName("r_").toLowerCase(), display_name: "Rol", permissions: ["products:view"] }],
    ];
    for (const [type, path, body] of created) {
      const res = await tenant.api.post(path, body);
      expect(res.status, `${path} ${res.text}`).toBe(201);
      const id = res.body.data.id as number;
      expect((await tenant.api.delete(`${path}/${id}`)).status, path).toBe(200);
      await expectDeleted(tenant, type, id, null);
    }
    // Refused deletes record nothing: the default currency (409 in_use), a built-in role (403).
    const currencies = await tenant.api.get("/currencies");
    const base = currencies.body.data.find((c: { is_default: boolean }) => c.is_default);
    expect((await tenant.api.delete(`/currencies/${base.id}`)).status).toBe(409);
    const roles = await tenant.api.get("/roles");
    const admin = roles.body.data.find((r: { name: string }) => r.name === "admin");
    expect((await tenant.api.delete(`/roles/${admin.id}`)).status).toBe(403);
    expect((await storedEvents(tenant.tenantId, "currency.deleted", "role.deleted")).length).toBe(2);
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

  it("a workspace's rows: draft and issued invoice, quotation, draft purchase, member, messaging bot, chat account", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const ws = tenant.workspaceId;
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
    const invoiceEvents = await storedEvents(tenant.tenantId, "invoice.deleted");
    expect(invoiceEvents.map((e) => [e.resource_id, e.workspace_id, e.data.id, e.data.document_number])).toEqual([
      [draft.body.data.id, ws, draft.body.data.id, null],
      [issued.body.data.id, ws, issued.body.data.id, issued.body.data.document_number],
    ]);
    // Deleting it again: 404, nothing more.
    expect((await tenant.api.delete(`/invoices/${issued.body.data.id}`)).status).toBe(404);
    expect(await storedEvents(tenant.tenantId, "invoice.deleted")).toHaveLength(2);

    const quotation = await tenant.api.post("/quotations", { contact_id: contact.id, document_subtype_id: ids.cot, issue_date: "2026-11-20", items: line });
    expect(quotation.status, quotation.text).toBe(201);
    expect((await tenant.api.delete(`/quotations/${quotation.body.data.id}`)).status).toBe(200);
    await expectDeleted(tenant, "quotation.deleted", quotation.body.data.id, ws);

    const supplier = await createSupplier(tenant);
    const product = await createProduct(tenant.api, { cost: "60.00" });
    const purchase = await tenant.api.post("/purchases", { ...purchaseBody({ supplier, product, ids }, "1", "60.00"), status: "draft" });
    expect(purchase.status, purchase.text).toBe(201);
    const removed = await tenant.api.delete(`/purchases/${purchase.body.data.id}`);
    expect(removed.status, removed.text).toBe(200);
    await expectDeleted(tenant, "purchase.deleted", purchase.body.data.id, ws);

    const member = await seedUser(tenant, { role: "member", workspaceIds: [ws] });
    expect((await tenant.api.delete(`/workspace/members/${member.id}`)).status).toBe(200);
    await expectDeleted(tenant, "member.deleted", member.id, ws);

    const bot = await tenant.api.post("/api/messaging-bots", { name: "Bot", token: botToken() });
    expect(bot.status, bot.text).toBe(201);
    expect((await tenant.api.delete(`/api/messaging-bots/${bot.body.data.id}`)).status).toBe(200);
    await expectDeleted(tenant, "messaging_bot.deleted", bot.body.data.id, ws);

    const account = await tenant.api.post("/api/chat-accounts", chatAccountInput());
    expect(account.status, account.text).toBe(201);
    expect((await tenant.api.delete(`/api/chat-accounts/${account.body.data.id}`)).status).toBe(200);
    await expectDeleted(tenant, "chat_account.deleted", account.body.data.id, ws);

    // GET /events finds them by resource.
    const log = await tenant.api.get(`/events?filter[resource_type]=quotation&filter[resource_id]=${quotation.body.data.id}`);
    expect(log.status).toBe(200);
    expect(log.body.data.map((e: { type: string }) => e.type)).toEqual(["quotation.deleted"]);
  });

  it("a refused delete records nothing: rows in use (409 in_use), a paid invoice, an approved quotation, the owner; voiding an entered purchase keeps it in the list, no purchase.deleted", async () => {
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

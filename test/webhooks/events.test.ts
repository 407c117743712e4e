import { describe, expect, it, vi } from "vitest";
import { ecfTenant, issueE31, script, waitForStatus } from "../ecf/helpers";
import { quotationSetup, walk } from "../quotations/helpers";
import { salesSetup } from "../support/sales";
import { createProduct, initialStock } from "../support/stock";
import { receivedHooks, receiverEndpoint, storedEvents } from "./helpers";

const events = storedEvents;

const line = (productId: number, price: string, quantity = "1") => [{ product_id: productId, quantity, unit_price: price, tax_ids: [] }];

describe("webhook events: invoice.updated, quotation.converted, product.stock_low, ecf.accepted / ecf.rejected", () => {
  it("invoice.updated: a PATCH of an invoice or a draft, and issuing a draft, each with GET /invoices/{id}'s data; a refused PATCH emits nothing", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const hook = await receiverEndpoint(tenant, ["invoice.updated"]);
    const issued = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: line(service.id, "100.00"),
    });
    expect(issued.status, issued.text).toBe(201);
    const id = issued.body.data.id as number;

    const patched = await tenant.api.patch(`/invoices/${id}`, { notes: "Entregar en la tarde", items: line(service.id, "250.00") });
    expect(patched.status, patched.text).toBe(200);
    const refused = await tenant.api.patch(`/invoices/${id}`, { contact_id: 99_999_999 });
    expect(refused.status).toBe(422);

    const draft = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: line(service.id, "10.00"),
    });
    expect(draft.status, draft.text).toBe(201);
    const draftId = draft.body.data.id as number;
    expect((await tenant.api.patch(`/invoices/${draftId}`, { notes: "Borrador revisado" })).status).toBe(200);
    const draftView = (await tenant.api.get(`/invoices/${draftId}`)).body.data;
    const issue = await tenant.api.post(`/invoices/${draftId}/issue`);
    expect(issue.status, issue.text).toBe(200);

    const updated = await events(tenant.tenantId, "invoice.updated");
    expect(updated.map((e) => [e.resource_type, e.resource_id, e.data.status])).toEqual([
      ["invoice", id, "pending_payment"],
      ["invoice", draftId, "draft"],
      ["invoice", draftId, "pending_payment"],
    ]);
    expect(updated[0]!.data).toEqual((await tenant.api.get(`/invoices/${id}`)).body.data);
    expect(updated[0]!.data.total_amount).toBe("250.00");
    expect(updated[0]!.data.notes).toBe("Entregar en la tarde");
    expect(updated[1]!.data).toEqual(draftView);
    expect(updated[2]!.data).toEqual((await tenant.api.get(`/invoices/${draftId}`)).body.data);
    expect(updated[2]!.data.document_number).toBe("B0200000002");
    // Issuing a draft is an update of the invoice whose invoice.created the draft already sent.
    expect((await events(tenant.tenantId, "invoice.created")).map((e) => e.resource_id)).toEqual([id, draftId]);
    expect(updated.every((e) => e.workspace_id === tenant.workspaceId)).toBe(true);

    await vi.waitFor(async () => expect(await receivedHooks(hook.key)).toHaveLength(3), { timeout: 15_000, interval: 100 });
    expect((await receivedHooks(hook.key)).map((h) => h.body.id).sort()).toEqual(updated.map((e) => e.public_id).sort());
  });

  it("quotation.converted: the quotation as GET /quotations/{id} returns it, with its invoice_id, after the invoice's invoice.created; a second convert (409) emits nothing", async () => {
    const { tenant, create } = await quotationSetup();
    const q = await create();
    await walk(tenant.api, q.id, ["send", "approve"]);
    const res = await tenant.api.post(`/quotations/${q.id}/convert-to-invoice`);
    expect(res.status, res.text).toBe(201);
    const invoiceId = res.body.data.invoice_id as number;
    const again = await tenant.api.post(`/quotations/${q.id}/convert-to-invoice`);
    expect(again.status).toBe(409);

    const stored = await events(tenant.tenantId, "invoice.created", "quotation.converted");
    expect(stored.map((e) => [e.type, e.resource_type, e.resource_id])).toEqual([
      ["invoice.created", "invoice", invoiceId],
      ["quotation.converted", "quotation", q.id],
    ]);
    expect(stored[0]!.data).toEqual((await tenant.api.get(`/invoices/${invoiceId}`)).body.data);
    expect(stored[1]!.data).toEqual((await tenant.api.get(`/quotations/${q.id}`)).body.data);
    expect(stored[1]!.data).toMatchObject({ id: q.id, status: "converted", invoice_id: invoiceId });
  });

  it("product.stock_low: once per crossing of the minimum (sales and adjustments; a refused sale moves nothing), data as GET /inventory/low-stock lists it", async () => {
    const { tenant, ids, contact } = await salesSetup();
    const product = await createProduct(tenant.api);
    await initialStock(tenant.api, [{ product_id: product.id, quantity: "10" }]);
    const minimum = await tenant.api.put(`/products/${product.id}/stock/minimum`, { workspace_id: tenant.workspaceId, minimum_quantity: "5" });
    expect(minimum.status, minimum.text).toBe(200);
    const sell = async (quantity: string, status = 201) => {
      const res = await tenant.api.post("/invoices", {
        contact_id: contact.id,
        document_subtype_id: ids.b02,
        issue_date: "2026-11-20",
        items: line(product.id, "100.00", quantity),
      });
      expect(res.status, res.text).toBe(status);
    };
    const adjust = async (quantity: string) => {
      const res = await tenant.api.post("/inventory-adjustments", {
        items: [{ product_id: product.id, quantity_adjustment: quantity, reason: quantity.startsWith("-") ? "lost" : "found" }],
      });
      expect(res.status, res.text).toBe(201);
    };
    const lows = async () => events(tenant.tenantId, "product.stock_low");

    await sell("4"); // 10 → 6: above the minimum
    expect(await lows()).toEqual([]);
    await sell("1"); // 6 → 5: at the minimum, a crossing
    const [first] = await lows();
    const listed = (await tenant.api.get(`/inventory/low-stock?workspace_id=${tenant.workspaceId}`)).body.data;
    expect(first!.data).toEqual(listed[0]);
    expect(first!.data).toMatchObject({
      product_id: product.id,
      workspace_id: tenant.workspaceId,
      current_quantity: "5.00",
      minimum_quantity: "5.00",
      deficit: "0.00",
    });
    expect([first!.resource_type, first!.resource_id, first!.workspace_id]).toEqual(["product", product.id, tenant.workspaceId]);

    await sell("1"); // 5 → 4: still low, no new crossing
    await adjust("-1"); // 4 → 3: still low
    await sell("50", 422); // refused (insufficient stock): nothing moved, nothing emitted
    expect(await lows()).toHaveLength(1);
    await adjust("7"); // 3 → 10: back above, nothing
    expect(await lows()).toHaveLength(1);
    await adjust("-6"); // 10 → 4: a second crossing
    const after = await lows();
    expect(after).toHaveLength(2);
    expect(after[1]!.data).toMatchObject({ current_quantity: "4.00", deficit: "1.00" });
  });

  it("ecf.accepted and ecf.rejected when DGII's final answer is recorded, data as GET /ecf/submissions lists the e-CF, delivered through the queue", async () => {
    const t = await ecfTenant();
    const hook = await receiverEndpoint(t.tenant, ["ecf.accepted", "ecf.rejected"]);
    const accepted = await issueE31(t);
    await waitForStatus(t, `/invoices/${accepted.id}`, "accepted");
    await script(t.signer, { results: ["rejected"] });
    const rejected = await issueE31(t);
    await waitForStatus(t, `/invoices/${rejected.id}`, "rejected");

    const stored = await events(t.tenant.tenantId, "ecf.accepted", "ecf.rejected");
    expect(stored.map((e) => [e.type, e.resource_type, e.resource_id, e.data.status, e.data.encf])).toEqual([
      ["ecf.accepted", "invoice", accepted.id, "accepted", accepted.document_number],
      ["ecf.rejected", "invoice", rejected.id, "rejected", rejected.document_number],
    ]);
    // The e-CF at the moment of DGII's answer: its delivery to the buyer (the next step) was still pending.
    const listed = (await t.tenant.api.get("/ecf/submissions")).body.data;
    const listedFor = (id: number) => listed.find((row: { document_id: number }) => row.document_id === id);
    // With the transition it is (test/ecf/events.test.ts follows every one).
    expect(stored[0]!.data).toEqual({
      ...listedFor(accepted.id),
      buyer_delivery: expect.anything(),
      transition: expect.objectContaining({ state: "accepted" }),
    });
    expect(stored[0]!.data.buyer_delivery.status).toBe("pending");
    expect(stored[1]!.data).toEqual({ ...listedFor(rejected.id), transition: expect.objectContaining({ state: "rejected" }) });
    expect(stored[1]!.data.buyer_delivery).toBeNull();
    await vi.waitFor(async () => expect(await receivedHooks(hook.key)).toHaveLength(2), { timeout: 15_000, interval: 100 });
    const hits = await receivedHooks(hook.key);
    expect(hits.map((h) => h.body.type).sort()).toEqual(["ecf.accepted", "ecf.rejected"]);
    expect(hits.every((h) => h.verified.current)).toBe(true);
  });
});

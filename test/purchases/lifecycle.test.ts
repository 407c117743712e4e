import { describe, expect, it } from "vitest";
import type { PurchaseDetail, PurchaseSummary } from "../../src/modules/purchases/schemas";
import type { Data, Page } from "../support/api";
import { inParallel } from "../support/parallel";
import { createContact } from "../support/sales";
import { seedUser, seedWorkspace } from "../support/seed";
import { levelOf } from "../support/stock";
import { costOf, createPurchase, createSupplier, purchaseBody, purchaseSetup, sell } from "./helpers";

describe("purchases: rules, drafts, payments, lists, scope", () => {
  it("refuses a supplier NCF booked already for the supplier (409), also when two requests race; another supplier may carry it", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const body = purchaseBody(setup, "1", "10.00");
    await createPurchase(tenant, body);
    const duplicate = await tenant.api.post("/purchases", { ...body, supplier_ncf: body.supplier_ncf.toLowerCase() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({
      message: `The supplier's NCF ${body.supplier_ncf} is already booked for this supplier.`,
      code: "duplicate_supplier_ncf",
      errors: { supplier_ncf: ["Already booked for this supplier."] },
    });
    const asDraft = await tenant.api.post("/purchases", { ...body, status: "draft" });
    expect(asDraft.status).toBe(409);
    const other = await createSupplier(tenant);
    await createPurchase(tenant, { ...body, supplier_id: other.id });

    const race = purchaseBody(setup, "1", "10.00");
    const results = await inParallel(
      [0, 1].map(() => () => tenant.api.post("/purchases", race)),
      2,
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe("duplicate_supplier_ncf");
    // One purchase of 1 unit per accepted request: the loser moved no stock.
    expect(await levelOf(setup.product.id, tenant.workspaceId)).toBe("3.00");
  });

  it("validates the supplier, the NCF, the expense type and the withholdings", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const customer = await createContact(tenant.api);
    const cases: [Record<string, unknown>, string][] = [
      [{ supplier_id: customer.id }, "supplier_id"],
      [{ supplier_id: null }, "supplier_id"],
      [{ supplier_ncf: null }, "supplier_ncf"],
      [{ supplier_ncf: "B010000001" }, "supplier_ncf"],
      [{ supplier_ncf: "E3100000001" }, "supplier_ncf"],
      [{ supplier_ncf: "B1100000001" }, "supplier_ncf"],
      [{ supplier_ncf: "X0100000001" }, "supplier_ncf"],
      [{ expense_type: "12" }, "expense_type"],
      [{ itbis_withheld: "10.00" }, "withholding_date"],
      [{ itbis_withheld: "18.01", withholding_date: "2026-11-30" }, "itbis_withheld"],
      [{ isr_withheld: "118.01", withholding_date: "2026-11-30" }, "isr_withheld"],
      [{ items: [{ quantity: "1", unit_cost: "5" }] }, "items.0.description"],
    ];
    for (const [override, field] of cases) {
      const res = await tenant.api.post("/purchases", purchaseBody(setup, "1", "100.00", override));
      expect(res.status, JSON.stringify(override)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(override)).toEqual([field]);
    }
    // A line whose amount overflows what a document stores names the purchase's own fields (issue 44), not a sale's unit_price.
    const overflow = await tenant.api.post("/purchases", purchaseBody(setup, "99999999.99", "9999999999.9999"));
    expect(overflow.status, overflow.text).toBe(422);
    expect(overflow.body.errors).toEqual({
      "items.0.quantity": ["The line's amount (quantity × unit cost, with its taxes) exceeds 999999999999.99."],
      "items.0.unit_cost": ["The line's amount (quantity × unit cost, with its taxes) exceeds 999999999999.99."],
    });
    // An e-NCF of 13 characters is a valid supplier document.
    const ecf = await createPurchase(tenant, purchaseBody(setup, "1", "100.00", { supplier_ncf: "E310000000123" }));
    expect(ecf.supplier_ncf).toBe("E310000000123");
    const both = await createContact(tenant.api, { contact_type: "both" });
    await createPurchase(tenant, purchaseBody(setup, "1", "100.00", { supplier_id: both.id }));
  });

  it("withholdings reduce what is due to the supplier; payments move the status to paid", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    // 1,000.00 + ITBIS 180.00; 30 % of the ITBIS and 10 % ISR withheld.
    const res = await createPurchase(
      tenant,
      purchaseBody(setup, "10", "100.00", { itbis_withheld: "54.00", isr_withheld: "100.00", withholding_date: "2026-11-30", expense_type: "02" }),
    );
    expect(res).toMatchObject({
      total_amount: "1180.00",
      itbis_withheld: "54.00",
      isr_withheld: "100.00",
      amount_due: "1026.00",
      withholding_date: "2026-11-30",
    });
    const over = await tenant.api.post(`/purchases/${res.id}/payments`, { amount: "1026.01", payment_date: "2026-11-30", payment_method: "cash" });
    expect(over.status).toBe(422);
    expect(over.body.errors.amount[0]).toContain("1026.00");
    const part = await tenant.api.post(`/purchases/${res.id}/payments`, { amount: "26.00", payment_date: "2026-11-30", payment_method: "cash" });
    expect(part.status, part.text).toBe(201);
    expect(part.body.data.purchase).toMatchObject({ status: "partially_paid", amount_paid: "26.00", amount_due: "1000.00" });
    const voiding = await tenant.api.delete(`/purchases/${res.id}`, { body: { reason: "error" } });
    expect(voiding.status).toBe(409);
    expect(voiding.body.code).toBe("purchase_has_payments");
    const rest = await tenant.api.post(`/purchases/${res.id}/payments`, { amount: "1000.00", payment_date: "2026-12-01", payment_method: "bank_transfer" });
    expect(rest.body.data.purchase).toMatchObject({ status: "paid", amount_due: "0.00", amount_paid: "1026.00" });
    const paidAgain = await tenant.api.post(`/purchases/${res.id}/payments`, { amount: "1", payment_date: "2026-12-01", payment_method: "cash" });
    expect(paidAgain.status).toBe(409);
    expect(paidAgain.body.code).toBe("purchase_not_payable");
    const removed = await tenant.api.delete(`/purchases/${res.id}/payments/${part.body.data.payment.id}`);
    expect(removed.body.data).toMatchObject({ status: "partially_paid", amount_paid: "1000.00", amount_due: "26.00" });
    const got = await tenant.api.get<Data<PurchaseDetail>>(`/purchases/${res.id}`);
    expect(got.body.data.payments).toEqual([
      { id: rest.body.data.payment.id, amount: "1000.00", payment_date: "2026-12-01", payment_method: "bank_transfer", bank_account_id: null },
    ]);
  });

  it("20 parallel payments of 10 % each: exactly 10 succeed and the purchase ends paid", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const res = await createPurchase(
      tenant,
      purchaseBody(setup, "1", "500.00", { items: [{ product_id: setup.product.id, quantity: "1", unit_cost: "500.00", tax_ids: [] }] }),
    );
    const users = await Promise.all([0, 1].map(() => seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] })));
    const results = await inParallel(
      Array.from(
        { length: 20 },
        (_, i) => () => users[i % 2]!.api.post(`/purchases/${res.id}/payments`, { amount: "50.00", payment_date: "2026-11-21", payment_method: "cash" }),
      ),
      20,
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409 || s === 422)).toBe(true);
    const got = await tenant.api.get<Data<PurchaseDetail>>(`/purchases/${res.id}`);
    expect(got.body.data).toMatchObject({ status: "paid", amount_paid: "500.00", amount_due: "0.00" });
    expect(got.body.data.payments).toHaveLength(10);
  });

  it("a draft moves no stock and changes freely; entered, it takes stock and cost and can no longer change; a draft is deleted outright", async () => {
    const setup = await purchaseSetup();
    const { tenant, product } = setup;
    const draft = await createPurchase(tenant, purchaseBody(setup, "4", "50.00", { status: "draft" }));
    expect(draft).toMatchObject({ status: "draft", total_amount: "236.00" });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("0.00");
    const patched = await tenant.api.patch(`/purchases/${draft.id}`, {
      items: [{ product_id: product.id, quantity: "5", unit_cost: "40.00", tax_ids: [] }],
      notes: "Pedido 77",
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ status: "draft", total_amount: "200.00", notes: "Pedido 77", supplier_ncf: draft.supplier_ncf });
    const entered = await tenant.api.post(`/purchases/${draft.id}/enter`);
    expect(entered.status, entered.text).toBe(200);
    expect(entered.body.data).toMatchObject({ status: "pending_payment", total_amount: "200.00" });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("5.00");
    expect(await costOf(product.id)).toBe("40.00");
    const late = await tenant.api.patch(`/purchases/${draft.id}`, { notes: "tarde" });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("purchase_not_draft");
    expect((await tenant.api.post(`/purchases/${draft.id}/enter`)).body.code).toBe("purchase_not_draft");

    const other = await createPurchase(tenant, purchaseBody(setup, "1", "1.00", { status: "draft" }));
    const deleted = await tenant.api.delete(`/purchases/${other.id}`);
    expect(deleted.body.message).toBe("Draft deleted.");
    expect((await tenant.api.get(`/purchases/${other.id}`)).status).toBe(404);
  });

  it("voiding a purchase whose goods were sold is refused (422 insufficient_stock) and changes nothing; a create replays under its Idempotency-Key", async () => {
    const setup = await purchaseSetup();
    const { tenant, product } = setup;
    const headers = { "idempotency-key": "compra-2026-11-20-001" };
    const body = purchaseBody(setup, "2", "50.00");
    const bought = await createPurchase(tenant, body, headers);
    const replay = await tenant.api.post("/purchases", body, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data.id).toBe(bought.id);
    await sell(setup, "2");
    const refused = await tenant.api.delete(`/purchases/${bought.id}`, { body: { reason: "Devuelta al suplidor" } });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("insufficient_stock");
    expect((await tenant.api.get<Data<PurchaseDetail>>(`/purchases/${bought.id}`)).body.data.status).toBe("pending_payment");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("0.00");
    expect(await costOf(product.id)).toBe("50.00");
  });

  it("lists filter by supplier, status, expense type and issue dates, and sort", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const otherSupplier = await createSupplier(tenant);
    const a = await createPurchase(tenant, purchaseBody(setup, "1", "10.00", { issue_date: "2026-10-01", expense_type: "01" }));
    const b = await createPurchase(tenant, purchaseBody(setup, "1", "30.00", { issue_date: "2026-10-15", supplier_id: otherSupplier.id }));
    const c = await createPurchase(tenant, purchaseBody(setup, "1", "20.00", { issue_date: "2026-11-01", status: "draft" }));
    const ids = async (query: string) => (await tenant.api.get<Page<PurchaseSummary>>(`/purchases?${query}`)).body.data.map((p) => p.id);
    expect(await ids("")).toEqual([c.id, b.id, a.id]);
    expect(await ids("sort=total_amount")).toEqual([a.id, c.id, b.id]);
    expect(await ids(`filter[supplier_id]=${otherSupplier.id}`)).toEqual([b.id]);
    expect(await ids("filter[status]=draft")).toEqual([c.id]);
    expect(await ids("filter[expense_type]=01")).toEqual([a.id]);
    expect(await ids("filter[issue_date_from]=2026-10-02&filter[issue_date_to]=2026-11-01")).toEqual([c.id, b.id]);
    const page = await tenant.api.get<Page<PurchaseSummary>>("/purchases?per_page=2&page=2");
    expect(page.body.meta).toMatchObject({ total: 3, current_page: 2, last_page: 2 });
    expect((await tenant.api.get("/purchases?filter[expense_type]=13")).status).toBe(422);
  });

  it("belongs to its workspace: another branch's request gets 404 and an empty list; a member without purchases:create is refused", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const res = await createPurchase(tenant, purchaseBody(setup, "2", "10.00"));
    const branch = await seedWorkspace(tenant);
    const inBranch = { headers: { "X-Workspace-ID": String(branch) } };
    expect((await tenant.api.get(`/purchases/${res.id}`, inBranch)).status).toBe(404);
    expect((await tenant.api.patch(`/purchases/${res.id}`, { notes: "x" }, inBranch)).status).toBe(404);
    expect((await tenant.api.delete(`/purchases/${res.id}`, { ...inBranch, body: { reason: "x" } })).status).toBe(404);
    expect((await tenant.api.post(`/purchases/${res.id}/payments`, { amount: "1", payment_date: "2026-11-21", payment_method: "cash" }, inBranch)).status).toBe(
      404,
    );
    expect((await tenant.api.get<Page<PurchaseSummary>>("/purchases", inBranch)).body.data).toEqual([]);
    const clerk = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await clerk.api.post("/purchases", purchaseBody(setup, "1", "1.00"))).status).toBe(403);
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get(`/purchases/${res.id}`)).status).toBe(200);
    expect((await viewer.api.delete(`/purchases/${res.id}`, { body: { reason: "x" } })).status).toBe(403);
    // A purchase entered in the branch adds stock there, not in the main workspace.
    const branchSupplier = await tenant.api.post("/contacts", { name: "Suplidor de la sucursal", contact_type: "supplier" }, inBranch);
    expect(branchSupplier.status, branchSupplier.text).toBe(201);
    await createPurchase(tenant, purchaseBody(setup, "3", "10.00", { supplier_id: branchSupplier.body.data.id }), inBranch.headers);
    expect(await levelOf(setup.product.id, branch)).toBe("3.00");
    expect(await levelOf(setup.product.id, tenant.workspaceId)).toBe("2.00");
  });
});

import { describe, expect, it } from "vitest";
import { inParallel } from "../support/parallel";
import { serviceInvoice } from "../support/sales";
import { seedTenant, seedUser } from "../support/seed";

describe("payments", () => {
  it("moves the status through partially_paid to paid and back when a payment is removed", async () => {
    const { tenant, id } = await serviceInvoice("1000.00");
    const bank = await tenant.api.post("/bank-accounts", { name: "Banreservas", type: "bank", account_number: "960-123" });
    expect(bank.status).toBe(201);
    const first = await tenant.api.post(`/invoices/${id}/payments`, {
      amount: "400.50",
      payment_date: "2026-11-21",
      payment_method: "bank_transfer",
      bank_account_id: bank.body.data.id,
    });
    expect(first.status).toBe(201);
    expect(first.body.data.invoice).toMatchObject({ status: "partially_paid", amount_paid: "400.50", amount_due: "599.50" });
    const over = await tenant.api.post(`/invoices/${id}/payments`, { amount: "599.51", payment_date: "2026-11-21", payment_method: "cash" });
    expect(over.status).toBe(422);
    expect(over.body.errors.amount[0]).toContain("599.50");
    const rest = await tenant.api.post(`/invoices/${id}/payments`, { amount: 599.5, payment_date: "2026-11-22", payment_method: "cash" });
    expect(rest.body.data.invoice).toMatchObject({ status: "paid", amount_paid: "1000.00", amount_due: "0.00" });
    const paidAgain = await tenant.api.post(`/invoices/${id}/payments`, { amount: "1", payment_date: "2026-11-22", payment_method: "cash" });
    expect(paidAgain.status).toBe(409);
    expect(paidAgain.body.code).toBe("invoice_not_payable");

    const got = await tenant.api.get(`/invoices/${id}`);
    expect(got.body.data.payments).toEqual([
      {
        id: first.body.data.payment.id,
        amount: "400.50",
        payment_date: "2026-11-21",
        payment_method: "bank_transfer",
        bank_account: { id: bank.body.data.id, name: "Banreservas" },
      },
      { id: rest.body.data.payment.id, amount: "599.50", payment_date: "2026-11-22", payment_method: "cash", bank_account: null },
    ]);
    const removed = await tenant.api.delete(`/invoices/${id}/payments/${first.body.data.payment.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ status: "partially_paid", amount_paid: "599.50", amount_due: "400.50" });
    expect((await tenant.api.delete(`/invoices/${id}/payments/${first.body.data.payment.id}`)).status).toBe(404);
  });

  it("validates payments: positive amounts with 2 decimals, a date, a known method", async () => {
    const { tenant, id } = await serviceInvoice("10.00");
    const res = await tenant.api.post(`/invoices/${id}/payments`, { amount: "0", payment_date: "ayer", payment_method: "gold" });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["amount", "payment_date", "payment_method"]);
    const other = await seedTenant();
    const account = await other.api.post("/bank-accounts", { name: "Ajeno", type: "cash" });
    const foreign = await tenant.api.post(`/invoices/${id}/payments`, {
      amount: "1",
      payment_date: "2026-11-21",
      payment_method: "cash",
      bank_account_id: account.body.data.id,
    });
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors)).toEqual(["bank_account_id"]);
  });

  it("20 parallel payments of 10% each: exactly 10 succeed and the invoice ends paid", async () => {
    const { tenant, id } = await serviceInvoice("500.00");
    const users = await Promise.all([0, 1].map(() => seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] })));
    const results = await inParallel(
      Array.from(
        { length: 20 },
        (_, i) => () => users[i % 2]!.api.post(`/invoices/${id}/payments`, { amount: "50.00", payment_date: "2026-11-21", payment_method: "cash" }),
      ),
      20,
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409 || s === 422)).toBe(true);
    const got = await tenant.api.get(`/invoices/${id}`);
    expect(got.body.data).toMatchObject({ status: "paid", amount_paid: "500.00", amount_due: "0.00" });
    expect(got.body.data.payments).toHaveLength(10);
  });

  it("replays an idempotent payment and refuses the key with another body", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const headers = { "idempotency-key": "pay-2026-11-21-001" };
    const body = { amount: "30.00", payment_date: "2026-11-21", payment_method: "cash" };
    const first = await tenant.api.post(`/invoices/${id}/payments`, body, { headers });
    const again = await tenant.api.post(`/invoices/${id}/payments`, body, { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await tenant.api.get(`/invoices/${id}`)).body.data.payments).toHaveLength(1);
    const changed = await tenant.api.post(`/invoices/${id}/payments`, { ...body, amount: "31.00" }, { headers });
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe("idempotency_key_reused");
  });
});

import { describe, expect, it } from "vitest";
import type { PurchaseDetail } from "../../src/modules/purchases/schemas";
import type { Data } from "../support/api";
import { expectStockInvariant, levelOf } from "../support/stock";
import { costOf, createPurchase, purchaseBody, purchaseMovements, purchaseSetup, sell } from "./helpers";

describe("purchases: stock and cost", () => {
  it("adds stock to the workspace and moves the cost by weighted average across two purchases and a sale; voiding reverses both", async () => {
    const setup = await purchaseSetup();
    const { tenant, ids, product } = setup;

    // 10 × 100.00 with ITBIS 18 %: nothing on hand before, so the cost becomes 100.00 (the catalog's 60.00 is replaced).
    const first = await createPurchase(tenant, purchaseBody(setup, "10", "100.00"));
    expect(first).toMatchObject({
      status: "pending_payment",
      subtotal_amount: "1000.00",
      tax_amount: "180.00",
      total_amount: "1180.00",
      total_amount_dop: "1180.00",
      amount_due: "1180.00",
      workspace_id: tenant.workspaceId,
      ncf: null,
    });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("10.00");
    expect(await costOf(product.id)).toBe("100.00");
    expect(await purchaseMovements(first.id)).toEqual([
      { type: "purchase", quantity: "10.00", unit_cost: "100.00", workspace_id: tenant.workspaceId, reference: first.supplier_ncf },
    ]);

    // A sale of 4 leaves 6 on hand.
    await sell(setup, "4");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("6.00");

    // 5 × 130.00: (6 × 100.00 + 650.00) / 11 = 113.6363… → 113.64. Taxes are not cost.
    await createPurchase(tenant, purchaseBody(setup, "5", "130.00", { issue_date: "2026-11-22" }));
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("11.00");
    expect(await costOf(product.id)).toBe("113.64");

    // A discount is part of the cost: 2 × 200.00 − 25 % = 300.00 → (11 × 113.64 + 300) / 13 = 119.2261… → 119.23.
    const third = await createPurchase(tenant, {
      ...purchaseBody(setup, "2", "200.00"),
      items: [{ product_id: product.id, quantity: "2", unit_cost: "200.00", discount: "25", tax_ids: [ids.itbis18] }],
    });
    expect(third).toMatchObject({ subtotal_amount: "400.00", discount_amount: "100.00", tax_amount: "54.00", total_amount: "354.00" });
    expect(await costOf(product.id)).toBe("119.23");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("13.00");

    // Voiding needs a reason.
    const noReason = await tenant.api.delete(`/purchases/${third.id}`);
    expect(noReason.status).toBe(422);
    expect(Object.keys(noReason.body.errors)).toEqual(["reason"]);

    // Voided: the 2 units leave again and the cost is taken back out: (13 × 119.23 − 300.00) / 11 = 113.6354… → 113.64.
    const voided = await tenant.api.delete(`/purchases/${third.id}`, { body: { reason: "Factura duplicada por el suplidor" } });
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.message).toBe("Purchase voided.");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("11.00");
    expect(await costOf(product.id)).toBe("113.64");
    const movements = await purchaseMovements(third.id);
    expect(movements.map((m) => [m.type, m.quantity])).toEqual([
      ["purchase", "2.00"],
      ["purchase", "-2.00"],
    ]);
    const got = await tenant.api.get<Data<PurchaseDetail>>(`/purchases/${third.id}`);
    expect(got.body.data).toMatchObject({ status: "voided", void_reason: "Factura duplicada por el suplidor", amount_due: "0.00" });

    const again = await tenant.api.delete(`/purchases/${third.id}`, { body: { reason: "otra vez" } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("purchase_not_voidable");
    // A voided bill's NCF may be booked again (the unique index counts live bills only).
    await createPurchase(tenant, { ...purchaseBody(setup, "1", "113.64"), supplier_ncf: third.supplier_ncf });
    await expectStockInvariant(tenant.tenantId);
  });

  it("an expense line (no product) and a service move no stock; lines round as sales lines do; a foreign currency values the cost in DOP", async () => {
    const setup = await purchaseSetup();
    const { tenant, ids, product } = setup;
    const currencies = (await tenant.api.get("/currencies?per_page=100")).body.data as { id: number; code: string }[];
    const res = await createPurchase(tenant, {
      ...purchaseBody(setup, "3", "10.3333"),
      currency_id: currencies.find((c) => c.code === "USD")!.id,
      exchange_rate: "60.50",
      expense_type: "02",
      items: [
        { product_id: product.id, quantity: "3", unit_cost: "10.3333", tax_ids: [ids.itbis18] },
        { description: "Flete", quantity: "1", unit_cost: "5.00" },
      ],
    });
    // 3 × 10.3333 = 30.9999 → 31.00; ITBIS 5.58; the freight has no taxes.
    expect(res).toMatchObject({ subtotal_amount: "36.00", tax_amount: "5.58", total_amount: "41.58", exchange_rate: "60.50", total_amount_dop: "2515.59" });
    // 31.00 × 60.50 = 1875.50 DOP for 3 units → 625.17.
    expect(await costOf(product.id)).toBe("625.17");
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("3.00");
    const got = await tenant.api.get<Data<PurchaseDetail>>(`/purchases/${res.id}`);
    expect(got.body.data.items.map((i) => [i.product_id, i.description, i.unit_cost, i.subtotal, i.tax_amount, i.total])).toEqual([
      [product.id, expect.any(String), "10.3333", "31.00", "5.58", "36.58"],
      [null, "Flete", "5.00", "5.00", "0.00", "5.00"],
    ]);
    expect(got.body.data.tax_breakdown.itbis).toEqual([{ rate: "18.00", base: "31.00", amount: "5.58" }]);
    expect(got.body.data.supplier).toMatchObject({ id: setup.supplier.id, identification_type: "rnc" });
  });
});

import { describe, expect, it } from "vitest";
import type { PurchaseDetail, PurchaseSummary } from "../../src/modules/purchases/schemas";
import type { ReceivedEcf } from "../../src/modules/reception/schemas";
import { type EcfTenant, ecfTenant } from "../ecf/helpers";
import type { Data, Page } from "../support/api";
import { createContact, freshRnc } from "../support/sales";
import { ownerRows, seedTenant, seedUser, seedWorkspace, sql } from "../support/seed";
import { createProduct, levelOf } from "../support/stock";
import { receiveFromSupplier } from "./helpers";
import { SUPPLIER_TOTAL } from "./supplier";

/**
 * POST /api/v1/received-ecf/{id}/purchase: an e-CF a supplier sent us (received through
 * /fe/recepcion/api/ecf, signed by the fake DGII as the supplier) becomes a purchase of the
 * request's workspace, prefilled from its XML (docs/reception.md, "Turning a received e-CF into a
 * purchase").
 */
type Written = Data<PurchaseSummary> & {
  message: string;
  warnings: { code: string; field: string; message: string }[];
  code?: string;
  errors?: Record<string, string[]>;
};

const convert = (t: EcfTenant, id: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.tenant.api.post<Written>(`/received-ecf/${id}/purchase`, body, { headers });

async function converted(t: EcfTenant, id: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await convert(t, id, body, headers);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const detail = async (t: EcfTenant, id: number, headers: Record<string, string> = {}) => {
  const res = await t.tenant.api.get<Data<PurchaseDetail>>(`/purchases/${id}`, { headers });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

const codes = (written: Written) => written.warnings.map((w) => w.code);

async function contactsWith(t: EcfTenant, rnc: string) {
  return (
    await t.tenant.api.get<Page<{ id: number; contact_type: string; name: string; workspace_id: number | null }>>(`/contacts?filter[identification]=${rnc}`)
  ).body.data;
}

describe("a received e-CF turned into a purchase", () => {
  it("an E31 becomes a draft with its two lines and taxes, the e-NCF and total 18,200.00; its supplier is created once and reused; the e-CF is purchased, once", async () => {
    const t = await ecfTenant();
    const rnc = freshRnc();
    const doc = await receiveFromSupplier(t, rnc, { issuerName: "Materiales del Cibao SRL" });
    const written = await converted(t, doc.id, { expense_type: "09" });
    expect(written.message).toBe("Draft created.");
    expect(codes(written)).not.toContain("total_differs_from_ecf");
    expect(written.data).toMatchObject({
      workspace_id: t.tenant.workspaceId,
      status: "draft",
      supplier_ncf: doc.encf,
      ncf: null,
      issue_date: "2026-11-20",
      due_date: "2026-12-20",
      expense_type: "09",
      exchange_rate: "1.00",
      subtotal_amount: "15500.00",
      discount_amount: "0.00",
      tax_amount: "2700.00",
      total_amount: SUPPLIER_TOTAL,
      total_amount_dop: SUPPLIER_TOTAL,
    });
    const purchase = await detail(t, written.data.id);
    expect(purchase.supplier).toEqual({ id: written.data.supplier_id, name: "Materiales del Cibao SRL", identification_type: "rnc", identification: rnc });
    expect(purchase.items).toMatchObject([
      {
        product_id: null,
        description: "Cemento gris funda 42.5 kg",
        quantity: "10.00",
        unit_cost: "1500.00",
        discount: "0.00",
        subtotal: "15000.00",
        tax_amount: "2700.00",
        total: "17700.00",
        taxes: [{ id: t.ids.itbis18, type: "itbis", rate: "18.00", amount: "2700.00" }],
      },
      {
        product_id: null,
        description: "Entrega en obra",
        quantity: "1.00",
        unit_cost: "500.00",
        tax_amount: "0.00",
        total: "500.00",
        taxes: [{ id: t.ids.exento, type: "exento", amount: "0.00" }],
      },
    ]);
    expect(await contactsWith(t, rnc)).toMatchObject([
      { id: written.data.supplier_id, contact_type: "supplier", name: "Materiales del Cibao SRL", workspace_id: t.tenant.workspaceId },
    ]);
    const received = await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${doc.id}`);
    expect(received.body.data).toMatchObject({ status: "purchased", purchase_id: written.data.id });

    // A second e-CF of the same issuer: the same contact.
    const second = await receiveFromSupplier(t, rnc, { issuerName: "Materiales del Cibao SRL" });
    const again = await converted(t, second.id, { expense_type: "09" });
    expect(again.data.supplier_id).toBe(written.data.supplier_id);
    expect(await contactsWith(t, rnc)).toHaveLength(1);

    const twice = await convert(t, doc.id, { expense_type: "09" });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: "received_ecf_already_purchased", message: `This e-CF is purchase ${written.data.id} already (draft).` });
  });

  it("with items naming a product and pending_payment, in a chosen workspace: stock +10 there; after voiding, and after deleting a draft, it converts again", async () => {
    const t = await ecfTenant();
    const w2 = await seedWorkspace(t.tenant);
    const inW2 = { "x-workspace-id": String(w2) };
    const product = await createProduct(t.tenant.api, { workspace_id: null, cost: "1400.00" });
    const doc = await receiveFromSupplier(t, freshRnc());
    const body = {
      expense_type: "09",
      status: "pending_payment",
      payment_method: "bank_transfer",
      items: [
        { product_id: product.id, quantity: "10", unit_cost: "1500.00", tax_ids: [t.ids.itbis18] },
        { description: "Entrega en obra", quantity: "1", unit_cost: "500.00", tax_ids: [t.ids.exento] },
      ],
    };
    const entered = await converted(t, doc.id, body, inW2);
    expect(entered.message).toBe("Purchase entered.");
    expect(codes(entered)).not.toContain("total_differs_from_ecf");
    expect(entered.data).toMatchObject({
      workspace_id: w2,
      status: "pending_payment",
      supplier_ncf: doc.encf,
      total_amount: SUPPLIER_TOTAL,
      amount_due: SUPPLIER_TOTAL,
    });
    expect(await levelOf(product.id, w2)).toBe("10.00");
    expect(await levelOf(product.id, t.tenant.workspaceId)).toBe("0.00");
    // The contact was created where the purchase was: workspace 2.
    expect((await detail(t, entered.data.id, inW2)).supplier?.identification).toBe(doc.issuer_rnc);

    expect((await convert(t, doc.id, { expense_type: "09" }, inW2)).status).toBe(409);
    const voided = await t.tenant.api.delete(`/purchases/${entered.data.id}`, { body: { reason: "Registrada con error" }, headers: inW2 });
    expect(voided.status, voided.text).toBe(200);
    expect(await levelOf(product.id, w2)).toBe("0.00");

    const draft = await converted(t, doc.id, { expense_type: "09" }, inW2);
    expect(draft.data).toMatchObject({ status: "draft", workspace_id: w2, total_amount: SUPPLIER_TOTAL });
    expect((await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${doc.id}`)).body.data).toMatchObject({ status: "purchased", purchase_id: draft.data.id });
    expect((await t.tenant.api.delete(`/purchases/${draft.data.id}`, { headers: inW2 })).status).toBe(200);
    const third = await converted(t, doc.id, { expense_type: "09" }, inW2);
    expect((await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${doc.id}`)).body.data.purchase_id).toBe(third.data.id);
  });

  it("items that change the total answer a warning with both amounts; a customer with the issuer's RNC becomes both", async () => {
    const t = await ecfTenant();
    const rnc = freshRnc();
    const customer = await createContact(t.tenant.api, { contact_type: "customer", identification_type: "rnc", identification: rnc });
    const doc = await receiveFromSupplier(t, rnc);
    const written = await converted(t, doc.id, {
      expense_type: "02",
      items: [{ description: "Cemento", quantity: "10", unit_cost: "1400.00", tax_ids: [t.ids.itbis18] }],
    });
    expect(written.data).toMatchObject({ supplier_id: customer.id, total_amount: "16520.00" });
    expect(written.warnings).toContainEqual({
      code: "total_differs_from_ecf",
      field: "items",
      message: "The purchase's total 16520.00 differs from the e-CF's MontoTotal 18200.00.",
    });
    expect(await contactsWith(t, rnc)).toMatchObject([{ id: customer.id, contact_type: "both" }]);
  });

  it("a discount is the line's percentage when exact, else it goes into the unit cost; the line amounts and the total are the e-CF's", async () => {
    const t = await ecfTenant();
    const doc = await receiveFromSupplier(t, freshRnc(), {
      lines: [
        { name: "Varilla 3/8", quantity: "10", unitPrice: "1500", discount: "5", indicator: 1 },
        { name: "Clavos 2 pulgadas", quantity: "3", unitPrice: "33.33", discount: "10", indicator: 1 },
      ],
    });
    expect(doc.total_amount).toBe("16921.19");
    const written = await converted(t, doc.id, { expense_type: "09" });
    expect(written.data).toMatchObject({ total_amount: "16921.19", discount_amount: "750.00" });
    expect(codes(written)).not.toContain("total_differs_from_ecf");
    const purchase = await detail(t, written.data.id);
    expect(purchase.items).toMatchObject([
      { quantity: "10.00", unit_cost: "1500.00", discount: "5.00", discount_amount: "750.00", subtotal: "15000.00", tax_amount: "2565.00" },
      // 10 % of 99.99 is 10.00 only rounded: 89.99 ÷ 3 = 29.9967 a unit, 89.99 the line.
      { quantity: "3.00", unit_cost: "29.9967", discount: "0.00", discount_amount: "0.00", subtotal: "89.99", tax_amount: "16.20", total: "106.19" },
    ]);
  });

  it("an e-CF in another currency: the company's currency of that code at the e-CF's rate, the lines in it; 422 without that currency", async () => {
    const t = await ecfTenant();
    const usd = (await t.tenant.api.get<Page<{ id: number; code: string }>>("/currencies")).body.data.find((c) => c.code === "USD")!;
    const doc = await receiveFromSupplier(t, freshRnc(), { currency: { code: "USD", exchangeRate: "60.50" } });
    expect(doc.total_amount).toBe("1101100.00");
    const written = await converted(t, doc.id, { expense_type: "09" });
    expect(written.data).toMatchObject({ currency_id: usd.id, exchange_rate: "60.50", total_amount: SUPPLIER_TOTAL, total_amount_dop: "1101100.00" });
    expect(codes(written)).not.toContain("total_differs_from_ecf");
    expect((await detail(t, written.data.id)).items.map((i) => i.unit_cost)).toEqual(["1500.00", "500.00"]);

    const euros = await receiveFromSupplier(t, freshRnc(), { currency: { code: "EUR", exchangeRate: "70.00" } });
    const refused = await convert(t, euros.id, { expense_type: "09" });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: "validation_failed",
      errors: { currency: ["The e-CF is in EUR (OtraMoneda) and the company has no such currency: create it first."] },
    });
    expect((await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${euros.id}`)).body.data).toMatchObject({ status: "received", purchase_id: null });
  });

  it("IndicadorFacturacion 3 needs the company's ITBIS 0 % tax (422 on items until it exists); an issuer RNC with a wrong check digit needs supplier_id", async () => {
    const t = await ecfTenant();
    const doc = await receiveFromSupplier(t, freshRnc(), { lines: [{ name: "Leche en polvo", quantity: "2", unitPrice: "250", indicator: 3 }] });
    const missing = await convert(t, doc.id, { expense_type: "09" });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({
      items: ["Line 1 of the e-CF is ITBIS 0 % (IndicadorFacturacion 3) and the company has no active tax of type itbis at 0 %: create it, or send items."],
    });
    const tax = await t.tenant.api.post("/taxes", { name: "ITBIS 0%", type: "itbis", rate: "0" });
    expect(tax.status, tax.text).toBe(201);
    const written = await converted(t, doc.id, { expense_type: "09" });
    expect(written.data.total_amount).toBe("500.00");
    expect((await detail(t, written.data.id)).items[0]!.taxes).toMatchObject([{ id: tax.body.data.id, type: "itbis", rate: "0.00", amount: "0.00" }]);

    const valid = freshRnc();
    const wrong = `${valid.slice(0, 8)}${(Number(valid[8]) + 1) % 10}`;
    // No certificate names an RNC with a wrong check digit any more (docs/security.md, "Who a
    // certificate names"): such an issuer is one a row received before that rule holds.
    const unknown = await receiveFromSupplier(t, valid);
    await ownerRows(sql`UPDATE received_ecf SET issuer_rnc = ${wrong} WHERE tenant_id = ${t.tenant.tenantId} AND id = ${unknown.id} RETURNING id`);
    const refused = await convert(t, unknown.id, { expense_type: "09" });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      supplier_id: [`The issuer's rnc ${wrong} cannot identify a contact (This RNC has an invalid check digit.): send supplier_id.`],
    });
    const supplier = await createContact(t.tenant.api, { contact_type: "supplier" });
    expect((await converted(t, unknown.id, { expense_type: "09", supplier_id: supplier.id })).data.supplier_id).toBe(supplier.id);
  });

  it("refuses an E34 and a stored e-CF whose lines cannot be read (422), a strict body, another tenant (404) and a viewer (403)", async () => {
    const t = await ecfTenant();
    const doc = await receiveFromSupplier(t, freshRnc());
    const strict = await convert(t, doc.id, { expense_type: "09", supplier_ncf: "B0100000001" });
    expect(strict.status).toBe(422);
    expect((await convert(t, doc.id, {})).body.errors).toHaveProperty("expense_type");

    const other = await seedTenant();
    const foreign = await other.api.post(`/received-ecf/${doc.id}/purchase`, { expense_type: "09" });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("not_found");
    const viewer = await seedUser(t.tenant, { role: "viewer", workspaceIds: [t.tenant.workspaceId] });
    const forbidden = await viewer.api.post(`/received-ecf/${doc.id}/purchase`, { expense_type: "09" });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("forbidden");

    await ownerRows(sql`UPDATE received_ecf SET ecf_type = '34' WHERE id = ${doc.id}`);
    const note = await convert(t, doc.id, { expense_type: "09" });
    expect(note.status).toBe(422);
    expect(note.body.errors).toEqual({ id: ["A credit note (E34) reduces an earlier purchase; it is not entered as one."] });
    await ownerRows(sql`UPDATE received_ecf SET ecf_type = '31', xml = '<ECF><Encabezado/></ECF>' WHERE id = ${doc.id}`);
    const unreadable = await convert(t, doc.id, { expense_type: "09" });
    expect(unreadable.status).toBe(422);
    expect(unreadable.body.errors).toEqual({ id: ["The stored e-CF's lines cannot be read: ECF: DetallesItems has no Item."] });
    const untouched = await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${doc.id}`);
    expect(untouched.body.data).toMatchObject({ status: "received", purchase_id: null });
    expect((await t.tenant.api.get<Page<PurchaseSummary>>("/purchases")).body.data).toEqual([]);
  });
});

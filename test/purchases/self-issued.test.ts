import { describe, expect, it } from "vitest";
import { fetchBytes, pdfText } from "../support/pdf";
import { createPurchase, createSupplier, purchaseBody, purchaseSetup, sequence } from "./helpers";

describe("purchases: documents the buyer issues (B11, B13, B17)", () => {
  it("a B11 takes consecutive numbers from its sequence, for an informal supplier identified by cédula, without a supplier NCF", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const b11 = await sequence(tenant, "B11");
    const informal = await createSupplier(tenant, { name: "Juan Pérez (chivero)", identification_type: "cedula", identification: "00113918205" });
    const body = purchaseBody(setup, "2", "75.00", { supplier_id: informal.id, supplier_ncf: undefined, self_issued_subtype_id: b11 });
    const first = await createPurchase(tenant, body);
    const second = await createPurchase(tenant, body);
    expect([first.ncf, second.ncf]).toEqual(["B1100000001", "B1100000002"]);
    expect(first).toMatchObject({ supplier_ncf: null, self_issued_subtype_id: b11, total_amount: "177.00" });

    // A draft takes its number only when entered.
    const draft = await createPurchase(tenant, { ...body, status: "draft" });
    expect(draft.ncf).toBeNull();
    const entered = await tenant.api.post(`/purchases/${draft.id}/enter`);
    expect(entered.body.data.ncf).toBe("B1100000003");

    const withNcf = await tenant.api.post("/purchases", { ...body, supplier_ncf: "B0100000001" });
    expect(withNcf.status).toBe(422);
    expect(Object.keys(withNcf.body.errors)).toEqual(["supplier_ncf"]);
    const withRnc = await tenant.api.post("/purchases", { ...body, supplier_id: setup.supplier.id });
    expect(withRnc.status).toBe(422);
    expect(withRnc.body.errors.supplier_id[0]).toContain("cédula");
    // A refused purchase gives its number back: the next one is still consecutive.
    expect((await createPurchase(tenant, body)).ncf).toBe("B1100000004");
    // Its receipt prints the company as issuer, the type's name, the number and the informal supplier.
    const pdf = await fetchBytes(tenant.subdomain, tenant.admin.token, `/purchases/${first.id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-disposition")).toBe('attachment; filename="B1100000001.pdf"');
    const text = await pdfText(pdf.bytes);
    for (const printed of ["Comprobante de Compras", "B1100000001", "Proveedor", "Juan Pérez (chivero)", "00113918205", "177.00", "Válida hasta"]) {
      expect(text).toContain(printed);
    }
    // A supplier's own bill is the supplier's document: not ours to print.
    const bill = await createPurchase(tenant, purchaseBody(setup, "1", "1.00"));
    const notOurs = await tenant.api.get(`/purchases/${bill.id}/pdf`);
    expect(notOurs.status).toBe(409);
    expect(notOurs.body.code).toBe("purchase_not_printable");
    // A sales sequence is not one the buyer issues.
    const b01 = await tenant.api.post("/purchases", { ...body, self_issued_subtype_id: setup.ids.b01 });
    expect(b01.status).toBe(422);
    expect(Object.keys(b01.body.errors)).toEqual(["self_issued_subtype_id"]);
  });

  it("a B13 (gastos menores) may have no supplier; a B17 (pagos al exterior) needs a foreign one", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const b13 = await sequence(tenant, "B13");
    const b17 = await sequence(tenant, "B17");
    const minor = await createPurchase(tenant, {
      issue_date: "2026-11-20",
      expense_type: "02",
      self_issued_subtype_id: b13,
      items: [{ description: "Peaje y parqueo", quantity: "1", unit_cost: "150.00" }],
    });
    expect(minor).toMatchObject({ ncf: "B1300000001", supplier_id: null, total_amount: "150.00" });

    const foreign = await createSupplier(tenant, { name: "Amazon Web Services", identification_type: "passport", identification: "US-EIN-911646860" });
    const abroad = await createPurchase(tenant, {
      supplier_id: foreign.id,
      issue_date: "2026-11-20",
      expense_type: "02",
      self_issued_subtype_id: b17,
      items: [{ description: "Servicios de nube", quantity: "1", unit_cost: "300.00" }],
    });
    expect(abroad.ncf).toBe("B1700000001");
    const abroadFrom = (supplierId: number | null) =>
      tenant.api.post("/purchases", {
        supplier_id: supplierId,
        issue_date: "2026-11-20",
        expense_type: "02",
        self_issued_subtype_id: b17,
        items: [{ description: "Servicio", quantity: "1", unit_cost: "300.00" }],
      });
    for (const supplierId of [setup.supplier.id, null]) {
      const refused = await abroadFrom(supplierId);
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(["supplier_id"]);
    }
  });
});

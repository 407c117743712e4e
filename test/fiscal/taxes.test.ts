import { describe, expect, it } from "vitest";
import type { InvoiceDetail } from "../../src/modules/invoices/schemas";
import type { NoteDetail } from "../../src/modules/notes/schemas";
import type { QuotationDetail } from "../../src/modules/quotations/schemas";
import type { Tax } from "../../src/modules/taxes/schemas";
import type { Data } from "../support/api";
import { fetchBytes, pdfText } from "../support/pdf";
import { salesSetup } from "../support/sales";
import { ownerRow, seedTenant, sql } from "../support/seed";

/**
 * Tax kinds (issue 17; docs/fiscal.md "Taxes"; Formato e-CF v1.0, Tabla I and Totales): ITBIS at
 * 18/16/0 %, exempt, ISC específico (per unit) and ad valorem (codes 006-039, which enter the ITBIS
 * base), propina legal (001, outside the base) and other additional taxes, kept apart per line and
 * per document.
 */

describe("tax kinds", () => {
  it("takes each DGII kind with its code, and refuses what DGII does not define, naming the field", async () => {
    const t = await seedTenant();
    const create = (body: Record<string, unknown>) => t.api.post("/taxes", { name: "Impuesto", ...body });
    const ok = [
      [
        { type: "itbis", rate: "16" },
        { rate: "16.00", dgii_code: null, amount_per_unit: null },
      ],
      [
        { type: "itbis", rate: "0" },
        { rate: "0.00", dgii_code: null },
      ],
      [{ type: "propina_legal", rate: "10" }, { dgii_code: "001" }],
      [
        { type: "isc", rate: "0", dgii_code: "013", amount_per_unit: "632.58" },
        { dgii_code: "013", amount_per_unit: "632.58" },
      ],
      [
        { type: "isc", rate: "10", dgii_code: "030" },
        { rate: "10.00", dgii_code: "030", amount_per_unit: null },
      ],
      [{ type: "other", rate: "2", dgii_code: "002" }, { dgii_code: "002" }],
    ] as const;
    for (const [body, expected] of ok) {
      const res = await create(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data).toMatchObject(expected);
    }
    const refused: [Record<string, unknown>, string][] = [
      [{ type: "itbis", rate: "12" }, "rate"],
      [{ type: "itbis", rate: "18", dgii_code: "030" }, "dgii_code"],
      [{ type: "propina_legal", rate: "5" }, "rate"],
      [{ type: "propina_legal", rate: "10", dgii_code: "002" }, "dgii_code"],
      [{ type: "isc", rate: "10" }, "dgii_code"],
      [{ type: "isc", rate: "0", dgii_code: "013" }, "amount_per_unit"],
      [{ type: "isc", rate: "5", dgii_code: "013", amount_per_unit: "10" }, "rate"],
      [{ type: "isc", rate: "10", dgii_code: "030", amount_per_unit: "10" }, "amount_per_unit"],
      [{ type: "isc", rate: "0", dgii_code: "030" }, "rate"],
      [{ type: "other", rate: "2", dgii_code: "001" }, "dgii_code"],
      [{ type: "other", rate: "2", dgii_code: "040" }, "dgii_code"],
      [{ type: "exento", rate: "0", amount_per_unit: "1" }, "amount_per_unit"],
    ];
    for (const [body, field] of refused) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }

    // A tax from before the kinds had rules (ITBIS at 12 %) can still be renamed, not recomputed.
    const legacy = await ownerRow<{ id: number }>(
      sql`INSERT INTO taxes (tenant_id, name, type, rate) VALUES (${t.tenantId}, 'ITBIS viejo', 'itbis', 12) RETURNING id`,
    );
    expect((await t.api.patch(`/taxes/${legacy.id}`, { name: "ITBIS 12 % (histórico)" })).status).toBe(200);
    const recompute = await t.api.patch(`/taxes/${legacy.id}`, { rate: "12" });
    expect(recompute.status).toBe(422);
    expect(Object.keys(recompute.body.errors)).toEqual(["rate"]);
  });

  it("computes ITBIS 18 % over ISC (ad valorem and específico), ITBIS 16 %, exempt lines and propina apart, to the cent", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const tax = async (body: Record<string, unknown>) =>
      (await tenant.api.post<Data<Tax>>("/taxes", { name: `Impuesto ${body.dgii_code}`, ...body })).body.data.id;
    const iscAdValorem = await tax({ type: "isc", rate: "10", dgii_code: "030", name: "ISC Whisky" });
    const iscSpecific = await tax({ type: "isc", rate: "0", dgii_code: "013", amount_per_unit: "632.58", name: "ISC específico Whisky" });
    const line = (quantity: string, price: string, taxIds: number[]) => ({ product_id: service.id, quantity, unit_price: price, tax_ids: taxIds });
    const body = {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [
        line("2", "500.00", [ids.itbis18, iscAdValorem]),
        line("2", "1000.00", [ids.itbis18, iscSpecific]),
        line("1", "250.00", [ids.itbis16]),
        line("1", "300.00", [ids.exento]),
        line("1", "1000.00", [ids.itbis18, ids.propina]),
      ],
    };
    const created = await tenant.api.post("/invoices", body);
    expect(created.status, created.text).toBe(201);
    const invoice = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${created.body.data.id}`)).body.data;
    // 1. 1,000.00 + ISC 10 % 100.00; ITBIS 18 % of 1,100.00 = 198.00.
    // 2. 2,000.00 + ISC 2 × 632.58 = 1,265.16; ITBIS 18 % of 3,265.16 = 587.7288 → 587.73.
    // 3. 250.00, ITBIS 16 % 40.00.  4. 300.00 exempt.  5. 1,000.00, propina 100.00 (outside the base), ITBIS 180.00.
    expect(invoice.items.map((i) => [i.subtotal, i.tax_amount, i.total])).toEqual([
      ["1000.00", "298.00", "1298.00"],
      ["2000.00", "1852.89", "3852.89"],
      ["250.00", "40.00", "290.00"],
      ["300.00", "0.00", "300.00"],
      ["1000.00", "280.00", "1280.00"],
    ]);
    expect(invoice.items[0]!.taxes.map((t) => [t.type, t.base, t.amount])).toEqual([
      ["itbis", "1100.00", "198.00"],
      ["isc", "1000.00", "100.00"],
    ]);
    expect(invoice.items[1]!.taxes.map((t) => [t.type, t.dgii_code ?? null, t.amount_per_unit ?? null, t.base ?? null, t.amount])).toEqual([
      ["itbis", null, null, "3265.16", "587.73"],
      ["isc", "013", "632.58", null, "1265.16"],
    ]);
    expect(invoice).toMatchObject({ subtotal_amount: "4550.00", tax_amount: "2470.89", total_amount: "7020.89" });
    expect(invoice.tax_breakdown).toEqual({
      itbis: [
        { rate: "18.00", base: "4000.00", amount: "965.73" },
        { rate: "16.00", base: "250.00", amount: "40.00" },
      ],
      exempt_base: "300.00",
      non_billable: "0.00",
      additional: [
        { code: "030", kind: "isc_ad_valorem", name: "ISC Whisky", rate: "10.00", amount: "100.00" },
        { code: "013", kind: "isc_specific", name: "ISC específico Whisky", rate: "632.58", amount: "1265.16" },
        { code: "001", kind: "propina", name: "Propina Legal 10%", rate: "10.00", amount: "100.00" },
      ],
      isc_specific: "1265.16",
      isc_ad_valorem: "100.00",
      propina: "100.00",
      other_additional: "0.00",
    });
    // Stored with the invoice, equal to what its lines say.
    const stored = await ownerRow<{ b: unknown }>(sql`SELECT tax_breakdown AS b FROM invoices WHERE id = ${invoice.id}`);
    expect(stored.b).toEqual(invoice.tax_breakdown);

    const text = await pdfText((await fetchBytes(tenant.subdomain, tenant.admin.token, `/invoices/${invoice.id}/pdf`)).bytes);
    for (const expected of [
      "ITBIS 18% (base 4,000.00)",
      "965.73",
      "ITBIS 16% (base 250.00)",
      "Monto exento",
      "ISC ad valorem 10% (código 030)",
      "ISC específico (código 013)",
      "1,265.16",
      "Propina legal 10%",
    ]) {
      expect(text, expected).toContain(expected);
    }

    // A quotation with the same lines has the same breakdown; a credit note of one unit of line 2 recomputes its ISC and ITBIS.
    const quotation = await tenant.api.post("/quotations", { ...body, document_subtype_id: ids.cot });
    expect(quotation.status, quotation.text).toBe(201);
    expect((await tenant.api.get<Data<QuotationDetail>>(`/quotations/${quotation.body.data.id}`)).body.data.tax_breakdown).toEqual(invoice.tax_breakdown);
    const note = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
      modification_code: 3,
      reason: "Devolución",
      items: [{ invoice_item_id: invoice.items[1]!.id, quantity: "1" }],
    });
    expect(note.status, note.text).toBe(201);
    // 1,000.00 + ISC 632.58; ITBIS 18 % of 1,632.58 = 293.8644 → 293.86; 1,926.44.
    expect(note.body.data).toMatchObject({ subtotal_amount: "1000.00", tax_amount: "926.44", total_amount: "1926.44" });
    const shown = (await tenant.api.get<Data<NoteDetail>>(`/credit-notes/${note.body.data.id}`)).body.data;
    expect(shown.tax_breakdown).toMatchObject({ itbis: [{ rate: "18.00", base: "1000.00", amount: "293.86" }], isc_specific: "632.58" });
  });

  it("a line holds one ITBIS indicator (ITBIS, exento or no facturable) with any ISC and additional taxes on top", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const post = (taxIds: number[]) =>
      tenant.api.post("/invoices", {
        contact_id: contact.id,
        document_subtype_id: ids.b01,
        issue_date: "2026-11-20",
        items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: taxIds }],
      });
    const two = await post([ids.itbis18, ids.exento]);
    expect(two.status).toBe(422);
    expect(two.body.errors).toEqual({
      "items.0.tax_ids": ["A line holds at most one of ITBIS, exento and no facturable (ISC and other additional taxes come on top)."],
    });
    const cdt = (await tenant.api.post<Data<Tax>>("/taxes", { name: "CDT", type: "other", rate: "2", dgii_code: "002" })).body.data.id;
    const withOthers = await post([ids.itbis18, ids.propina, cdt]);
    expect(withOthers.status, withOthers.text).toBe(201);
    // 100.00: ITBIS 18.00, propina 10.00, CDT 2.00 (neither in the ITBIS base).
    expect(withOthers.body.data.total_amount).toBe("130.00");
  });
});

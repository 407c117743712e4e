import { describe, expect, it } from "vitest";
import { createApp, OPENAPI_DOCUMENT } from "../../src/app";
import { rowsOf } from "../../src/db/rows";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, seedTenant, sql, uniqueName } from "../support/seed";

async function setup() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api);
  const product = (await tenant.api.post("/products", { name: uniqueName("Servicio "), product_type: "service", price: "100", track_inventory: false })).body
    .data;
  const invoice = (subtypeId: number, issueDate = "2026-11-20") => ({
    contact_id: contact.id,
    document_subtype_id: subtypeId,
    issue_date: issueDate,
    // Exempt: B14 and B16 refuse ITBIS lines (docs/fiscal.md, buyer and tax rules per NCF type).
    items: [{ product_id: product.id, quantity: "1", unit_price: "100", tax_ids: [ids.exento] }],
  });
  const subtype = async (body: Record<string, unknown>) => {
    const res = await tenant.api.post("/document-subtypes", { name: uniqueName("S "), type: "invoice", valid_until: "2099-12-31", ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: number };
  };
  return { tenant, ids, invoice, subtype };
}

describe("NCF sequences: DGII authorization, ranges and prefixes", () => {
  it("records DGII's authorization; demo ranges are marked is_demo", async () => {
    const { tenant, ids, subtype } = await setup();
    const created = await tenant.api.post("/document-subtypes", {
      name: "Gubernamental 2027",
      type: "invoice",
      prefix: "B15",
      start_number: 5001,
      end_number: 6000,
      valid_until: "2027-12-31",
      authorization_number: "AUT-2026-000123",
      authorized_at: "2026-11-01",
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      prefix: "B15",
      start_number: 5001,
      end_number: 6000,
      next_document_number: "B1500005001",
      authorization_number: "AUT-2026-000123",
      authorized_at: "2026-11-01",
      is_demo: false,
    });
    const demo = (await tenant.api.get(`/document-subtypes/${ids.b01}`)).body.data;
    expect(demo).toMatchObject({ start_number: 1, end_number: 5000, is_demo: true, authorization_number: null, authorized_at: null });
    const b16 = await subtype({ prefix: "B16", end_number: 10 });
    const patched = await tenant.api.patch(`/document-subtypes/${b16.id}`, { authorization_number: "AUT-9", authorized_at: "2026-10-01" });
    expect(patched.body.data).toMatchObject({ authorization_number: "AUT-9", authorized_at: "2026-10-01" });
  });

  it("refuses a range overlapping another of the same prefix with 409 ncf_range_overlap, on create and update", async () => {
    const { tenant, subtype } = await setup();
    // The demo B01 is 1-5,000.
    const overlapping = await tenant.api.post("/document-subtypes", {
      name: "B01 bis",
      type: "invoice",
      prefix: "B01",
      start_number: 5000,
      end_number: 6000,
      valid_until: "2099-12-31",
    });
    expect(overlapping.status).toBe(409);
    expect(overlapping.body.code).toBe("ncf_range_overlap");
    expect(Object.keys(overlapping.body.errors)).toEqual(["start_number"]);
    // Adjacent ranges and another prefix with the same numbers are fine.
    const next = await subtype({ prefix: "B01", start_number: 5001, end_number: 6000 });
    await subtype({ prefix: "B16", start_number: 1, end_number: 5000 });
    const grown = await tenant.api.patch(`/document-subtypes/${next.id}`, { start_number: 4000 });
    expect(grown.status).toBe(409);
    expect(grown.body.code).toBe("ncf_range_overlap");
    const rows = await asOwner((db) =>
      db.execute(sql`SELECT count(*)::int AS n FROM document_subtypes WHERE tenant_id = ${tenant.tenantId} AND prefix = 'B01'`),
    );
    expect(rowsOf(rows)).toEqual([{ n: 2 }]);
    // Another tenant's ranges do not count.
    const other = await seedTenant();
    const res = await other.api.post("/document-subtypes", {
      name: "B01",
      type: "invoice",
      prefix: "B01",
      start_number: 5001,
      end_number: 6000,
      valid_until: "2099-12-31",
    });
    expect(res.status).toBe(201);
  });

  it("fixes prefix, start and end once a number was issued: 409 ncf_range_in_use", async () => {
    const { tenant, invoice, subtype } = await setup();
    const b02 = await subtype({ prefix: "B02", start_number: 5001, end_number: 5100 });
    // Before any number is issued the range may move.
    const moved = await tenant.api.patch(`/document-subtypes/${b02.id}`, { end_number: 5200 });
    expect(moved.status).toBe(200);
    expect(moved.body.data.end_number).toBe(5200);
    const issued = await tenant.api.post("/invoices", invoice(b02.id));
    expect(issued.status).toBe(201);
    expect(issued.body.data.document_number).toBe("B0200005001");
    for (const [body, fields] of [
      [{ end_number: 5300 }, ["end_number"]],
      [{ start_number: 5002 }, ["start_number"]],
      [{ prefix: "B14" }, ["prefix"]],
      [{ prefix: "B14", start_number: 5002 }, ["prefix", "start_number"]],
    ] as const) {
      const res = await tenant.api.patch(`/document-subtypes/${b02.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body.code).toBe("ncf_range_in_use");
      expect(Object.keys(res.body.errors)).toEqual(fields);
    }
    // The same values, the name and the expiry may still change.
    const renamed = await tenant.api.patch(`/document-subtypes/${b02.id}`, { name: "Consumo 2", end_number: 5200, valid_until: "2030-12-31" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: "Consumo 2", start_number: 5001, end_number: 5200, next_document_number: "B0200005002" });
  });

  it("allows on sales invoices only B01 B02 B14 B15 B16; notes' and purchases' types are refused", async () => {
    const { tenant, invoice, subtype } = await setup();
    const b16 = await subtype({ prefix: "B16", end_number: 10 });
    const ok = await tenant.api.post("/invoices", invoice(b16.id));
    expect(ok.status).toBe(201);
    expect(ok.body.data.document_number).toBe("B1600000001");
    for (const [prefix, why] of [
      ["B03", "is for debit and credit notes"],
      ["B04", "is for debit and credit notes"],
      ["B11", "belongs to purchases, not to sales"],
      ["B13", "belongs to purchases, not to sales"],
      ["B17", "belongs to purchases, not to sales"],
    ]) {
      // Past the demo B03/B04 ranges (1-5,000): ranges of one prefix never overlap.
      const s = await subtype({ prefix, start_number: 5001, end_number: 5010 });
      const res = await tenant.api.post("/invoices", invoice(s.id));
      expect(res.status, prefix).toBe(422);
      expect(res.body.code, prefix).toBe("validation_failed");
      expect(res.body.errors.document_subtype_id, prefix).toEqual([
        `The NCF type ${prefix} ${why}; a sales invoice uses B01, B02, B14, B15, B16, E31, E32, E44, E45, E46.`,
      ]);
      expect((await tenant.api.get(`/document-subtypes/${s.id}`)).body.data.next_number, prefix).toBe(5001);
    }
    for (const prefix of ["E33", "E34", "E41", "E43", "E47"]) {
      const s = await subtype({ prefix, end_number: 10 });
      const res = await tenant.api.post("/invoices", invoice(s.id));
      expect(res.status, prefix).toBe(422);
      expect(res.body.code, prefix).toBe("validation_failed");
      expect(Object.keys(res.body.errors), prefix).toEqual(["document_subtype_id"]);
    }
  });

  it("refuses E-series sales types with 422 ecf_not_configured while the tenant has not enabled e-CF", async () => {
    const { tenant, invoice, subtype } = await setup();
    for (const prefix of ["E31", "E32", "E44", "E45", "E46"]) {
      const s = await subtype({ prefix, end_number: 10 });
      const res = await tenant.api.post("/invoices", invoice(s.id));
      expect(res.status, prefix).toBe(422);
      expect(res.body.code, prefix).toBe("ecf_not_configured");
      expect(res.body.errors.document_subtype_id, prefix).toEqual([
        "Electronic invoicing (e-CF) is not enabled for this company: upload the certificate (PUT /api/v1/ecf/certificate) and enable it (PUT /api/v1/ecf/settings) before issuing E-series documents.",
      ]);
      expect((await tenant.api.get(`/document-subtypes/${s.id}`)).body.data.next_number, prefix).toBe(1);
    }
  });

  it("checks the expiry against the invoice's issue date", async () => {
    const { tenant, invoice, subtype } = await setup();
    const s = await subtype({ prefix: "B14", start_number: 5001, end_number: 5010, valid_until: "2026-11-15" });
    // Issued on the last valid day: accepted even though the sequence has expired today.
    const onTime = await tenant.api.post("/invoices", invoice(s.id, "2026-11-15"));
    expect(onTime.status).toBe(201);
    expect(onTime.body.data.document_number).toBe("B1400005001");
    const late = await tenant.api.post("/invoices", invoice(s.id, "2026-11-16"));
    expect(late.status).toBe(422);
    expect(late.body.code).toBe("ncf_sequence_expired");
    expect(late.body.errors).toEqual({ document_subtype_id: ["This sequence expired on 2026-11-15."] });
    const current = (await tenant.api.get(`/document-subtypes/${s.id}`)).body.data;
    expect(current.next_number).toBe(5002);
  });

  it("PATCH: each rule it holds against the stored sequence is in its description, and each refuses through HTTP (issue 44)", async () => {
    const { tenant, invoice, subtype } = await setup();
    const document = createApp().getOpenAPI31Document(OPENAPI_DOCUMENT) as unknown as { paths: Record<string, Record<string, { description?: string }>> };
    const description = document.paths["/api/v1/document-subtypes/{id}"]!.patch!.description ?? "";
    const patch = async (id: number, body: Record<string, unknown>, status: number, code: string, fields: string[]) => {
      const res = await tenant.api.patch(`/document-subtypes/${id}`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      expect(res.body.code, JSON.stringify(body)).toBe(code);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual(fields);
    };
    const rule = (text: string) => expect(description, text).toContain(text);
    const b16 = await subtype({ prefix: "B16", start_number: 10, end_number: 1000, next_number: 50 });
    rule("(1) type cannot change (on type)");
    await patch(b16.id, { type: "credit_note" }, 422, "validation_failed", ["type"]);
    rule("(2) the prefix follows the stored type");
    await patch(b16.id, { prefix: "COT" }, 422, "validation_failed", ["prefix"]);
    const note = await subtype({ type: "credit_note", prefix: "B04", start_number: 9001, end_number: 9100 });
    await patch(note.id, { prefix: "B01" }, 422, "validation_failed", ["prefix"]);
    rule("(4) end_number ≥ start_number (on end_number)");
    const unused = await subtype({ prefix: "B13", start_number: 10, end_number: 1000 });
    await patch(unused.id, { end_number: 9 }, 422, "validation_failed", ["end_number"]);
    rule("(5) start_number ≤ next_number (on start_number) and next_number ≤ end_number + 1 (on end_number)");
    await patch(b16.id, { start_number: 51 }, 422, "validation_failed", ["start_number"]);
    await patch(b16.id, { end_number: 48 }, 422, "validation_failed", ["end_number"]);
    rule("(6) end_number fits the prefix's digits: 8 for B-series and quotations, 10 for E-series (on end_number)");
    await patch(b16.id, { end_number: 100_000_000 }, 422, "validation_failed", ["end_number"]);
    rule("(7) valid_until stays set for every type but quotation (null: on valid_until)");
    await patch(b16.id, { valid_until: null }, 422, "validation_failed", ["valid_until"]);
    rule("(8) is_electronic follows the prefix, true exactly for E-series (on is_electronic");
    await patch(b16.id, { is_electronic: true }, 422, "validation_failed", ["is_electronic"]);
    await patch(b16.id, { prefix: "E32", is_electronic: false }, 422, "validation_failed", ["is_electronic"]);
    rule("(9) a default is active (is_default true on an inactive subtype, or is_active false on the default: on is_default)");
    const inactive = await subtype({ prefix: "B12", start_number: 1, end_number: 100, is_active: false });
    await patch(inactive.id, { is_default: true }, 422, "validation_failed", ["is_default"]);
    const seeded = (await tenant.api.get("/document-subtypes?filter[prefix]=B01")).body.data as { id: number; is_default: boolean }[];
    await patch(seeded.find((x) => x.is_default)!.id, { is_active: false }, 422, "validation_failed", ["is_default"]);
    rule("(10) a contingency range stays a paper range of B01, B02, B14, B15, B16, B03 or B04 (on prefix) and is never the default (on is_default)");
    // Made the default by a PATCH, a contingency range was numbered from (its creation refused that).
    const paper = await subtype({ prefix: "B02", start_number: 7001, end_number: 7050, contingency_workspace_id: tenant.workspaceId });
    await patch(paper.id, { is_default: true }, 422, "validation_failed", ["is_default"]);
    await patch(paper.id, { prefix: "E32" }, 422, "validation_failed", ["prefix"]);
    await patch(paper.id, { prefix: "B11" }, 422, "validation_failed", ["prefix"]);
    expect((await tenant.api.patch(`/document-subtypes/${paper.id}`, { prefix: "B01", end_number: 7060 })).status).toBe(200);
    rule("(11) the range overlaps no other sequence of its prefix (409 ncf_range_overlap)");
    const later = await subtype({ prefix: "B16", start_number: 2001, end_number: 3000 });
    await patch(later.id, { start_number: 900 }, 409, "ncf_range_overlap", ["start_number"]);
    rule("(3) prefix, start_number and end_number are fixed once a number was issued from the sequence (409 ncf_range_in_use on each one changed)");
    expect((await tenant.api.post("/invoices", invoice(b16.id))).status).toBe(201);
    await patch(b16.id, { end_number: 1100 }, 409, "ncf_range_in_use", ["end_number"]);
  });
});

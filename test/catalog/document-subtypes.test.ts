import { describe, expect, it } from "vitest";
import type { DocumentSubtype, PreferredSubtype } from "../../src/modules/document-subtypes/schemas";
import { takeDocumentNumber } from "../../src/modules/document-subtypes/service";
import type { Data, Page } from "../support/api";
import { inParallel } from "../support/parallel";
import { asOwner, seedTenant, seedUser, seedWorkspace } from "../support/seed";

/** A date relative to today in the Dominican Republic (UTC−4), as the service computes it. */
const dominicanDate = (days: number) => new Date(Date.now() - 4 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
const NEXT_YEAR_END = `${new Date().getUTCFullYear() + 1}-12-31`;

const invoiceSubtype = (overrides: Record<string, unknown> = {}) => ({
  name: "Crédito Fiscal 2",
  type: "invoice",
  // B16: a prefix the demo sequences (B01, B02, B14, B15: 1-5,000) leave free; ranges of one prefix never overlap.
  prefix: "B16",
  start_number: 1,
  end_number: 1000,
  valid_until: NEXT_YEAR_END,
  ...overrides,
});

describe("document subtypes", () => {
  it("seeds B01 (default), B02, B14, B15, B04 and B03 (default notes) and COT (default quotation) with their numbering", async () => {
    const t = await seedTenant();
    const res = await t.api.get<Page<DocumentSubtype>>("/document-subtypes");
    expect(res.status).toBe(200);
    expect(res.body.data.map((x) => [x.prefix, x.name, x.type, x.is_default, x.next_document_number, x.remaining, x.valid_until])).toEqual([
      ["B01", "Crédito Fiscal", "invoice", true, "B0100000001", 5_000, NEXT_YEAR_END],
      ["B02", "Consumo", "invoice", false, "B0200000001", 5_000, NEXT_YEAR_END],
      ["B14", "Regímenes Especiales", "invoice", false, "B1400000001", 5_000, NEXT_YEAR_END],
      ["B15", "Gubernamental", "invoice", false, "B1500000001", 5_000, NEXT_YEAR_END],
      ["B04", "Nota de Crédito", "credit_note", true, "B0400000001", 5_000, NEXT_YEAR_END],
      ["B03", "Nota de Débito", "debit_note", true, "B0300000001", 5_000, NEXT_YEAR_END],
      ["COT", "Cotización", "quotation", true, "COT00000001", 99_999_999, null],
    ]);
    const b01 = res.body.data[0]!;
    expect(b01).toMatchObject({ start_number: 1, end_number: 5_000, next_number: 1, is_active: true, is_electronic: false, is_demo: true, warnings: [] });
    expect((await t.api.get(`/document-subtypes/${b01.id}`)).body.data).toEqual(b01);
    expect((await t.api.get<Page<DocumentSubtype>>("/document-subtypes?filter[type]=quotation")).body.data.map((x) => x.prefix)).toEqual(["COT"]);
  });

  it("accepts only DGII NCF prefixes for invoices and notes, free prefixes for quotations", async () => {
    const t = await seedTenant();
    const ok = [
      invoiceSubtype({ prefix: "b02", name: "Consumo 2", start_number: 5001, end_number: 6000 }),
      invoiceSubtype({ prefix: "B17" }),
      invoiceSubtype({ prefix: "E31", end_number: 9_999_999_999 }),
      invoiceSubtype({ prefix: "E47" }),
      invoiceSubtype({ type: "credit_note", prefix: "B04", start_number: 5001, end_number: 6000 }),
      invoiceSubtype({ type: "credit_note", prefix: "E34" }),
      invoiceSubtype({ type: "debit_note", prefix: "E33" }),
      { name: "Proforma", type: "quotation", prefix: "PRO-", end_number: 500 },
    ];
    const created = [];
    for (const body of ok) {
      const res = await t.api.post("/document-subtypes", body);
      expect(res.status, JSON.stringify(body)).toBe(201);
      created.push(res.body.data);
    }
    expect(created.map((x) => [x.prefix, x.is_electronic, x.next_document_number])).toEqual([
      ["B02", false, "B0200005001"],
      ["B17", false, "B1700000001"],
      ["E31", true, "E310000000001"],
      ["E47", true, "E470000000001"],
      ["B04", false, "B0400005001"],
      ["E34", true, "E340000000001"],
      ["E33", true, "E330000000001"],
      ["PRO-", false, "PRO-00000001"],
    ]);
    expect(created[2]).toMatchObject({ end_number: 9_999_999_999, remaining: 9_999_999_999 });
    expect(created[7]).toMatchObject({ valid_until: null, remaining: 500 });

    const bad: [unknown, string][] = [
      [invoiceSubtype({ prefix: "B05" }), "prefix"],
      [invoiceSubtype({ prefix: "B10" }), "prefix"],
      [invoiceSubtype({ prefix: "E42" }), "prefix"],
      [invoiceSubtype({ prefix: "E30" }), "prefix"],
      [invoiceSubtype({ prefix: "COT" }), "prefix"],
      [invoiceSubtype({ type: "credit_note", prefix: "B01" }), "prefix"],
      [invoiceSubtype({ type: "debit_note", prefix: "B04" }), "prefix"],
      [{ name: "Q", type: "quotation", prefix: "B01", end_number: 10 }, "prefix"],
      [{ name: "Q", type: "quotation", prefix: "CO T", end_number: 10 }, "prefix"],
      [invoiceSubtype({ end_number: 100_000_000 }), "end_number"],
      [invoiceSubtype({ start_number: 10, end_number: 5 }), "end_number"],
      [invoiceSubtype({ start_number: 0 }), "start_number"],
      [invoiceSubtype({ next_number: 1002 }), "next_number"],
      [invoiceSubtype({ valid_until: null }), "valid_until"],
      [invoiceSubtype({ valid_until: "2027-02-30" }), "valid_until"],
      [invoiceSubtype({ is_electronic: true }), "is_electronic"],
      [invoiceSubtype({ prefix: "E31", is_electronic: false }), "is_electronic"],
      [invoiceSubtype({ type: "receipt" }), "type"],
      [invoiceSubtype({ is_default: true, is_active: false }), "is_default"],
    ];
    for (const [body, field] of bad) {
      const res = await t.api.post("/document-subtypes", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }
  });

  it("reports remaining numbers and warnings; next_number and type are read-only", async () => {
    const t = await seedTenant();
    const low = (await t.api.post("/document-subtypes", invoiceSubtype({ end_number: 150, next_number: 60 }))).body.data;
    expect(low).toMatchObject({ next_number: 60, remaining: 91, next_document_number: "B1600000060" });
    expect(low.warnings).toEqual([{ code: "running_low", message: "Only 91 numbers are left in the sequence." }]);
    const soon = dominicanDate(10);
    const expiring = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "B11", valid_until: soon }))).body.data;
    expect(expiring.warnings).toEqual([{ code: "expiring_soon", message: `The sequence expires on ${soon}, within 30 days.` }]);
    const yesterday = dominicanDate(-1);
    const done = (
      await t.api.post<Data<DocumentSubtype>>("/document-subtypes", invoiceSubtype({ prefix: "B12", end_number: 10, next_number: 11, valid_until: yesterday }))
    ).body.data;
    expect(done).toMatchObject({ remaining: 0, next_document_number: null });
    expect(done.warnings.map((w) => w.code)).toEqual(["expired", "exhausted"]);
    const far = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "B13", valid_until: dominicanDate(31) }))).body.data;
    expect(far.warnings).toEqual([]);

    // next_number is given at creation only (docs/fiscal.md): a PATCH takes no such field, not even its current value.
    for (const next_number of [1, 60]) {
      const readOnly = await t.api.patch(`/document-subtypes/${low.id}`, { next_number, name: "Renovado" });
      expect(readOnly.status).toBe(422);
      expect(readOnly.body).toMatchObject({ code: "validation_failed", errors: { next_number: ["Unknown field: this request takes no such field."] } });
      expect(Object.keys(readOnly.body.errors)).toEqual(["next_number"]);
    }
    expect((await t.api.get<Data<DocumentSubtype>>(`/document-subtypes/${low.id}`)).body.data).toMatchObject({ next_number: 60, name: low.name });
    const same = await t.api.patch(`/document-subtypes/${low.id}`, { end_number: 1000, name: "Renovado" });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ next_number: 60, end_number: 1000, remaining: 941, name: "Renovado", warnings: [] });
    expect((await t.api.patch(`/document-subtypes/${low.id}`, { end_number: 58 })).status).toBe(422);
    expect((await t.api.patch(`/document-subtypes/${low.id}`, { start_number: 61 })).status).toBe(422);
    const retype = await t.api.patch(`/document-subtypes/${low.id}`, { type: "quotation" });
    expect(retype.status).toBe(422);
    expect(Object.keys(retype.body.errors)).toEqual(["type"]);
    const reprefixed = await t.api.patch(`/document-subtypes/${low.id}`, { prefix: "E32", end_number: 2000 });
    expect(reprefixed.body.data).toMatchObject({ prefix: "E32", is_electronic: true, next_document_number: "E320000000060" });
    expect((await t.api.patch(`/document-subtypes/${low.id}`, { prefix: "B99" })).status).toBe(422);
  });

  it("numbers documents atomically through takeDocumentNumber and refuses exhausted or expired sequences", async () => {
    const t = await seedTenant();
    const small = (await t.api.post("/document-subtypes", invoiceSubtype({ end_number: 2 }))).body.data;
    const expired = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "B11", valid_until: dominicanDate(-1) }))).body.data;
    const first = await asOwner((db) => takeDocumentNumber(db, t.tenantId, small.id));
    const second = await asOwner((db) => takeDocumentNumber(db, t.tenantId, small.id));
    expect([first, second]).toEqual([
      { number: 1, documentNumber: "B1600000001" },
      { number: 2, documentNumber: "B1600000002" },
    ]);
    await expect(asOwner((db) => takeDocumentNumber(db, t.tenantId, small.id))).rejects.toMatchObject({ code: "ncf_sequence_exhausted" });
    await expect(asOwner((db) => takeDocumentNumber(db, t.tenantId, expired.id))).rejects.toMatchObject({ code: "ncf_sequence_expired" });
    const after = (await t.api.get<Data<DocumentSubtype>>(`/document-subtypes/${small.id}`)).body.data;
    expect(after).toMatchObject({ next_number: 3, remaining: 0, next_document_number: null });
    expect(after.warnings.map((w) => w.code)).toEqual(["exhausted"]);
  });

  it("keeps one default per type and refuses deleting defaults or preferred subtypes (409 in_use)", async () => {
    const t = await seedTenant();
    const seeded = (await t.api.get<Page<DocumentSubtype>>("/document-subtypes")).body.data;
    const b01 = seeded.find((x) => x.prefix === "B01")!;
    const b14 = seeded.find((x) => x.prefix === "B14")!;
    const newDefault = await t.api.post("/document-subtypes", invoiceSubtype({ is_default: true }));
    expect(newDefault.body.data.is_default).toBe(true);
    const defaults = (await t.api.get<Page<DocumentSubtype>>("/document-subtypes?filter[is_default]=true")).body.data.map((x) => [x.type, x.id]);
    expect(defaults).toEqual(
      [
        ["quotation", seeded.find((x) => x.prefix === "COT")!.id],
        ["credit_note", seeded.find((x) => x.prefix === "B04")!.id],
        ["debit_note", seeded.find((x) => x.prefix === "B03")!.id],
        ["invoice", newDefault.body.data.id],
      ].sort((a, b) => (a[1] as number) - (b[1] as number)),
    );
    expect((await t.api.get(`/document-subtypes/${b01.id}`)).body.data.is_default).toBe(false);
    expect((await t.api.patch(`/document-subtypes/${b01.id}`, { is_default: true })).body.data.is_default).toBe(true);
    expect((await t.api.get(`/document-subtypes/${newDefault.body.data.id}`)).body.data.is_default).toBe(false);

    const refused = await t.api.delete(`/document-subtypes/${b01.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("in_use");
    const preferred = await t.api.put(`/workspaces/${t.workspaceId}/preferred-document-subtype`, { type: "invoice", document_subtype_id: b14.id });
    expect(preferred.status).toBe(200);
    const inUse = await t.api.delete(`/document-subtypes/${b14.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toContain("preferred subtype of 1 workspace(s)");
    expect((await t.api.delete(`/document-subtypes/${newDefault.body.data.id}`)).status).toBe(200);
    expect((await t.api.get(`/document-subtypes/${newDefault.body.data.id}`)).status).toBe(404);
  });

  it("enforces permissions and tenant isolation", async () => {
    const t = await seedTenant();
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const subtype = (await t.api.post("/document-subtypes", invoiceSubtype())).body.data;
    expect((await member.api.get(`/document-subtypes/${subtype.id}`)).status).toBe(200);
    expect((await member.api.post("/document-subtypes", invoiceSubtype())).status).toBe(403);
    expect((await member.api.patch(`/document-subtypes/${subtype.id}`, { name: "x" })).status).toBe(403);
    expect((await member.api.delete(`/document-subtypes/${subtype.id}`)).status).toBe(403);
    const other = await seedTenant();
    expect((await other.api.get(`/document-subtypes/${subtype.id}`)).status).toBe(404);
    expect((await other.api.patch(`/document-subtypes/${subtype.id}`, { name: "x" })).status).toBe(404);
    expect((await other.api.delete(`/document-subtypes/${subtype.id}`)).status).toBe(404);
    expect((await other.api.get<Page<DocumentSubtype>>("/document-subtypes")).body.data.map((x) => x.id)).not.toContain(subtype.id);
    const res = await other.api.post("/invoices/validate-ncf", { ncf: "B0100000001", document_subtype_id: subtype.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ document_subtype_id: ["No such document subtype."] });
  });
});

describe("preferred document subtype of a workspace", () => {
  it("lets the owner set, read and clear it; checks type, existence and activity", async () => {
    const t = await seedTenant();
    const seeded = (await t.api.get<Page<DocumentSubtype>>("/document-subtypes")).body.data;
    const b02 = seeded.find((x) => x.prefix === "B02")!;
    const cot = seeded.find((x) => x.prefix === "COT")!;
    const path = `/workspaces/${t.workspaceId}/preferred-document-subtype`;
    const set = await t.api.put(path, { type: "invoice", document_subtype_id: b02.id });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      data: { workspace_id: t.workspaceId, type: "invoice", document_subtype_id: b02.id, document_subtype: { id: b02.id, name: "Consumo", prefix: "B02" } },
      message: "Preferred document subtype updated.",
    });
    expect((await t.api.put(path, { type: "quotation", document_subtype_id: cot.id })).status).toBe(200);
    const read = await t.api.get<Data<PreferredSubtype[]>>(`/workspaces/${t.workspaceId}/preferred-document-subtypes`);
    expect(read.body.data.map((x) => [x.type, x.document_subtype_id])).toEqual([
      ["invoice", b02.id],
      ["quotation", cot.id],
    ]);

    const wrongType = await t.api.put(path, { type: "invoice", document_subtype_id: cot.id });
    expect(wrongType.status).toBe(422);
    expect(Object.keys(wrongType.body.errors)).toEqual(["document_subtype_id"]);
    expect((await t.api.put(path, { type: "invoice", document_subtype_id: 999999 })).status).toBe(422);
    expect((await t.api.put(path, { type: "receipt", document_subtype_id: b02.id })).status).toBe(422);
    const inactive = (await t.api.post("/document-subtypes", invoiceSubtype({ is_active: false }))).body.data;
    expect((await t.api.put(path, { type: "invoice", document_subtype_id: inactive.id })).status).toBe(422);

    const cleared = await t.api.put(path, { type: "invoice", document_subtype_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.document_subtype_id).toBeNull();
    expect((await t.api.get<Data<PreferredSubtype[]>>(`/workspaces/${t.workspaceId}/preferred-document-subtypes`)).body.data.map((x) => x.type)).toEqual([
      "quotation",
    ]);
  });

  it("is limited to the workspace owner; other tenants' workspaces are not found", async () => {
    const t = await seedTenant();
    const second = await seedWorkspace(t);
    const b02 = (await t.api.get<Page<DocumentSubtype>>("/document-subtypes?filter[prefix]=B02")).body.data[0]!;
    const admin = await seedUser(t, { role: "admin", workspaceIds: [t.workspaceId, second] });
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const body = { type: "invoice", document_subtype_id: b02.id };
    const notOwner = await admin.api.put(`/workspaces/${second}/preferred-document-subtype`, body);
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.code).toBe("forbidden");
    expect((await member.api.put(`/workspaces/${t.workspaceId}/preferred-document-subtype`, body)).status).toBe(403);
    expect((await t.api.put(`/workspaces/999999/preferred-document-subtype`, body)).status).toBe(404);
    expect((await t.api.put(`/workspaces/${second}/preferred-document-subtype`, body)).status).toBe(200);
    // Members read the preferences of their workspaces only.
    expect((await member.api.get(`/workspaces/${t.workspaceId}/preferred-document-subtypes`)).status).toBe(200);
    expect((await member.api.get(`/workspaces/${second}/preferred-document-subtypes`)).status).toBe(404);

    const other = await seedTenant();
    const otherB02 = (await other.api.get<Page<DocumentSubtype>>("/document-subtypes?filter[prefix]=B02")).body.data[0]!;
    expect((await other.api.put(`/workspaces/${second}/preferred-document-subtype`, { type: "invoice", document_subtype_id: otherB02.id })).status).toBe(404);
    expect((await other.api.put(`/workspaces/${other.workspaceId}/preferred-document-subtype`, body)).status).toBe(422);
    expect((await other.api.get(`/workspaces/${second}/preferred-document-subtypes`)).status).toBe(404);
  });
});

describe("POST /invoices/validate-ncf", () => {
  it("answers top-level {valid, message} for each reason", async () => {
    // Without the demo sequences: this test's B01, B14 and B15 ranges would overlap them.
    const t = await seedTenant({ demoSequences: false });
    const ranged = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "B01", start_number: 100, end_number: 200 }))).body.data;
    const electronic = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "E31", end_number: 5000 }))).body.data;
    const expired = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "B15", valid_until: dominicanDate(-1) }))).body.data;
    const inactive = (await t.api.post("/document-subtypes", invoiceSubtype({ prefix: "B14", is_active: false }))).body.data;
    const cot = (await t.api.get<Page<DocumentSubtype>>("/document-subtypes?filter[prefix]=COT")).body.data[0]!;
    const check = (ncf: string, id: number) => t.api.post("/invoices/validate-ncf", { ncf, document_subtype_id: id });

    const ok = await check("B0100000150", ranged.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true, message: "The NCF B0100000150 is valid for Crédito Fiscal 2." });
    expect((await check(" b0100000100 ", ranged.id)).body.valid).toBe(true);
    expect((await check("E310000004999", electronic.id)).body.valid).toBe(true);
    expect((await check("COT00000042", cot.id)).body).toEqual({ valid: true, message: "The NCF COT00000042 is valid for Cotización." });

    const reasons: [string, number, string][] = [
      ["B010000015", ranged.id, "B010000015 is not a valid B-series NCF: expected B and 10 digits (11 characters)."],
      ["B01000001500", ranged.id, "B01000001500 is not a valid B-series NCF: expected B and 10 digits (11 characters)."],
      ["E3100000001", electronic.id, "E3100000001 is not a valid E-series NCF: expected E and 12 digits (13 characters)."],
      ["B0100000001", electronic.id, "B0100000001 is not a valid E-series NCF: expected E and 12 digits (13 characters)."],
      ["B0200000150", ranged.id, "The NCF type B02 does not match the subtype's prefix B01."],
      ["B0100000099", ranged.id, "The number 99 is outside the authorized range 100-200."],
      ["B0100000201", ranged.id, "The number 201 is outside the authorized range 100-200."],
      ["B1500000001", expired.id, `The sequence expired on ${expired.valid_until}.`],
      ["B1400000001", inactive.id, "The document subtype Crédito Fiscal 2 is inactive."],
      ["PRO00000001", cot.id, "The number does not start with the subtype's prefix COT."],
      ["COT0042", cot.id, "Expected COT followed by 8 digits (11 characters)."],
    ];
    for (const [ncf, id, message] of reasons) {
      const res = await check(ncf, id);
      expect(res.status, ncf).toBe(200);
      expect(res.body, ncf).toEqual({ valid: false, message });
    }
    const missing = await t.api.post("/invoices/validate-ncf", { ncf: "B0100000001" });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["document_subtype_id"]);
    expect((await check("B0100000001", 999999)).status).toBe(422);
  });

  it("needs invoices:create", async () => {
    const t = await seedTenant();
    const viewer = await seedUser(t, { role: "viewer", workspaceIds: [t.workspaceId] });
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const b01 = (await t.api.get<Page<DocumentSubtype>>("/document-subtypes?filter[prefix]=B01")).body.data[0]!;
    expect((await viewer.api.post("/invoices/validate-ncf", { ncf: "B0100000001", document_subtype_id: b01.id })).status).toBe(403);
    expect((await member.api.post("/invoices/validate-ncf", { ncf: "B0100000001", document_subtype_id: b01.id })).body).toEqual({
      valid: true,
      message: "The NCF B0100000001 is valid for Crédito Fiscal.",
    });
  });

  it("concurrent creations of overlapping ranges, each the new default: one is created, every other is 409 ncf_range_overlap, never a deadlock's 503 (issue 33)", async () => {
    const t = await seedTenant();
    for (let round = 0; round < 3; round++) {
      const prefix = ["B16", "E31", "E32"][round]!;
      const results = await inParallel(
        Array.from(
          { length: 8 },
          (_, k) => () =>
            t.api.post(
              "/document-subtypes",
              invoiceSubtype({ name: `Serie ${round}-${k}`, prefix, start_number: 1 + k, end_number: 1000 + k, is_default: true }),
            ),
        ),
        8,
      );
      expect(results.map((r) => r.status).sort(), prefix).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const refused of results.filter((r) => r.status === 409)) {
        expect(refused.body.code, prefix).toBe("ncf_range_overlap");
      }
    }
  });
});

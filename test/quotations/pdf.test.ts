import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { inParallel } from "../support/parallel";
import { fetchBytes, pdfText } from "../support/pdf";
import { catalogIds, createContact } from "../support/sales";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct } from "../support/stock";
import { quotationSetup } from "./helpers";

describe("quotations: PDF", () => {
  it("renders one quotation titled Cotización with its number, customer, expiration date and total", async () => {
    const { tenant, contact, create } = await quotationSetup();
    const q = await create();
    const res = await fetchBytes(tenant.subdomain, tenant.admin.token, `/quotations/${q.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="COT00000001.pdf"');
    expect(new TextDecoder().decode(res.bytes.slice(0, 5))).toBe("%PDF-");
    const text = await pdfText(res.bytes);
    for (const expected of [
      "Cotización",
      "No.: COT00000001",
      contact.name,
      "RNC: 131246796",
      "Válida hasta: 20-12-2026",
      "Instalación",
      "1,366.18",
      "Válida 30 días",
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain("Pendiente");
    // The totals print as every B-series document's (one home, sales/items.ts printedTotals): the
    // ITBIS apart from the tip, the discount as a deduction; no lump "Impuestos" row.
    const totals = text.slice(text.lastIndexOf("Subtotal")).replace(/\s+/g, " ");
    expect(totals).toMatch(/^Subtotal RD\$1,099\.98 Descuento -RD\$10\.00 ITBIS RD\$176\.20 Propina Legal RD\$100\.00 Total RD\$1,366\.18 Notas/);
    const missing = await fetchBytes(tenant.subdomain, tenant.admin.token, "/quotations/999999/pdf");
    expect(missing.status).toBe(404);
  });
});

describe("quotations: PDF of a large document", () => {
  it("renders 500 lines of 1,000-character descriptions, each wrapped whole in its column, and 5,000-character notes", async () => {
    const { tenant, b, body } = await quotationSetup();
    const description = (i: number) =>
      `Linea ${String(i).padStart(3, "0")} ${"Mantenimiento preventivo del equipo de refrigeración ".repeat(20)}`.slice(0, 1000).trim();
    const items = Array.from({ length: 500 }, (_, i) => ({ product_id: b.id, quantity: "1", unit_price: "1", tax_ids: [], description: description(i) }));
    const notes = "Nota ".repeat(1000).trim();
    const created = await tenant.api.post("/quotations", body({ items, notes }));
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
    expect(created.body.data.total_amount).toBe("500.00");
    // Rendering time is measured by `npm run bench:pdf` (1,000 lines × 1,000 characters), not here.
    const res = await fetchBytes(tenant.subdomain, tenant.admin.token, `/quotations/${created.body.data.id}/pdf`);
    expect(res.status).toBe(200);
    const text = await pdfText(res.bytes);
    // Lines break at spaces only (no word here is wider than the column): with the breaks read as
    // spaces, the descriptions and the notes come back whole, and nothing is cut with "…".
    // A description that continues on the next page has the page's heading and the column headers
    // repeated before its next line there: take them out to read it whole.
    const flowing = text
      .replace(/Página No\. \d+ de \d+/g, "")
      .replace(/Cotización — No\.: COT\d+ \(continuación\)/g, "")
      .replace(/\s+/g, " ")
      .split("Descripción Cant. Precio Desc. % Impuestos Total ")
      .join("");
    expect(text.split("Descripción").length - 1).toBeGreaterThan(50);
    expect(flowing).toContain(description(0));
    expect(flowing).toContain(description(250));
    expect(flowing).toContain(description(499));
    expect(flowing).toContain(notes);
    expect(text).not.toContain("…");
    expect(text).toContain("500.00");
  }, 60_000);
});

describe("quotations: bulk PDF", () => {
  it("streams a ZIP holding one valid <document_number>.pdf per quotation, in the order asked, repeated ids once", async () => {
    const { tenant, contact, create, a } = await quotationSetup();
    const q1 = await create();
    const q2 = await create(tenant.api, { items: [{ product_id: a.id, quantity: "3", unit_price: "10" }] });
    const q3 = await create();
    const res = await fetchBytes(tenant.subdomain, tenant.admin.token, "/quotations/bulk/pdf", {
      method: "POST",
      body: { quotation_ids: [q3.id, q1.id, q2.id, q1.id] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="cotizaciones.zip"');
    // Streamed as rendered: the length is not known up front.
    expect(res.headers.get("content-length")).toBeNull();
    const files = unzipSync(res.bytes);
    expect(Object.keys(files)).toEqual(["COT00000003.pdf", "COT00000001.pdf", "COT00000002.pdf"]);
    const totals: Record<string, string> = { "COT00000001.pdf": "1,366.18", "COT00000002.pdf": "35.40", "COT00000003.pdf": "1,366.18" };
    for (const [name, bytes] of Object.entries(files)) {
      const text = await pdfText(bytes);
      expect(text).toContain(`No.: ${name.replace(".pdf", "")}`);
      expect(text).toContain(contact.name);
      expect(text).toContain(totals[name]!);
    }
  });

  it("refuses 0 and 101 ids, and ids of other tenants, other workspaces or missing, naming each quotation_ids.N", async () => {
    const { tenant, create } = await quotationSetup();
    const q = await create();
    const post = (body: unknown) => tenant.api.post("/quotations/bulk/pdf", body);

    const none = await post({ quotation_ids: [] });
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.errors)).toEqual(["quotation_ids"]);
    const tooMany = await post({ quotation_ids: Array.from({ length: 101 }, (_, i) => i + 1) });
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(["quotation_ids"]);
    const notIds = await post({ quotation_ids: [q.id, "x", 0] });
    expect(notIds.status).toBe(422);
    expect(Object.keys(notIds.body.errors).sort()).toEqual(["quotation_ids.1", "quotation_ids.2"]);
    expect((await post({})).status).toBe(422);

    const other = await seedTenant();
    const foreign = await other.api.post("/quotations", { ...(await foreignBody(other)), issue_date: "2026-11-20" });
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(201);
    const withForeign = await post({ quotation_ids: [q.id, foreign.body.data.id, 999999] });
    expect(withForeign.status).toBe(422);
    expect(withForeign.headers.get("content-type")).toContain("application/json");
    expect(withForeign.body.code).toBe("validation_failed");
    expect(Object.keys(withForeign.body.errors)).toEqual(["quotation_ids.1", "quotation_ids.2"]);

    const branch = await seedWorkspace(tenant);
    const inBranch = tenant.api.as(tenant.admin.token, { headers: { "X-Workspace-ID": String(branch) } });
    const otherWorkspace = await inBranch.post("/quotations/bulk/pdf", { quotation_ids: [q.id] });
    expect(otherWorkspace.status).toBe(422);
    expect(Object.keys(otherWorkspace.body.errors)).toEqual(["quotation_ids.0"]);

    // The other tenant cannot fetch ours either, and gets its own alone.
    const theirs = await fetchBytes(other.subdomain, other.admin.token, "/quotations/bulk/pdf", {
      method: "POST",
      body: { quotation_ids: [foreign.body.data.id] },
    });
    expect(theirs.status).toBe(200);
    expect(Object.keys(unzipSync(theirs.bytes))).toEqual(["COT00000001.pdf"]);
    const ours = await other.api.post("/quotations/bulk/pdf", { quotation_ids: [q.id] });
    expect(ours.status).toBe(422);
  });

  it("renders up to 5,000 lines in all, repeated ids counted once, and refuses 5,001 with 422 on quotation_ids", async () => {
    const { tenant, b, body, create } = await quotationSetup();
    const lines = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ product_id: b.id, quantity: "1", unit_price: "1", tax_ids: [], description: `Servicio ${i + 1}` }));
    // 10 quotations of 500 lines (the most one may have): exactly 5,000 lines.
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await tenant.api.post("/quotations", body({ items: lines(500) }));
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
      ids.push(res.body.data.id);
    }
    const atCap = await fetchBytes(tenant.subdomain, tenant.admin.token, "/quotations/bulk/pdf", { method: "POST", body: { quotation_ids: [...ids, ids[0]] } });
    expect(atCap.status).toBe(200);
    expect(Object.keys(unzipSync(atCap.bytes))).toHaveLength(10);

    const oneMore = await create(); // the reference quotation: 2 lines → 5,002 in all
    const over = await tenant.api.post("/quotations/bulk/pdf", { quotation_ids: [...ids, oneMore.id] });
    expect(over.status).toBe(422);
    expect(over.body.code).toBe("validation_failed");
    expect(over.body.errors).toEqual({ quotation_ids: ["The selected quotations have 5002 lines in all; at most 5000 lines can be rendered in one request."] });
    // Without one of the big ones the same request is back under the cap.
    const under = await fetchBytes(tenant.subdomain, tenant.admin.token, "/quotations/bulk/pdf", {
      method: "POST",
      body: { quotation_ids: [...ids.slice(1), oneMore.id] },
    });
    expect(under.status).toBe(200);
    expect(Object.keys(unzipSync(under.bytes))).toHaveLength(10);
  }, 120_000);

  it("holds 100 PDFs in one ZIP", async () => {
    const { tenant, a, body } = await quotationSetup();
    // 100 quotations, spread over four members so that no one meets the rate limit.
    const users = await Promise.all([0, 1, 2, 3].map(() => seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] })));
    const created = await inParallel(
      Array.from(
        { length: 100 },
        (_, i) => () => users[i % 4]!.api.post("/quotations", body({ items: [{ product_id: a.id, quantity: String(i + 1), unit_price: "1" }] })),
      ),
      8,
    );
    expect(created.map((r) => r.status)).toEqual(Array(100).fill(201));
    const ids = created.map((r) => r.body.data.id as number);
    const res = await fetchBytes(tenant.subdomain, tenant.admin.token, "/quotations/bulk/pdf", { method: "POST", body: { quotation_ids: ids } });
    expect(res.status).toBe(200);
    const files = unzipSync(res.bytes);
    const names = created.map((r) => `${r.body.data.document_number}.pdf`);
    expect(Object.keys(files)).toEqual(names);
    expect(new Set(names).size).toBe(100);
    expect(Object.keys(files).sort()[99]).toBe("COT00000100.pdf");
    // The 40th request: 40 × 1.00 + ITBIS 18% = 47.20.
    const text = await pdfText(files[names[39]!]!);
    expect(text).toContain(`No.: ${created[39]!.body.data.document_number}`);
    expect(text).toContain("47.20");
    for (const bytes of Object.values(files)) expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
  });
});

/** A quotation body for another tenant: its own contact, a service and its COT subtype. */
async function foreignBody(tenant: Awaited<ReturnType<typeof seedTenant>>) {
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api);
  const product = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  return { contact_id: contact.id, document_subtype_id: ids.cot, items: [{ product_id: product.id, quantity: "1", unit_price: "10" }] };
}

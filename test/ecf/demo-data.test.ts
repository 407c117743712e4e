import { describe, expect, it, vi } from "vitest";
import { type DemoApi, seedDemoData } from "../../scripts/lib/demo-data";
import { call, v1 } from "../support/api";
import { makeCertificate } from "../support/certificates";
import { freshRnc } from "../support/sales";
import { ownerRow, ownerRows, seedTenant, sql, uniqueName } from "../support/seed";
import { levelOf } from "../support/stock";

/**
 * What `npm run dev` gives its demo tenant (scripts/lib/demo-data.ts), through the API as dev.ts
 * calls it: a tenant with e-CF on and its E31 sequence, as dev.ts's demoEcf leaves it. The demo
 * data must keep passing the API's rules as they change, and its E31 must reach `accepted` at the
 * local DGII stand-in.
 */
describe("npm run dev's demo data", () => {
  it("products with stock in two branches, customers with RNCs, a supplier, an accepted E31, an accepted E32, a B02, a quotation, a purchase; once", async () => {
    const tenant = await seedTenant();
    const rnc = freshRnc();
    expect((await tenant.api.patch("/company", { rnc })).status).toBe(200);
    const cert = await makeCertificate({ commonName: uniqueName("DEMO "), holderId: rnc });
    expect((await tenant.api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password })).status).toBe(200);
    expect((await tenant.api.put("/ecf/settings", { environment: "testecf", enabled: true })).status).toBe(200);
    const e31 = await tenant.api.post("/document-subtypes", {
      name: "Crédito Fiscal Electrónico",
      type: "invoice",
      prefix: "E31",
      start_number: 1,
      end_number: 99_999_999,
      valid_until: "2027-12-31",
      authorization_number: "DEMO-ECF",
      authorized_at: "2026-05-01",
    });
    expect(e31.status, e31.text).toBe(201);
    const e32 = await tenant.api.post("/document-subtypes", {
      name: "Consumo Electrónico",
      type: "invoice",
      prefix: "E32",
      start_number: 1,
      end_number: 99_999_999,
      valid_until: "2027-12-31",
      authorization_number: "DEMO-ECF",
      authorized_at: "2026-05-01",
    });
    expect(e32.status, e32.text).toBe(201);

    const api: DemoApi = async (method, path, body, headers) => {
      const res = await call(tenant.subdomain, v1(path), { method, body, headers, token: tenant.admin.token });
      return { status: res.status, body: res.body };
    };
    const waitForEcf = async (invoiceId: number) => {
      let status = "";
      await vi.waitFor(
        async () => {
          status = (await ownerRow<{ status: string }>(sql`SELECT status FROM ecf_documents WHERE invoice_id = ${invoiceId}`)).status;
          expect(["pending", "in_process"]).not.toContain(status);
        },
        { timeout: 20_000, interval: 100 },
      );
      return status;
    };
    expect(await seedDemoData(api, waitForEcf)).toBe(true);

    const workspaces = (await tenant.api.get("/workspaces")).body.data as { id: number; name: string }[];
    expect(workspaces.map((workspace) => workspace.name).sort()).toEqual(["Principal", "Santiago"]);
    const santiago = workspaces.find((workspace) => workspace.name === "Santiago")!;
    // The admin is back in the first branch, where the printed curls look.
    expect((await tenant.api.get("/me")).body.data.current_workspace_id).toBe(tenant.workspaceId);

    const products = (await tenant.api.get("/products?per_page=100")).body.data as { id: number; sku: string }[];
    expect(products).toHaveLength(5);
    const cement = products.find((product) => product.sku === "CEM-425")!;
    // 120 to start, 20 sold on the E31, 100 bought.
    expect(await levelOf(cement.id, tenant.workspaceId)).toBe("200.00");
    expect(await levelOf(cement.id, santiago.id)).toBe("45.00");

    const contacts = (await tenant.api.get("/contacts?per_page=100")).body.data as { name: string; contact_type: string; identification: string | null }[];
    expect(contacts.filter((contact) => contact.contact_type === "supplier").map((contact) => contact.name)).toEqual([
      "Distribuidora Nacional de Materiales SRL",
    ]);
    expect(contacts.filter((contact) => contact.identification).length).toBe(3);

    const invoices = (await tenant.api.get("/invoices?sort=document_number")).body.data as { document_number: string; total_amount: string }[];
    // E31: 20 × 495 + 50 × 285 + 2,500 = 26,650.00 + ITBIS 18 % 4,797.00; B02: 2 × 1,250 + 450 ITBIS.
    // E32: 10 × 165 + 297 ITBIS, to the consumer (the lookup page's document).
    expect(invoices.map((invoice) => [invoice.document_number, invoice.total_amount])).toEqual([
      ["B0200000001", "2950.00"],
      ["E310000000001", "31447.00"],
      ["E320000000001", "1947.00"],
    ]);
    const ecf = await ownerRows<{ status: string }>(sql`SELECT status FROM ecf_documents WHERE tenant_id = ${tenant.tenantId} ORDER BY id`);
    expect(ecf.map((row) => row.status)).toEqual(["accepted", "accepted"]);
    expect((await tenant.api.get("/quotations")).body.meta.total).toBe(1);
    expect((await tenant.api.get("/purchases")).body.meta.total).toBe(1);

    // A second `npm run dev` finds the data and adds nothing.
    expect(await seedDemoData(api, waitForEcf)).toBe(false);
    expect((await tenant.api.get("/invoices")).body.meta.total).toBe(3);
  });
});

import { describe, expect, it } from "vitest";
import { rowsOf } from "../../src/db/rows";
import { createTenant, DEMO_RANGE_END, TenantInputError } from "../../src/modules/tenants/service";
import { client } from "../support/api";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, DEFAULT_PASSWORD, seedTenant, seedUser, sql, TEST_RNC, uniqueName } from "../support/seed";

describe("company fiscal profile", () => {
  it("is readable by any member and complete for the test tenants", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const res = await viewer.api.get("/company");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      rnc: TEST_RNC,
      legal_name: `Tenant ${tenant.subdomain} SRL`,
      address: "Calle El Conde 1, Santo Domingo",
      trade_name: null,
      municipality_code: null,
      province_code: null,
      is_complete: true,
      missing_fields: [],
    });
  });

  it("PATCH validates the RNC check digit and DGII's province and municipality codes", async () => {
    const tenant = await seedTenant();
    const badRnc = await tenant.api.patch("/company", { rnc: "131246797" });
    expect(badRnc.status).toBe(422);
    expect(badRnc.body.errors).toEqual({ rnc: ["This RNC has an invalid check digit."] });
    const shortRnc = await tenant.api.patch("/company", { rnc: "1312467" });
    expect(shortRnc.body.errors).toEqual({ rnc: ["An RNC has 9 digits."] });
    const badProvince = await tenant.api.patch("/company", { province_code: "330000" });
    expect(badProvince.status).toBe(422);
    expect(Object.keys(badProvince.body.errors)).toEqual(["province_code"]);
    const badMunicipality = await tenant.api.patch("/company", { municipality_code: "010199" });
    expect(badMunicipality.status).toBe(422);
    expect(Object.keys(badMunicipality.body.errors)).toEqual(["municipality_code"]);
    // Santiago de los Caballeros (250101) is not in the Distrito Nacional (010000).
    const mismatch = await tenant.api.patch("/company", { province_code: "010000", municipality_code: "250101" });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors.municipality_code[0]).toBe("This municipality is not in the province 010000.");

    const ok = await tenant.api.patch("/company", {
      rnc: "101-00000-7",
      legal_name: "Ferretería Central SRL",
      trade_name: "Ferrecentral",
      province_code: "250000",
      municipality_code: "250101",
      phone: "809-555-0100",
      email: "Info@Ferrecentral.do",
      website: "https://ferrecentral.do",
      economic_activity: "Venta de artículos de ferretería",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Company profile updated.");
    expect(ok.body.data).toMatchObject({
      rnc: "101000007",
      legal_name: "Ferretería Central SRL",
      trade_name: "Ferrecentral",
      address: "Calle El Conde 1, Santo Domingo",
      province_code: "250000",
      municipality_code: "250101",
      email: "info@ferrecentral.do",
      is_complete: true,
    });
    expect((await tenant.api.get("/company")).body.data.economic_activity).toBe("Venta de artículos de ferretería");
  });

  it("PATCH is for the company's administrators only: 403 company_forbidden for a member and a viewer", async () => {
    const tenant = await seedTenant();
    for (const role of ["member", "viewer"]) {
      const user = await seedUser(tenant, { role, workspaceIds: [tenant.workspaceId] });
      const res = await user.api.patch("/company", { legal_name: "Otra SRL" });
      expect(res.status, role).toBe(403);
      expect(res.body.code, role).toBe("company_forbidden");
    }
    expect((await tenant.api.get("/company")).body.data.legal_name).toBe(`Tenant ${tenant.subdomain} SRL`);
  });

  it("an incomplete profile refuses a fiscal invoice with 422 fiscal_profile_incomplete naming the fields", async () => {
    const tenant = await seedTenant();
    const ids = await catalogIds(tenant.api);
    const contact = await createContact(tenant.api);
    const product = (await tenant.api.post("/products", { name: uniqueName("Servicio "), product_type: "service", price: "100", track_inventory: false })).body
      .data;
    const body = {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "100" }],
    };
    const cleared = await tenant.api.patch("/company", { rnc: null, address: "" });
    expect(cleared.body.data).toMatchObject({ is_complete: false, missing_fields: ["rnc", "address"] });
    const refused = await tenant.api.post("/invoices", body);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("fiscal_profile_incomplete");
    expect(refused.body.errors).toEqual({ rnc: ["Required to issue fiscal documents."], address: ["Required to issue fiscal documents."] });
    expect(refused.body.message).toContain("Missing: rnc, address.");
    // Nothing was numbered: the next invoice after completing the profile takes B0200000001.
    await tenant.api.patch("/company", { rnc: TEST_RNC, address: "Av. 27 de Febrero 100" });
    const created = await tenant.api.post("/invoices", body);
    expect(created.status).toBe(201);
    expect(created.body.data.document_number).toBe("B0200000001");
  });
});

describe("tenant creation (tenant:create's options)", () => {
  it("without --demo-sequences seeds no fiscal sequence and an empty profile; with it, demo ranges of 1-5,000", async () => {
    const bare = uniqueName("t");
    const created = await asOwner((db) => createTenant(db, { subdomain: bare, name: "Bare SRL", adminEmail: `a@${bare}.do`, adminPassword: DEFAULT_PASSWORD }));
    const rows = await asOwner((db) => db.execute(sql`SELECT prefix, end_number::int, is_demo FROM document_subtypes WHERE tenant_id = ${created.tenant.id}`));
    expect(rowsOf(rows)).toEqual([{ prefix: "COT", end_number: 99_999_999, is_demo: false }]);
    const profile = await asOwner((db) => db.execute(sql`SELECT rnc, legal_name, address FROM company_profiles WHERE tenant_id = ${created.tenant.id}`));
    expect(rowsOf(profile)).toEqual([{ rnc: null, legal_name: null, address: null }]);

    const demo = uniqueName("t");
    const withDemo = await asOwner((db) =>
      createTenant(db, {
        subdomain: demo,
        name: "Demo SRL",
        adminEmail: `a@${demo}.do`,
        adminPassword: DEFAULT_PASSWORD,
        rnc: "131-24679-6",
        legalName: "Demo SRL",
        demoSequences: true,
      }),
    );
    const subtypes = await asOwner((db) =>
      db.execute(
        sql`SELECT prefix, start_number::int, end_number::int, is_demo FROM document_subtypes WHERE tenant_id = ${withDemo.tenant.id} ORDER BY prefix`,
      ),
    );
    expect(rowsOf(subtypes)).toEqual([
      { prefix: "B01", start_number: 1, end_number: DEMO_RANGE_END, is_demo: true },
      { prefix: "B02", start_number: 1, end_number: DEMO_RANGE_END, is_demo: true },
      { prefix: "B03", start_number: 1, end_number: DEMO_RANGE_END, is_demo: true },
      { prefix: "B04", start_number: 1, end_number: DEMO_RANGE_END, is_demo: true },
      { prefix: "B14", start_number: 1, end_number: DEMO_RANGE_END, is_demo: true },
      { prefix: "B15", start_number: 1, end_number: DEMO_RANGE_END, is_demo: true },
      { prefix: "COT", start_number: 1, end_number: 99_999_999, is_demo: false },
    ]);
    expect(DEMO_RANGE_END).toBe(5_000);
    const [admin] = rowsOf<{ id: number }>(await asOwner((db) => db.execute(sql`SELECT id FROM users WHERE tenant_id = ${withDemo.tenant.id}`)));
    expect(admin!.id).toBe(withDemo.user.id);
    const profile2 = await asOwner((db) => db.execute(sql`SELECT rnc, legal_name, address FROM company_profiles WHERE tenant_id = ${withDemo.tenant.id}`));
    expect(rowsOf(profile2)).toEqual([{ rnc: "131246796", legal_name: "Demo SRL", address: null }]);
  });

  it("refuses an RNC with a bad check digit before writing anything", async () => {
    const subdomain = uniqueName("t");
    await expect(
      asOwner((db) => createTenant(db, { subdomain, name: "X", adminEmail: `a@${subdomain}.do`, adminPassword: DEFAULT_PASSWORD, rnc: "131246797" })),
    ).rejects.toThrow(TenantInputError);
    expect((await client(subdomain).get("/company")).status).toBe(404);
  });
});

describe("workspaces: address and phone", () => {
  it("are set on create and update, cleared with null, and shown by GET", async () => {
    const tenant = await seedTenant();
    const created = await tenant.api.post("/workspaces", { name: "Sucursal Santiago", address: "Calle del Sol 10, Santiago", phone: "809-582-0000" });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const shown = await tenant.api.get(`/workspaces/${id}`);
    expect(shown.body.data).toMatchObject({ name: "Sucursal Santiago", address: "Calle del Sol 10, Santiago", phone: "809-582-0000" });
    const updated = await tenant.api.patch(`/workspaces/${id}`, { phone: null }, { headers: { "X-Workspace-ID": String(id) } });
    expect(updated.status).toBe(200);
    expect((await tenant.api.get(`/workspaces/${id}`)).body.data).toMatchObject({ address: "Calle del Sol 10, Santiago", phone: null });
    const principal = await tenant.api.get(`/workspaces/${tenant.workspaceId}`);
    expect(principal.body.data).toMatchObject({ address: null, phone: null });
    const tooLong = await tenant.api.patch(`/workspaces/${id}`, { address: "x".repeat(251) });
    expect(tooLong.status).toBe(422);
    expect(Object.keys(tooLong.body.errors)).toEqual(["address"]);
  });
});

import { describe, expect, it } from "vitest";
import type { Contact } from "../../src/modules/contacts/schemas";
import type { ApiResponse, Page } from "../support/api";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";

describe("contacts", () => {
  it("creates, gets, lists, updates and deletes a contact", async () => {
    const t = await seedTenant();
    const created = await t.api.post("/contacts", {
      name: "Ferretería Ochoa",
      contact_type: "supplier",
      identification_type: "rnc",
      identification: "1-31-24679-6",
      email: "ventas@ochoa.do",
      phone: "809-555-0100",
      address: "Av. Duarte 12, Santiago",
      credit_limit: "25000.5",
    });
    expect(created.status).toBe(201);
    const contact = created.body.data;
    expect(contact).toMatchObject({
      name: "Ferretería Ochoa",
      contact_type: "supplier",
      identification_type: "rnc",
      identification: "131246796",
      email: "ventas@ochoa.do",
      phone: "809-555-0100",
      credit_limit: "25000.50",
      tax_regime: "ordinary",
      notes: null,
      workspace_id: t.workspaceId,
    });
    expect((await t.api.get(`/contacts/${contact.id}`)).body.data).toEqual(contact);

    const customer = (await t.api.post("/contacts", { name: "Ana Pérez", identification_type: "cedula", identification: "001 1391820 5" })).body.data;
    expect(customer).toMatchObject({ contact_type: "customer", identification: "00113918205", credit_limit: null });
    const both = (await t.api.post("/contacts", { name: "Beta SRL", contact_type: "both" })).body.data;
    expect(both).toMatchObject({ identification_type: null, identification: null });

    const ids = (res: ApiResponse<Page<Contact>>) => res.body.data.map((x) => x.id);
    expect(ids(await t.api.get<Page<Contact>>("/contacts?sort=name"))).toEqual([customer.id, both.id, contact.id]);
    expect(ids(await t.api.get<Page<Contact>>("/contacts?filter[contact_type]=supplier&sort=id"))).toEqual([contact.id, both.id]);
    expect(ids(await t.api.get<Page<Contact>>("/contacts?filter[contact_type]=customer&sort=id"))).toEqual([customer.id, both.id]);
    expect(ids(await t.api.get<Page<Contact>>("/contacts?filter[search]=131-24679"))).toEqual([contact.id]);
    expect(ids(await t.api.get<Page<Contact>>("/contacts?filter[search]=ochoa"))).toEqual([contact.id]);
    expect(ids(await t.api.get<Page<Contact>>("/contacts?filter[identification]=001-1391820-5"))).toEqual([customer.id]);

    const updated = await t.api.patch(`/contacts/${contact.id}`, { notes: "Paga a 30 días", credit_limit: null, email: null });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ notes: "Paga a 30 días", credit_limit: null, email: null, identification: "131246796" });
    const retyped = await t.api.patch(`/contacts/${both.id}`, { identification_type: "passport", identification: "rd-12345x" });
    expect(retyped.body.data).toMatchObject({ identification_type: "passport", identification: "RD12345X" });

    expect((await t.api.delete(`/contacts/${contact.id}`)).status).toBe(200);
    expect((await t.api.get(`/contacts/${contact.id}`)).status).toBe(404);
  });

  it("keeps a supplier's tax regime, which the IT-1's section A reads (docs/reports.md): ordinary by default, given, changed", async () => {
    const t = await seedTenant();
    const rst = await t.api.post("/contacts", { name: "Colmado Pérez", contact_type: "supplier", tax_regime: "rst" });
    expect([rst.status, rst.body.data.tax_regime]).toEqual([201, "rst"]);
    expect((await t.api.get(`/contacts/${rst.body.data.id}`)).body.data.tax_regime).toBe("rst");
    const retaxed = await t.api.patch(`/contacts/${rst.body.data.id}`, { tax_regime: "non_profit" });
    expect([retaxed.status, retaxed.body.data.tax_regime]).toEqual([200, "non_profit"]);
    expect((await t.api.patch(`/contacts/${rst.body.data.id}`, { notes: "Fundación" })).body.data.tax_regime).toBe("non_profit");
    expect((await t.api.post("/contacts", { name: "Ferretería" })).body.data.tax_regime).toBe("ordinary");
  });

  it("validates fields and pairs of identification type and number", async () => {
    const t = await seedTenant();
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "X", contact_type: "vendor" }, "contact_type"],
      [{ name: "X", email: "not-an-email" }, "email"],
      [{ name: "X", credit_limit: "12.345" }, "credit_limit"],
      [{ name: "X", credit_limit: -1 }, "credit_limit"],
      [{ name: "X", tax_regime: "simplificado" }, "tax_regime"],
      [{ name: "X", tax_regime: null }, "tax_regime"],
      [{ name: "X", identification: "131246796" }, "identification_type"],
      [{ name: "X", identification_type: "rnc" }, "identification"],
      [{ name: "X", identification_type: "dni", identification: "1" }, "identification_type"],
      [{ name: "X", identification_type: "passport", identification: "AB1" }, "identification"],
      [{ name: "X", workspace_id: 999999 }, "workspace_id"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api.post("/contacts", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }
  });

  it("refuses a duplicate identification among contacts visible in the same workspace", async () => {
    const t = await seedTenant();
    const second = await seedWorkspace(t);
    const inSecond = { headers: { "X-Workspace-ID": String(second) } };
    const first = await t.api.post("/contacts", { name: "A", identification_type: "rnc", identification: "101850043" });
    expect(first.status).toBe(201);
    const dup = await t.api.post("/contacts", { name: "B", identification_type: "rnc", identification: "1-01-85004-3" });
    expect(dup.status).toBe(422);
    expect(dup.body.code).toBe("validation_failed");
    expect(dup.body.errors.identification[0]).toContain(`contact ${first.body.data.id}`);
    // Another workspace has its own contacts: the same number is allowed there.
    const other = await t.api.post("/contacts", { name: "C", identification_type: "rnc", identification: "101850043" }, inSecond);
    expect(other.status).toBe(201);
    expect(other.body.data.workspace_id).toBe(second);
    // A shared contact would be visible next to both: refused.
    const shared = await t.api.post("/contacts", { name: "D", identification_type: "rnc", identification: "101850043", workspace_id: null });
    expect(shared.status).toBe(422);
    // A shared contact clashes with later contacts of any workspace.
    const sharedCed = await t.api.post("/contacts", { name: "E", identification_type: "cedula", identification: "22400022111", workspace_id: null });
    expect(sharedCed.status).toBe(201);
    expect((await t.api.post("/contacts", { name: "F", identification_type: "cedula", identification: "224-0002211-1" }, inSecond)).status).toBe(422);
    // Updating into a clash is refused too; keeping one's own number is fine.
    const g = (await t.api.post("/contacts", { name: "G" })).body.data;
    const clash = await t.api.patch(`/contacts/${g.id}`, { identification_type: "rnc", identification: "101850043" });
    expect(clash.status).toBe(422);
    expect(Object.keys(clash.body.errors)).toEqual(["identification"]);
    expect((await t.api.patch(`/contacts/${first.body.data.id}`, { name: "A2", identification: "101850043" })).status).toBe(200);
    // Moving a workspace contact into the shared pool clashes with the other workspace's.
    expect((await t.api.patch(`/contacts/${first.body.data.id}`, { workspace_id: null })).status).toBe(422);
  });

  it("scopes contacts to the request's workspace; view_all_locations sees all on demand", async () => {
    const t = await seedTenant();
    const second = await seedWorkspace(t);
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const secondMember = await seedUser(t, { role: "member", workspaceIds: [second] });
    const mine = (await member.api.post("/contacts", { name: "Mine" })).body.data;
    expect(mine.workspace_id).toBe(t.workspaceId);
    const theirs = (await secondMember.api.post("/contacts", { name: "Theirs" })).body.data;
    expect(theirs.workspace_id).toBe(second);
    const shared = (await member.api.post("/contacts", { name: "Shared", workspace_id: null })).body.data;
    expect(shared.workspace_id).toBeNull();

    const names = (res: ApiResponse<Page<Contact>>) => res.body.data.map((x) => x.name).sort();
    expect(names(await member.api.get<Page<Contact>>("/contacts"))).toEqual(["Mine", "Shared"]);
    expect(names(await secondMember.api.get<Page<Contact>>("/contacts"))).toEqual(["Shared", "Theirs"]);
    expect((await member.api.get(`/contacts/${theirs.id}`)).status).toBe(404);
    expect((await member.api.patch(`/contacts/${theirs.id}`, { name: "Hacked" })).status).toBe(404);
    expect((await secondMember.api.get(`/contacts/${shared.id}`)).status).toBe(200);
    expect((await member.api.get<Page<Contact>>("/contacts?filter[workspace_id]=all")).status).toBe(403);
    expect((await member.api.post("/contacts", { name: "X", workspace_id: second })).status).toBe(422);
    // A workspace the member does not belong to cannot be named in the header either.
    expect((await member.api.get<Page<Contact>>("/contacts", { headers: { "X-Workspace-ID": String(second) } })).status).toBe(403);

    expect(names(await t.api.get<Page<Contact>>("/contacts?filter[workspace_id]=all"))).toEqual(["Mine", "Shared", "Theirs"]);
    expect(names(await t.api.get<Page<Contact>>(`/contacts?filter[workspace_id]=${second}`))).toEqual(["Theirs"]);
    expect((await t.api.get(`/contacts/${theirs.id}`)).status).toBe(200);
    // With view_all_locations a contact can be placed in any workspace of the tenant.
    const placed = await t.api.post("/contacts", { name: "Placed", workspace_id: second });
    expect(placed.status).toBe(201);
    expect(names(await secondMember.api.get<Page<Contact>>("/contacts"))).toEqual(["Placed", "Shared", "Theirs"]);
  });

  it("hides contacts from other tenants and enforces permissions", async () => {
    const t = await seedTenant();
    const viewer = await seedUser(t, { role: "viewer", workspaceIds: [t.workspaceId] });
    const contact = (await t.api.post("/contacts", { name: "Cliente", identification_type: "rnc", identification: "131246796" })).body.data;
    expect((await viewer.api.get(`/contacts/${contact.id}`)).status).toBe(200);
    expect((await viewer.api.post("/contacts", { name: "No" })).status).toBe(403);
    expect((await viewer.api.delete(`/contacts/${contact.id}`)).status).toBe(403);
    const other = await seedTenant();
    expect((await other.api.get(`/contacts/${contact.id}`)).status).toBe(404);
    expect((await other.api.patch(`/contacts/${contact.id}`, { name: "x" })).status).toBe(404);
    expect((await other.api.delete(`/contacts/${contact.id}`)).status).toBe(404);
    expect((await other.api.get<Page<Contact>>("/contacts?filter[workspace_id]=all")).body.data).toEqual([]);
    // The same RNC in another tenant is no duplicate.
    expect((await other.api.post("/contacts", { name: "Cliente", identification_type: "rnc", identification: "131246796" })).status).toBe(201);
  });
});

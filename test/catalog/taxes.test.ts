import { describe, expect, it } from "vitest";
import type { Tax } from "../../src/modules/taxes/schemas";
import type { Page } from "../support/api";
import { seedTenant, seedUser } from "../support/seed";

describe("taxes", () => {
  it("seeds new tenants with ITBIS 18% (default), ITBIS 16%, Exento and Propina Legal 10%", async () => {
    const t = await seedTenant();
    const res = await t.api.get<Page<Tax>>("/taxes?sort=id");
    expect(res.status).toBe(200);
    expect(res.body.data.map((x) => [x.name, x.type, x.rate, x.is_default, x.is_active])).toEqual([
      ["ITBIS 18%", "itbis", "18.00", true, true],
      ["ITBIS 16%", "itbis", "16.00", false, true],
      ["Exento", "exento", "0.00", false, true],
      ["Propina Legal 10%", "propina_legal", "10.00", false, true],
    ]);
    expect((await t.api.get<Page<Tax>>("/taxes?filter[is_default]=true")).body.data.map((x) => x.name)).toEqual(["ITBIS 18%"]);
    expect((await t.api.get<Page<Tax>>("/taxes?filter[type]=itbis&sort=-rate")).body.data.map((x) => x.rate)).toEqual(["18.00", "16.00"]);
  });

  it("creates, updates and deletes a tax; validates rate and type", async () => {
    const t = await seedTenant();
    const created = await t.api.post("/taxes", { name: "ISC Alcohol", type: "isc", rate: 7.5, dgii_code: "035" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: "ISC Alcohol",
      type: "isc",
      rate: "7.50",
      dgii_code: "035",
      amount_per_unit: null,
      is_default: false,
      is_active: true,
    });
    const id = created.body.data.id;
    expect((await t.api.get(`/taxes/${id}`)).body.data).toEqual(created.body.data);
    const updated = await t.api.patch(`/taxes/${id}`, { rate: "10", is_default: true });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ rate: "10.00", is_default: true, name: "ISC Alcohol" });

    const cases: [unknown, string][] = [
      [{ name: "X", type: "itbis", rate: "100.01" }, "rate"],
      [{ name: "X", type: "itbis", rate: -1 }, "rate"],
      [{ name: "X", type: "itbis", rate: "18.005" }, "rate"],
      [{ name: "X", type: "itbis", rate: "1e1" }, "rate"],
      [{ name: "X", type: "itbis" }, "rate"],
      [{ name: "X", type: "vat", rate: 1 }, "type"],
      [{ name: "X", type: "exento", rate: 5 }, "rate"],
      [{ name: "X", type: "other", rate: 5, dgii_code: "002", is_default: true, is_active: false }, "is_default"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api.post("/taxes", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    expect((await t.api.post("/taxes", { name: "Cien", type: "other", rate: "100", dgii_code: "005" })).body.data.rate).toBe("100.00");

    expect((await t.api.delete(`/taxes/${id}`)).status).toBe(200);
    expect((await t.api.get(`/taxes/${id}`)).status).toBe(404);
  });

  it("refuses to delete a tax a product uses by default (409 in_use); deactivating works", async () => {
    const t = await seedTenant();
    const tax = (await t.api.post("/taxes", { name: "Selectivo", type: "isc", rate: 10, dgii_code: "031" })).body.data;
    const product = (await t.api.post("/products", { name: "Ron", default_tax_ids: [tax.id] })).body.data;
    const refused = await t.api.delete(`/taxes/${tax.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("in_use");
    expect(refused.body.message).toContain("1 product(s)");
    expect((await t.api.get(`/taxes/${tax.id}`)).status).toBe(200);
    expect((await t.api.patch(`/taxes/${tax.id}`, { is_active: false })).body.data.is_active).toBe(false);
    await t.api.patch(`/products/${product.id}`, { default_tax_ids: [] });
    expect((await t.api.delete(`/taxes/${tax.id}`)).status).toBe(200);
  });

  it("enforces permissions and tenant isolation", async () => {
    const t = await seedTenant();
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const tax = (await t.api.post("/taxes", { name: "T", type: "other", rate: 1, dgii_code: "002" })).body.data;
    expect((await member.api.get(`/taxes/${tax.id}`)).status).toBe(200);
    expect((await member.api.post("/taxes", { name: "T", type: "other", rate: 1, dgii_code: "002" })).status).toBe(403);
    expect((await member.api.patch(`/taxes/${tax.id}`, { rate: 2 })).status).toBe(403);
    expect((await member.api.delete(`/taxes/${tax.id}`)).status).toBe(403);
    const other = await seedTenant();
    expect((await other.api.get(`/taxes/${tax.id}`)).status).toBe(404);
    expect((await other.api.patch(`/taxes/${tax.id}`, { rate: 2 })).status).toBe(404);
    expect((await other.api.delete(`/taxes/${tax.id}`)).status).toBe(404);
    expect((await other.api.get<Page<Tax>>("/taxes")).body.data.map((x) => x.id)).not.toContain(tax.id);
    // A product cannot point at another tenant's tax.
    const res = await other.api.post("/products", { name: "P", default_tax_ids: [tax.id] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ default_tax_ids: [`Unknown tax id(s): ${tax.id}.`] });
  });
});

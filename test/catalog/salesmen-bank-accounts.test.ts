import { describe, expect, it } from "vitest";
import type { BankAccount } from "../../src/modules/bank-accounts/schemas";
import type { Currency } from "../../src/modules/currencies/schemas";
import type { Salesman } from "../../src/modules/salesmen/schemas";
import type { Page } from "../support/api";
import { seedTenant, seedUser } from "../support/seed";

describe("salesmen", () => {
  it("creates, lists, updates and deletes salesmen", async () => {
    const t = await seedTenant();
    const created = await t.api.post("/salesmen", { full_name: "Juan Rodríguez", email: "juan@ventas.do", phone: "829-555-0101" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ full_name: "Juan Rodríguez", email: "juan@ventas.do", phone: "829-555-0101", is_active: true });
    const id = created.body.data.id;
    const second = (await t.api.post("/salesmen", { full_name: "Ana Gómez" })).body.data;
    expect(second).toMatchObject({ email: null, phone: null });
    expect((await t.api.get<Page<Salesman>>("/salesmen")).body.data.map((x) => x.full_name)).toEqual(["Ana Gómez", "Juan Rodríguez"]);
    expect((await t.api.get<Page<Salesman>>("/salesmen?filter[search]=ventas.do")).body.data.map((x) => x.id)).toEqual([id]);
    const updated = await t.api.patch(`/salesmen/${id}`, { is_active: false, phone: null });
    expect(updated.body.data).toMatchObject({ is_active: false, phone: null, email: "juan@ventas.do" });
    expect((await t.api.get<Page<Salesman>>("/salesmen?filter[is_active]=true")).body.data.map((x) => x.id)).toEqual([second.id]);
    const bad = await t.api.post("/salesmen", { full_name: "", email: "nope" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["email", "full_name"]);
    expect((await t.api.delete(`/salesmen/${id}`)).status).toBe(200);
    expect((await t.api.get(`/salesmen/${id}`)).status).toBe(404);
  });

  it("enforces permissions and tenant isolation", async () => {
    const t = await seedTenant();
    const member = await seedUser(t, { role: "member", workspaceIds: [t.workspaceId] });
    const s = (await t.api.post("/salesmen", { full_name: "S" })).body.data;
    expect((await member.api.get(`/salesmen/${s.id}`)).status).toBe(200);
    expect((await member.api.post("/salesmen", { full_name: "S2" })).status).toBe(403);
    expect((await member.api.patch(`/salesmen/${s.id}`, { full_name: "S2" })).status).toBe(403);
    const other = await seedTenant();
    expect((await other.api.get(`/salesmen/${s.id}`)).status).toBe(404);
    expect((await other.api.patch(`/salesmen/${s.id}`, { full_name: "x" })).status).toBe(404);
    expect((await other.api.delete(`/salesmen/${s.id}`)).status).toBe(404);
    expect((await other.api.get<Page<Salesman>>("/salesmen")).body.data).toEqual([]);
  });
});

describe("bank accounts", () => {
  it("creates (default currency when omitted), lists, updates and deletes bank accounts", async () => {
    const t = await seedTenant();
    const currencies = (await t.api.get<Page<Currency>>("/currencies")).body.data;
    const dop = currencies.find((x) => x.code === "DOP")!;
    const usd = currencies.find((x) => x.code === "USD")!;
    const created = await t.api.post("/bank-accounts", { name: "Banreservas corriente", account_number: "960-123456-7" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: "Banreservas corriente",
      type: "bank",
      account_number: "960-123456-7",
      currency_id: dop.id,
      currency: { id: dop.id, code: "DOP", symbol: "RD$" },
      is_active: true,
    });
    const cash = (await t.api.post("/bank-accounts", { name: "Caja chica", type: "cash", currency_id: usd.id })).body.data;
    expect(cash).toMatchObject({ type: "cash", account_number: null, currency: { code: "USD" } });
    expect((await t.api.get<Page<BankAccount>>(`/bank-accounts?filter[currency_id]=${usd.id}`)).body.data.map((x) => x.id)).toEqual([cash.id]);
    expect((await t.api.get<Page<BankAccount>>("/bank-accounts?filter[type]=bank")).body.data.map((x) => x.id)).toEqual([created.body.data.id]);
    const updated = await t.api.patch(`/bank-accounts/${created.body.data.id}`, { currency_id: usd.id, type: "credit_card" });
    expect(updated.body.data).toMatchObject({ type: "credit_card", currency_id: usd.id, currency: { code: "USD" }, name: "Banreservas corriente" });
    expect((await t.api.get(`/bank-accounts/${created.body.data.id}`)).body.data).toEqual(updated.body.data);
    const cases: [unknown, string][] = [
      [{ type: "bank" }, "name"],
      [{ name: "X", type: "savings" }, "type"],
      [{ name: "X", currency_id: 999999 }, "currency_id"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api.post("/bank-accounts", body);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    expect((await t.api.delete(`/bank-accounts/${cash.id}`)).status).toBe(200);
    expect((await t.api.get(`/bank-accounts/${cash.id}`)).status).toBe(404);
  });

  it("enforces permissions and tenant isolation", async () => {
    const t = await seedTenant();
    const viewer = await seedUser(t, { role: "viewer", workspaceIds: [t.workspaceId] });
    const account = (await t.api.post("/bank-accounts", { name: "B" })).body.data;
    expect((await viewer.api.get<Page<BankAccount>>("/bank-accounts")).body.data.map((x) => x.id)).toEqual([account.id]);
    expect((await viewer.api.post("/bank-accounts", { name: "B2" })).status).toBe(403);
    expect((await viewer.api.delete(`/bank-accounts/${account.id}`)).status).toBe(403);
    const other = await seedTenant();
    expect((await other.api.get(`/bank-accounts/${account.id}`)).status).toBe(404);
    expect((await other.api.patch(`/bank-accounts/${account.id}`, { name: "x" })).status).toBe(404);
    expect((await other.api.delete(`/bank-accounts/${account.id}`)).status).toBe(404);
    expect((await other.api.get<Page<BankAccount>>("/bank-accounts")).body.data).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import type { Currency } from "../../src/modules/currencies/schemas";
import type { Page } from "../support/api";
import { seedTenant, seedUser } from "../support/seed";

describe("currencies", () => {
  it("seeds DOP (default, RD$) and USD", async () => {
    const t = await seedTenant();
    const res = await t.api.get<Page<Currency>>("/currencies");
    expect(res.status).toBe(200);
    expect(res.body.data.map((x) => [x.code, x.symbol, x.exchange_rate, x.is_default])).toEqual([
      ["DOP", "RD$", "1.00", true],
      ["USD", "US$", "60.00", false],
    ]);
  });

  it("creates with an ISO 4217 code, keeps rates to 6 decimals, refuses duplicates and bad codes", async () => {
    const t = await seedTenant();
    const eur = await t.api.post("/currencies", { code: "eur", name: "Euro", symbol: "€", exchange_rate: "64.123456" });
    expect(eur.status).toBe(201);
    expect(eur.body.data).toMatchObject({ code: "EUR", name: "Euro", symbol: "€", exchange_rate: "64.123456", is_default: false });
    const updated = await t.api.patch(`/currencies/${eur.body.data.id}`, { exchange_rate: 65.5 });
    expect(updated.body.data.exchange_rate).toBe("65.50");
    expect((await t.api.get(`/currencies/${eur.body.data.id}`)).body.data.exchange_rate).toBe("65.50");

    const cases: [unknown, string][] = [
      [{ code: "XYZ", name: "?", symbol: "?" }, "code"],
      [{ code: "EURO", name: "?", symbol: "?" }, "code"],
      [{ code: "GBP", name: "Libra", symbol: "£", exchange_rate: 0 }, "exchange_rate"],
      [{ code: "GBP", name: "Libra", symbol: "£", exchange_rate: "1.1234567" }, "exchange_rate"],
      [{ code: "GBP", name: "Libra", symbol: "£", exchange_rate: "NaN" }, "exchange_rate"],
      [{ code: "GBP", name: "Libra" }, "symbol"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api.post("/currencies", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    // A code the tenant has is a conflict with it (issue 44): 409 with its own code, on create and on update.
    const dup = await t.api.patch(`/currencies/${eur.body.data.id}`, { code: "USD" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate_currency_code");
    expect(dup.body.errors).toEqual({ code: ["This currency already exists."] });
    const again = await t.api.post("/currencies", { code: "EUR", name: "Euro", symbol: "€" });
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body.code).toBe("duplicate_currency_code");
  });

  it("keeps exactly one default, with a rate of 1", async () => {
    const t = await seedTenant();
    const list = (await t.api.get<Page<Currency>>("/currencies")).body.data;
    const dop = list.find((x) => x.code === "DOP")!;
    const usd = list.find((x) => x.code === "USD")!;
    const unset = await t.api.patch(`/currencies/${dop.id}`, { is_default: false });
    expect(unset.status).toBe(422);
    expect(Object.keys(unset.body.errors)).toEqual(["is_default"]);
    expect((await t.api.patch(`/currencies/${dop.id}`, { exchange_rate: 2 })).status).toBe(422);
    expect((await t.api.patch(`/currencies/${usd.id}`, { is_default: true, exchange_rate: 60 })).status).toBe(422);
    const switched = await t.api.patch(`/currencies/${usd.id}`, { is_default: true });
    expect(switched.status).toBe(200);
    expect(switched.body.data).toMatchObject({ code: "USD", is_default: true, exchange_rate: "1.00" });
    expect((await t.api.get<Page<Currency>>("/currencies?filter[is_default]=true")).body.data.map((x) => x.code)).toEqual(["USD"]);
    const created = await t.api.post("/currencies", { code: "EUR", name: "Euro", symbol: "€", is_default: true });
    expect(created.body.data).toMatchObject({ is_default: true, exchange_rate: "1.00" });
    expect((await t.api.get<Page<Currency>>("/currencies?filter[is_default]=true")).body.data.map((x) => x.code)).toEqual(["EUR"]);
    const refused = await t.api.delete(`/currencies/${created.body.data.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("in_use");
    expect((await t.api.delete(`/currencies/${dop.id}`)).status).toBe(200);
  });

  it("refuses to delete a currency a bank account uses; isolates tenants; enforces permissions", async () => {
    const t = await seedTenant();
    const viewer = await seedUser(t, { role: "viewer", workspaceIds: [t.workspaceId] });
    const gbp = (await t.api.post("/currencies", { code: "GBP", name: "Libra", symbol: "£", exchange_rate: 75 })).body.data;
    const account = (await t.api.post("/bank-accounts", { name: "Cuenta en libras", currency_id: gbp.id })).body.data;
    const refused = await t.api.delete(`/currencies/${gbp.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("in_use");
    expect(refused.body.message).toContain("1 bank account(s)");
    expect((await t.api.delete(`/bank-accounts/${account.id}`)).status).toBe(200);
    expect((await viewer.api.delete(`/currencies/${gbp.id}`)).status).toBe(403);
    expect((await viewer.api.post("/currencies", { code: "CAD", name: "C", symbol: "C$" })).status).toBe(403);
    expect((await viewer.api.get(`/currencies/${gbp.id}`)).status).toBe(200);

    const other = await seedTenant();
    expect((await other.api.get(`/currencies/${gbp.id}`)).status).toBe(404);
    expect((await other.api.patch(`/currencies/${gbp.id}`, { name: "x" })).status).toBe(404);
    expect((await other.api.delete(`/currencies/${gbp.id}`)).status).toBe(404);
    expect((await other.api.post("/bank-accounts", { name: "x", currency_id: gbp.id })).status).toBe(422);
    // Codes are unique per tenant only.
    expect((await other.api.post("/currencies", { code: "GBP", name: "Libra", symbol: "£" })).status).toBe(201);
    expect((await t.api.delete(`/currencies/${gbp.id}`)).status).toBe(200);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { type Client, call } from "../support/api";
import { type SeededTenant, seedTenant } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * What every request of the API admits beyond its own schema, as the OpenAPI document states it
 * (issue 44, docs/api.md "Requests: the document is the rules"): each finding of the fuzzer, through
 * HTTP. One tenant for the file.
 */
let tenant: SeededTenant;
let api: Client;
beforeAll(async () => {
  tenant = await seedTenant();
  api = tenant.api;
});

const UNKNOWN = ["Unknown field: this request takes no such field."];

describe("unknown fields", () => {
  it("are refused with 422 naming each, at the top and inside a line, and nothing is written", async () => {
    const sku = `SKU-${Date.now()}`;
    const top = await api.post("/products", { name: "Tornillo", sku, bogus: 1, prise: "10.00" });
    expect(top.status).toBe(422);
    expect(top.body).toEqual({ message: "The given data was invalid.", code: "validation_failed", errors: { bogus: UNKNOWN, prise: UNKNOWN } });
    expect((await api.get(`/products?filter[search]=${sku}`)).body.meta.total).toBe(0);

    const product = await createProduct(api);
    const nested = await api.post("/inventory/initial-stock", { items: [{ product_id: product.id, quantity: "1", quantiy: "2" }] });
    expect(nested.status).toBe(422);
    expect(nested.body.errors).toEqual({ "items.0.quantiy": UNKNOWN });
  });

  it("a PATCH with only an unknown field is a 422, not a 200 that changed nothing", async () => {
    const product = await createProduct(api);
    const res = await api.patch(`/products/${product.id}`, { nmae: "Otro" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ nmae: UNKNOWN });
  });
});

describe("decimals: the document's pattern and bounds, in both branches", () => {
  it("refuses 0 where more than 0 is needed and a negative where 0 or more is, as strings and numbers", async () => {
    const product = await createProduct(api);
    const other = await api.post("/workspaces", { name: `Sucursal ${Date.now()}` });
    expect(other.status).toBe(201);
    const transfer = (quantity: unknown) => api.post("/stock-transfers", { product_id: product.id, to_workspace_id: other.body.data.id, quantity });
    for (const quantity of ["-5", "0", "0.00", -5, 0]) {
      const res = await transfer(quantity);
      expect(res.status, String(quantity)).toBe(422);
      expect(Object.keys(res.body.errors), String(quantity)).toEqual(["quantity"]);
    }
    // Refused by the body's rule before the invoice is looked up (this one does not exist).
    for (const amount of ["0", 0, "-1"]) {
      const res = await api.post("/invoices/2147483647/payments", { amount, payment_date: "2026-11-20", payment_method: "cash" });
      expect(res.status, String(amount)).toBe(422);
      expect(res.body.errors.amount, String(amount)).toEqual(["Must be greater than 0."]);
    }
  });

  it("refuses a number with more decimals than the field keeps (370302615053.5532, 5e-324)", async () => {
    for (const price of [370302615053.5532, 5e-324, 0.001]) {
      const res = await api.post("/products", { name: "Precio", price });
      expect(res.status, String(price)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["price"]);
    }
    const exact = await api.post("/products", { name: "Precio", price: 370302615053.55 });
    expect(exact.status).toBe(201);
    expect(exact.body.data.price).toBe("370302615053.55");
  });

  it("an exchange rate takes its maximum as a string; as a number only what a double carries to the 6th decimal", async () => {
    const code = (await api.get("/currencies?filter[code]=EUR")).body.data.length ? "GBP" : "EUR";
    const atMax = await api.post("/currencies", { code, name: "Moneda", symbol: "¤", exchange_rate: "999999999999.999999" });
    expect(atMax.status, atMax.text).toBe(201);
    expect(atMax.body.data.exchange_rate).toBe("999999999999.999999");
    // As JSON numbers these arrive rounded (1000000000000, 123456789012.12346): refused, never stored changed.
    for (const text of ["999999999999.999999", "123456789012.123456"]) {
      const rounded = await api.patch(`/currencies/${atMax.body.data.id}`, undefined, {
        rawBody: `{"exchange_rate":${text}}`,
        headers: { "content-type": "application/json" },
      });
      expect(rounded.status, text).toBe(422);
      expect(rounded.body.errors.exchange_rate[0], text).toMatch(/^(?:Must be at most|As a JSON number at most 999999999.999999)/);
    }
    const number = await api.patch(`/currencies/${atMax.body.data.id}`, { exchange_rate: 999999999.999999 });
    expect(number.status).toBe(200);
    expect(number.body.data.exchange_rate).toBe("999999999.999999");
  });
});

describe("text", () => {
  it("refuses NUL in a text field with 422 on the field, not a database error", async () => {
    const res = await api.post("/products", { name: "Tor\u0000nillo" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ name: ["Must not contain the NUL character (\\u0000)."] });
    const query = await api.get("/products?filter[search]=a%00b");
    expect(query.status).toBe(422);
    expect(Object.keys(query.body.errors)).toEqual(["filter[search]"]);
  });
});

describe("a method the path does not have", () => {
  it("is 405 method_not_allowed with Allow, not 404; an unknown path stays 404", async () => {
    const put = await api.put("/company", { legal_name: "X" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, PATCH");
    expect(put.body).toEqual({ message: "This path does not take PUT; it takes GET, HEAD, PATCH.", code: "method_not_allowed" });
    const deleted = await api.delete("/invoices/1/payments");
    expect(deleted.status).toBe(405);
    expect(deleted.headers.get("allow")).toBe("POST");
    const options = await call(tenant.subdomain, "/api/v1/company", { method: "OPTIONS", token: tenant.admin.token });
    expect(options.status).toBe(405);
    expect(options.headers.get("allow")).toBe("GET, HEAD, PATCH");
    // Without a token too: the path's methods are the document's, no secret.
    expect((await call(tenant.subdomain, "/api/v1/products/7", { method: "PUT", body: {} })).headers.get("allow")).toBe("GET, HEAD, PATCH, DELETE");
    const unknown = await api.put("/no-such-thing", {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("route_not_found");
  });
});

import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseRefusal, errorLogFields } from "../../src/db/errors";
import { rowsOf } from "../../src/db/rows";
import { errorBody, errorStatus } from "../../src/http/errors";
import type { ApiResponse } from "../support/api";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, type SeededTenant, seedTenant, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";
import { expectErrorShape, unlimited } from "./world";

/**
 * Every value a schema accepts is one the database can store (src/lib/bounds.ts), computed totals
 * included (src/modules/sales/lines.ts), and what the database still refuses is mapped by SQLSTATE
 * (src/db/errors.ts): explicit cases at and beyond each limit, each with its status and field.
 */
let tenant: SeededTenant;
let api: ReturnType<typeof unlimited>;
let ids: Awaited<ReturnType<typeof catalogIds>>;
let contactId: number;
let productId: number;

const MAX = "999999999999.99";

async function invoiceCount(): Promise<number> {
  return asOwner(async (db) =>
    Number(rowsOf<{ n: string }>(await db.execute(sql`SELECT count(*) AS n FROM invoices WHERE tenant_id = ${tenant.tenantId}`))[0]!.n),
  );
}

function expect422(res: ApiResponse<{ code: string; errors?: Record<string, string[]> }>, field: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.code).toBe("validation_failed");
  expect(Object.keys(res.body.errors ?? {}), res.text).toContain(field);
  expectErrorShape(res as never);
}

beforeAll(async () => {
  tenant = await seedTenant();
  api = unlimited(tenant.subdomain, tenant.admin.token);
  ids = await catalogIds(tenant.api);
  contactId = (await createContact(tenant.api)).id;
  // No stock tracking: the huge quantities below are about amounts, not about stock.
  productId = (await createProduct(tenant.api, { track_inventory: false })).id;
});

const invoice = (items: unknown[], extra: Record<string, unknown> = {}) => ({
  contact_id: contactId,
  document_subtype_id: ids.b02,
  issue_date: "2026-11-20",
  items,
  ...extra,
});
const quotation = (items: unknown[]) => ({ contact_id: contactId, document_subtype_id: ids.cot, issue_date: "2026-11-20", items });

describe("amounts: each accepted line and document fits numeric(14,2)", () => {
  it("refuses a line whose quantity × unit price overflows with 422 on the line's fields, writing nothing", async () => {
    const before = await invoiceCount();
    const res = await api.post("/invoices", invoice([{ product_id: productId, quantity: "99999999.99", unit_price: "9999999999.99", tax_ids: [] }]));
    expect422(res, "items.0.quantity");
    expect(Object.keys(res.body.errors)).toEqual(["items.0.quantity", "items.0.unit_price"]);
    expect(await invoiceCount()).toBe(before);
  });

  it("counts the line's taxes: a subtotal that fits but a total that does not → 422 on the line", async () => {
    // 99,999,999.99 × 10,000 = 999,999,999,900.00 fits; + ITBIS 18% does not.
    const res = await api.post(
      "/invoices",
      invoice([
        { product_id: productId, quantity: "1", unit_price: "0.01", tax_ids: [] },
        { product_id: productId, quantity: "99999999.99", unit_price: "10000", tax_ids: [ids.itbis18] },
      ]),
    );
    expect422(res, "items.1.quantity");
    expect(res.body.errors["items.1.unit_price"]).toBeDefined();
    expect(res.body.errors["items.0.quantity"]).toBeUndefined();
  });

  it("accepts the largest line that fits, stored exactly", async () => {
    const res = await api.post("/invoices", invoice([{ product_id: productId, quantity: "99999999.99", unit_price: "10000", tax_ids: [] }]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.total_amount).toBe("999999999900.00");
  });

  it("refuses a document whose lines fit but whose sum overflows with 422 on items", async () => {
    const before = await invoiceCount();
    const line = { product_id: productId, quantity: "99999999.99", unit_price: "10000", tax_ids: [] };
    const res = await api.post("/invoices", invoice([line, line]));
    expect422(res, "items");
    expect(res.body.errors.items[0]).toContain(MAX);
    expect(await invoiceCount()).toBe(before);
  });

  it("applies the same rule to quotations and to an invoice update (the invoice unchanged)", async () => {
    const huge = { product_id: productId, quantity: "99999999.99", unit_price: "9999999999.99", tax_ids: [] };
    expect422(await api.post("/quotations", quotation([huge])), "items.0.quantity");

    const created = await api.post("/invoices", invoice([{ product_id: productId, quantity: "1", unit_price: "10", tax_ids: [] }]));
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    expect422(await api.patch(`/invoices/${id}`, { items: [huge] }), "items.0.quantity");
    const line = { ...huge, unit_price: "10000" };
    expect422(await api.patch(`/invoices/${id}`, { items: [line, line, line] }), "items");
    expect((await api.get(`/invoices/${id}`)).body.data.total_amount).toBe("10.00");
  });

  it("refuses more decimals than the column keeps, exponents and negative amounts on the field", async () => {
    for (const [field, value] of [
      ["unit_price", "999999999999.995"],
      ["unit_price", "0.00001"], // unit prices keep 4 decimals (issue 17, PrecioUnitarioItem)
      ["unit_price", "1e3"],
      ["unit_price", "-0.01"],
      ["quantity", "100000000"],
      ["discount", "100.01"],
    ] as const) {
      const res = await api.post("/invoices", invoice([{ product_id: productId, quantity: "1", unit_price: "1", [field]: value }]));
      expect422(res, `items.0.${field}`);
    }
    expect422(await api.post("/products", { name: uniqueName("P "), price: "1000000000000.00" }), "price");
    expect((await api.post("/products", { name: uniqueName("P "), price: MAX })).status).toBe(201);
    expect422(await api.post("/taxes", { name: uniqueName("T "), type: "other", rate: "100.01", dgii_code: "002" }), "rate");
    expect422(await api.post("/currencies", { code: "CAD", name: "Dólar", symbol: "C$", exchange_rate: "1000000000000" }), "exchange_rate");
  });
});

describe("stock levels: a sum beyond numeric(14,2) is refused, not a 500", () => {
  it("an adjustment that would carry a level past 999,999,999,999.99 → 422, the level unchanged", async () => {
    const product = await createProduct(tenant.api);
    const stocked = await api.post("/inventory/initial-stock", { items: [{ product_id: product.id, quantity: MAX }] });
    expect(stocked.status, stocked.text).toBe(201);
    // Each quantity fits its column; the level they add up to does not. The service does not
    // check the sum, so Postgres' numeric overflow (22003) is what refuses it, mapped to 422.
    const res = await api.post("/inventory-adjustments", { items: [{ product_id: product.id, quantity_adjustment: "0.01", reason: "found" }] });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expectErrorShape(res as never);
    const level = await asOwner(
      async (db) =>
        rowsOf<{ quantity: string }>(
          await db.execute(sql`SELECT quantity::text FROM stock_levels WHERE product_id = ${product.id} AND workspace_id = ${tenant.workspaceId}`),
        )[0]!.quantity,
    );
    expect(level).toBe(MAX);
  });
});

describe("dates: real calendar days from 1900-01-01 to 2199-12-31, in bodies and filters", () => {
  it("refuses body dates beyond the limits (and year 0, which Postgres cannot store) with 422 on the field", async () => {
    const line = { product_id: productId, quantity: "1", unit_price: "1", tax_ids: [] };
    for (const date of ["1899-12-31", "2200-01-01", "0000-01-01", "0001-01-01", "9999-12-31", "2026-02-30", "2026-13-01", "20261120"]) {
      expect422(await api.post("/invoices", invoice([line], { issue_date: date })), "issue_date");
    }
    expect422(await api.post("/invoices", invoice([line], { due_date: "2200-01-01" })), "due_date");
    expect422(
      await api.post("/document-subtypes", { name: uniqueName("S "), type: "invoice", prefix: "B16", end_number: 10, valid_until: "0000-01-01" }),
      "valid_until",
    );
  });

  it("accepts the limits themselves", async () => {
    const line = { product_id: productId, quantity: "1", unit_price: "1", tax_ids: [] };
    const first = await api.post("/invoices", invoice([line], { issue_date: "1900-01-01", due_date: "2199-12-31" }));
    expect(first.status, first.text).toBe(201);
    expect(first.body.data.issue_date).toBe("1900-01-01");
    expect(first.body.data.due_date).toBe("2199-12-31");
    // A sequence's expiry is checked against the issue date: the demo B02 (to the end of next year) is extended past 2028.
    expect((await api.patch(`/document-subtypes/${ids.b02}`, { valid_until: "2199-12-31" })).status).toBe(200);
    const leap = await api.post("/invoices", invoice([line], { issue_date: "2028-02-29" }));
    expect(leap.status, leap.text).toBe(201);
    const payment = await api.post(`/invoices/${first.body.data.id}/payments`, { amount: "0.50", payment_date: "2200-01-01", payment_method: "cash" });
    expect422(payment, "payment_date");
  });

  it("filters: 422 beyond the limits (year 0 was a 500), 200 at them", async () => {
    for (const date of ["1899-12-31", "2200-01-01", "0000-01-01", "2026-02-30"]) {
      expect422(await api.get(`/invoices?filter[issue_date]=${date}`), "filter[issue_date]");
    }
    const atLimit = await api.get("/invoices?filter[issue_date]=1900-01-01");
    expect(atLimit.status, atLimit.text).toBe(200);
    expect(atLimit.body.data.map((i: { issue_date: string }) => i.issue_date)).toEqual(["1900-01-01"]);
    expect((await api.get("/invoices?filter[issue_date]=2199-12-31")).status).toBe(200);

    expect422(await api.get("/inventory/movements?date_from=0000-01-01"), "date_from");
    expect422(await api.get("/inventory/movements?date_to=2200-01-01"), "date_to");
    expect((await api.get("/inventory/movements?date_from=1900-01-01&date_to=2199-12-31")).status).toBe(200);
  });
});

describe("ids: 1..2147483647 (int4) everywhere, one definition", () => {
  it("answers a path id beyond int4, zero or in a non-canonical form with 422 on the parameter; the largest id is a 404", async () => {
    for (const id of ["2147483648", "0", "-1", "01", "1e3", "99999999999999999999"]) {
      expect422(await api.get(`/invoices/${id}`), "id");
    }
    expect((await api.get("/invoices/2147483647")).status).toBe(404);
    expect422(await api.delete(`/invoices/1/payments/2147483648`), "payment_id");
    expect422(await api.patch("/workspace/members/2147483648", { role: "member" }), "user_id");
  });

  it("answers body and filter ids beyond int4 with 422 on the field; another tenant's id is 'no such' on the field", async () => {
    const line = { product_id: productId, quantity: "1", unit_price: "1" };
    expect422(await api.post("/invoices", invoice([line], { contact_id: 2_147_483_648 })), "contact_id");
    expect422(await api.post("/invoices", invoice([{ ...line, product_id: 0 }])), "items.0.product_id");
    expect422(await api.post("/invoices", invoice([{ ...line, tax_ids: [-1] }])), "items.0.tax_ids.0");
    expect422(await api.get("/invoices?filter[contact_id]=2147483648"), "filter[contact_id]");
    expect422(await api.get("/quotations?filter[contact_id]=2147483648"), "filter[contact_id]");
    expect422(await api.get("/inventory/movements?product_id=2147483648"), "product_id");

    const other = await seedTenant();
    const foreignContact = (await createContact(other.api)).id;
    expect422(await api.post("/invoices", invoice([line], { contact_id: foreignContact })), "contact_id");
    expect422(await api.post("/invoices", invoice([line], { contact_id: 2_147_483_647 })), "contact_id");
  });
});

describe("database errors are mapped by SQLSTATE, never a 500", () => {
  it("a referenced row deleted between the check and the insert → 422 naming the field, without its value", async () => {
    // A trigger stands in for a concurrent delete: it removes the currency the service has just
    // checked, inside the insert, so Postgres itself raises the foreign key violation (23503).
    await asOwner(async (db) => {
      await db.execute(
        sql.raw(`CREATE OR REPLACE FUNCTION test_bounds_delete_currency() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN DELETE FROM currencies WHERE id = NEW.currency_id; RETURN NEW; END $$`),
      );
      await db.execute(
        sql.raw(`CREATE OR REPLACE TRIGGER test_bounds_delete_currency BEFORE INSERT ON bank_accounts
        FOR EACH ROW WHEN (NEW.name LIKE 'zz-fk-deleted-%') EXECUTE FUNCTION test_bounds_delete_currency()`),
      );
    });
    const currency = await api.post("/currencies", { code: "CHF", name: "Franco", symbol: "Fr", exchange_rate: "70" });
    expect(currency.status, currency.text).toBe(201);
    const res = await api.post("/bank-accounts", { name: uniqueName("zz-fk-deleted-"), currency_id: currency.body.data.id });
    expect422(res, "currency_id");
    expect(res.text).not.toContain(String(currency.body.data.id));
    // Rolled back: the currency is still there, and no account was written.
    expect((await api.get(`/currencies/${currency.body.data.id}`)).status).toBe(200);
  });

  it("maps real Postgres errors: 23503 on a column, 23505, 22003, 22008; class 40 → 503 with Retry-After", async () => {
    const failure = async (statement: ReturnType<typeof sql>) =>
      asOwner((db) => db.execute(statement)).then(
        () => {
          throw new Error("the statement succeeded");
        },
        (error: unknown) => error,
      );

    const fk = await failure(sql`INSERT INTO contacts (tenant_id, workspace_id, name) VALUES (${tenant.tenantId}, ${2147483000}, ${"zz-secret-name"})`);
    const fkAnswer = databaseRefusal(fk)!;
    expect(errorStatus[fkAnswer.code]).toBe(422);
    expect(fkAnswer.errors).toEqual({ workspace_id: ["No such record (it may have been deleted)."] });
    expect(JSON.stringify(errorBody(fkAnswer))).not.toContain("2147483000");

    const dup = await failure(
      sql`INSERT INTO currencies (tenant_id, code, name, symbol) VALUES (${tenant.tenantId}, 'XTS', 'zz-dup', 'x'), (${tenant.tenantId}, 'XTS', 'zz-dup', 'x')`,
    );
    const dupAnswer = databaseRefusal(dup)!;
    expect(errorBody(dupAnswer)).toEqual({ message: "Another record with the same code already exists.", code: "conflict" });

    const overflow = await failure(sql`SELECT ${"1000000000000.00"}::numeric(14,2)`);
    expect(errorBody(databaseRefusal(overflow)!)).toEqual({
      message: "The given data was invalid.",
      code: "validation_failed",
      errors: { body: ["A number is out of the range the database can store."] },
    });
    const year0 = await failure(sql`SELECT ${"0000-01-01"}::date`);
    expect(errorStatus[databaseRefusal(year0)!.code]).toBe(422);
    // The log fields of a database error: class, SQLSTATE, constraint; the parameters cut.
    const logged = JSON.stringify(errorLogFields(fk));
    expect(logged).toContain('"sqlState":"23503"');
    expect(logged).toContain("contacts_workspace_id_workspaces_id_fk");
    expect(logged).not.toContain("zz-secret-name");
    expect(logged).not.toContain("2147483000");

    const serialization = databaseRefusal(
      Object.assign(new Error("Failed query"), { cause: Object.assign(new Error("could not serialize access"), { code: "40001" }) }),
    )!;
    expect(errorStatus[serialization.code]).toBe(503);
    expect(serialization.retryAfterSeconds).toBe(1);
    expect(databaseRefusal(Object.assign(new Error("x"), { code: "42P01" }))).toBeNull();
    expect(databaseRefusal(new TypeError("not a database error"))).toBeNull();
  });
});

import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { createApp, OPENAPI_DOCUMENT } from "../../src/app";
import { salesSetup } from "../support/sales";

/**
 * Rules across fields, stated in the OpenAPI document where JSON Schema can (issue 44: if/then/else,
 * oneOf, not, uniqueItems, contains) and enforced by the API: each body the API refuses, with its
 * error body, is refused by the operation's declared schema too, and each body it takes is valid
 * there. A client generated from the document finds the rule before it sends.
 */
const document = createApp().getOpenAPI31Document(OPENAPI_DOCUMENT) as unknown as {
  paths: Record<string, Record<string, { requestBody: { content: { "application/json": { schema: Schema } } } }>>;
  components: Record<string, unknown>;
};

/** Whether the document's schema of the operation's JSON body admits the body. */
function documentAdmits(method: string, template: string, body: unknown): boolean {
  const schema = document.paths[template]?.[method]?.requestBody.content["application/json"].schema;
  if (!schema) throw new Error(`no JSON body for ${method} ${template}`);
  return new Validator({ ...schema, components: document.components } as Schema, "2020-12", false).validate(body).valid;
}

type Case = { body: Record<string, unknown>; errors?: Record<string, string[]>; fields?: string[] };

async function holdsTo(
  send: (body: Record<string, unknown>) => Promise<{ status: number; body: { code?: string; errors?: unknown }; text: string }>,
  method: string,
  template: string,
  cases: Case[],
) {
  for (const { body, errors, fields } of cases) {
    const res = await send(body);
    const label = `${method.toUpperCase()} ${template} ${JSON.stringify(body)}`;
    if (errors || fields) {
      expect(res.status, `${label}: ${res.text}`).toBe(422);
      expect(res.body, label).toMatchObject({ code: "validation_failed", errors: errors ?? {} });
      if (fields) expect(Object.keys(res.body.errors as object), label).toEqual(fields);
      expect(documentAdmits(method, template, body), `${label}: the document admits what the API refuses`).toBe(false);
    } else {
      expect(res.status, `${label}: ${res.text}`).not.toBe(422);
      expect(documentAdmits(method, template, body), `${label}: the document refuses what the API takes`).toBe(true);
    }
  }
}

describe("rules across fields: the document states what the API enforces (issue 44)", () => {
  it("a credit note takes items or full: true, never both, and annulling (code 1) credits all; a debit note takes items, no full, no restock, no code 1", async () => {
    const { tenant } = await salesSetup();
    // The rules are checked before the invoice is looked up: a body they admit reaches the 404.
    const note = (kind: string) => (body: Record<string, unknown>) => tenant.api.post(`/invoices/2147483000/${kind}-notes`, body);
    const base = { modification_code: 3, reason: "Devolución" };
    const items = [{ invoice_item_id: 1, quantity: "1" }];
    await holdsTo(note("credit"), "post", "/api/v1/invoices/{id}/credit-notes", [
      { body: { ...base, items } },
      { body: { ...base, full: true } },
      { body: { ...base, items, full: false } },
      { body: { ...base, modification_code: 1, full: true } },
      { body: base, errors: { items: ["Give the note's items, or full: true to credit everything left."] } },
      { body: { ...base, full: false }, errors: { items: ["Give the note's items, or full: true to credit everything left."] } },
      { body: { ...base, items, full: true }, errors: { items: ["Give either items or full: true, not both."] } },
      {
        body: { ...base, modification_code: 1, items },
        errors: { modification_code: ["A credit note that annuls the invoice (code 1) credits all of it: send full: true."] },
      },
    ]);
    await holdsTo(note("debit"), "post", "/api/v1/invoices/{id}/debit-notes", [
      { body: { ...base, items } },
      { body: { ...base, items, full: false } },
      { body: base, errors: { items: ["Give the note's items, or full: true to credit everything left."] } },
      { body: { ...base, full: true }, errors: { full: ["A debit note adds amounts: give its items."] } },
      { body: { ...base, items, restock: false }, errors: { restock: ["A debit note moves no stock."] } },
      {
        body: { ...base, modification_code: 1, items },
        errors: { modification_code: ["A debit note cannot annul the invoice (code 1): use a credit note."] },
      },
    ]);
  });

  it("a rejected approval needs its reason, and only a rejection takes one", async () => {
    const { tenant } = await salesSetup();
    const approve = (body: Record<string, unknown>) => tenant.api.post("/received-ecf/2147483000/approval", body);
    await holdsTo(approve, "post", "/api/v1/received-ecf/{id}/approval", [
      { body: { approved: true } },
      { body: { approved: false, reason: "Mercancía no recibida" } },
      { body: { approved: false }, errors: { reason: ["is required when rejecting"] } },
      { body: { approved: false, reason: null }, errors: { reason: ["is required when rejecting"] } },
      // A reason with an approval: DGII's ACECF takes none (it was a 500 on a company that receives e-CF).
      { body: { approved: true, reason: null } },
      { body: { approved: true, reason: "Conforme" }, errors: { reason: ["goes with a rejection only: omit it, or send null"] } },
    ]);
  });

  it("a contact's identification and its type go together", async () => {
    const { tenant } = await salesSetup();
    const create = (body: Record<string, unknown>) => tenant.api.post("/contacts", body);
    await holdsTo(create, "post", "/api/v1/contacts", [
      { body: { name: "Sin identificación" } },
      { body: { name: "Nulos", identification_type: null, identification: null } },
      { body: { name: "En blanco", identification: "  " } },
      { body: { name: "Con RNC", identification_type: "rnc", identification: "1-31-24679-6" } },
      {
        body: { name: "Tipo solo", identification_type: "rnc" },
        errors: { identification: ["The identification is required when identification_type is rnc."] },
      },
      {
        body: { name: "Tipo y blanco", identification_type: "rnc", identification: " " },
        errors: { identification: ["The identification is required when identification_type is rnc."] },
      },
      {
        body: { name: "Número solo", identification: "131246796" },
        errors: { identification_type: ["The identification_type (rnc, cedula or passport) is required with an identification."] },
      },
    ]);
  });

  it("a webhook endpoint's events: each once, and `*` alone", async () => {
    const { tenant } = await salesSetup();
    // Validated before the endpoint is looked up: a body the rules admit reaches the 404.
    const update = (body: Record<string, unknown>) => tenant.api.patch("/webhook-endpoints/2147483000", body);
    await holdsTo(update, "patch", "/api/v1/webhook-endpoints/{id}", [
      { body: { events: ["*"] } },
      { body: { events: ["invoice.created", "ecf.*"] } },
      { body: { events: ["invoice.created", "invoice.created"] }, errors: { events: ["Name each event type once."] } },
      { body: { events: ["*", "invoice.created"] }, errors: { events: ['Use ["*"] alone for every event, or list the types.'] } },
      { body: { events: ["*", "*"] }, errors: { events: ['Use ["*"] alone for every event, or list the types.', "Name each event type once."] } },
    ]);
  });

  it("the default currency's rate is 1", async () => {
    const { tenant } = await salesSetup();
    const create = (body: Record<string, unknown>) => tenant.api.post("/currencies", body);
    await holdsTo(create, "post", "/api/v1/currencies", [
      { body: { code: "EUR", name: "Euro", symbol: "€", exchange_rate: "64.10" } },
      { body: { code: "CAD", name: "Dólar canadiense", symbol: "C$", is_default: true, exchange_rate: " 001.000000 " } },
      {
        body: { code: "GBP", name: "Libra", symbol: "£", is_default: true, exchange_rate: "74.5" },
        errors: { exchange_rate: ["The default currency has an exchange rate of 1."] },
      },
      {
        body: { code: "CHF", name: "Franco", symbol: "Fr", is_default: true, exchange_rate: 1.5 },
        errors: { exchange_rate: ["The default currency has an exchange rate of 1."] },
      },
    ]);
  });

  it("what JSON Schema cannot compare is in the operation's description", () => {
    const description = (method: string, path: string) =>
      (document.paths[path]?.[method] as unknown as { description?: string } | undefined)?.description ?? "";
    expect(description("post", "/api/v1/ecf/annulments")).toContain("`to` ≥ `from`");
    expect(description("post", "/api/v1/document-subtypes")).toContain("end_number ≥ start_number");
    expect(description("patch", "/api/v1/document-subtypes/{id}")).toContain("end_number ≥ start_number");
    expect(description("patch", "/api/v1/contacts/{id}")).toContain("identification_type and identification go together");
    expect(description("patch", "/api/v1/currencies/{id}")).toContain("The default currency's exchange_rate is 1");
  });

  it("formats the API checks are the document's patterns: URLs, e-mails, DGII's territorial codes, currency codes, NCF prefixes and their digits", async () => {
    const { tenant } = await salesSetup();
    // The schema admits the URL before the endpoint is looked up (404); the service refuses one before it is created.
    const endpoint = (body: Record<string, unknown>) => tenant.api.patch("/webhook-endpoints/2147483000", body);
    await holdsTo(endpoint, "patch", "/api/v1/webhook-endpoints/{id}", [{ body: { url: " https://example.com/hooks/sucursal?x=1 " } }]);
    const newEndpoint = (body: Record<string, unknown>) => tenant.api.post("/webhook-endpoints", { events: ["*"], ...body });
    await holdsTo(newEndpoint, "post", "/api/v1/webhook-endpoints", [
      { body: { events: ["*"], url: "http://example.com/hooks" }, fields: ["url"] },
      { body: { events: ["*"], url: "https://user:secret@example.com/hooks" }, fields: ["url"] },
      { body: { events: ["*"], url: "example.com/hooks" }, fields: ["url"] },
    ]);
    const settings = (body: Record<string, unknown>) => tenant.api.put("/ecf/settings", body);
    await holdsTo(settings, "put", "/api/v1/ecf/settings", [
      { body: { receiver_url: null } },
      { body: { receiver_url: "http://facturas.example.com" }, fields: ["receiver_url"] },
      { body: { receiver_url: "ftp://facturas.example.com" }, fields: ["receiver_url"] },
    ]);
    const contact = (body: Record<string, unknown>) => tenant.api.post("/contacts", body);
    await holdsTo(contact, "post", "/api/v1/contacts", [
      { body: { name: "Con correo", email: "persona@example.com" } },
      { body: { name: "Correo sin dominio", email: "0@com" }, fields: ["email"] },
      { body: { name: "Correo con dos puntos", email: "a..b@example.com" }, fields: ["email"] },
      // The API trims an e-mail: the document admits the spaces around it (no `format: email`), and nothing else.
      { body: { name: "Correo con espacios", email: " persona@example.com " } },
      { body: { name: "Correo con espacios raros", email: "\u00a0persona@example.com\n" } },
      { body: { name: "Correo sin dominio con espacios", email: " 0@com " }, fields: ["email"] },
      { body: { name: "Correo con espacio dentro", email: "per sona@example.com" }, fields: ["email"] },
      // A trimmed text: its maxLength counts the spaces sent around it, and a blank one is refused by its pattern.
      { body: { name: ` ${"x".repeat(253)} ` } },
      { body: { name: `${"x".repeat(255)} ` }, fields: ["name"] },
      { body: { name: "   " }, fields: ["name"] },
    ]);
    const company = (body: Record<string, unknown>) => tenant.api.patch("/company", body);
    await holdsTo(company, "patch", "/api/v1/company", [
      { body: { province_code: "320000", municipality_code: "320101" } },
      { body: { province_code: "330000" }, fields: ["province_code"] },
      { body: { email: " empresa@example.com " } },
      { body: { email: " empresa@com " }, fields: ["email"] },
      { body: { province_code: "010000", municipality_code: "019901" }, fields: ["municipality_code"] },
    ]);
    // ISO 4217's current codes, our own table (src/lib/currencies.ts), not the runtime's ICU: workerd's
    // lacked SLE, XCG and ZWG and had HRK, withdrawn in 2023.
    const currency = (body: Record<string, unknown>) => tenant.api.post("/currencies", body);
    const money = { name: "Moneda", symbol: "¤" };
    await holdsTo(currency, "post", "/api/v1/currencies", [
      { body: { ...money, code: "SLE" } },
      { body: { ...money, code: " xcg " } },
      { body: { ...money, code: "Zwg" } },
      { body: { ...money, code: "BOV" } },
      { body: { ...money, code: "ABC" }, errors: { code: ["Not one of ISO 4217's current currency codes."] } },
      { body: { ...money, code: "XXA" }, errors: { code: ["Not one of ISO 4217's current currency codes."] } },
      { body: { ...money, code: "hrk" }, errors: { code: ["Not one of ISO 4217's current currency codes."] } },
      { body: { ...money, code: "XTS" }, errors: { code: ["Not one of ISO 4217's current currency codes."] } },
    ]);
    const subtype = (body: Record<string, unknown>) => tenant.api.post("/document-subtypes", body);
    const range = { name: "Rango", start_number: 1, valid_until: "2099-12-31" };
    await holdsTo(subtype, "post", "/api/v1/document-subtypes", [
      { body: { ...range, type: "credit_note", prefix: " e34 ", end_number: 9_999_999_999 } },
      { body: { ...range, type: "quotation", prefix: "COT-2026", end_number: 99_999_999 } },
      { body: { ...range, type: "credit_note", prefix: "B01", end_number: 10 }, fields: ["prefix"] },
      { body: { ...range, type: "quotation", prefix: "b01", end_number: 10 }, fields: ["prefix"] },
      { body: { ...range, type: "invoice", prefix: "B11", end_number: 100_000_000 }, fields: ["end_number"] },
    ]);
  });
});

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { errorStatus } from "../../src/http/errors";
import { EMAIL_PATTERN } from "../../src/http/schemas";
import { DATE_PATTERN, DATE_TIME_PATTERN, isStorableDate } from "../../src/lib/bounds";
import { CURRENCY_CODES } from "../../src/lib/currencies";
import { WEBHOOK_EVENT_TYPES } from "../../src/modules/events/catalog";

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document describing the v1 API", async () => {
    const app = createApp();
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths ?? {})).toContain("/api/v1/auth/tokens");
  });

  it("describes every webhook event in its webhooks section: the signed headers and the body with the resource", () => {
    const document = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const webhooks = document.webhooks ?? {};
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = (webhooks[type] as { post: { parameters: { name: string; in: string }[]; requestBody: { content: Record<string, { schema: unknown }> } } })
        .post;
      expect(post.parameters.filter((p) => p.in === "header").map((p) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      const body = post.requestBody.content["application/json"]!.schema as { properties: Record<string, unknown> };
      expect(Object.keys(body.properties)).toEqual(["id", "type", "created_at", "data"]);
      expect(body.properties.type).toEqual({ type: "string", enum: [type] });
    }
    const invoiceData = (
      webhooks["invoice.created"] as { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } }
    ).post.requestBody.content["application/json"]!.schema.properties.data;
    expect(invoiceData).toEqual({ $ref: "#/components/schemas/Invoice" });
  });

  it("lists every error code the source answers with, each with its status", () => {
    const document = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const schemas = document.components?.schemas ?? {};
    const code = (schemas.Error as { properties: { code: { enum: string[]; description: string } } }).properties.code;
    expect(code.enum).toEqual(Object.keys(errorStatus));
    expect(code.description).toContain("ecf_already_sent (409)");
    // Codes written as literals in an error body `{ message, code }` (outside AppError, whose type holds them to the catalog).
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
    const literals = new Set<string>();
    for (const file of files(path.resolve(__dirname, "../../src")).filter((f) => f.endsWith(".ts"))) {
      for (const match of readFileSync(file, "utf8").matchAll(/\bmessage:[^{}]*?\bcode: "([a-z_]+)"/g)) literals.add(match[1]!);
    }
    expect(literals.size).toBeGreaterThan(2);
    expect([...literals].filter((literal) => !(literal in errorStatus))).toEqual([]);
  });

  describe("says what zod checks (issue 35)", () => {
    const document = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } }) as unknown as Doc;
    const schemas = document.components.schemas;
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map(([method, operation]) => ({ path, method, operation: operation as Operation })),
    );
    const operation = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!.operation;
    const parameter = (method: string, path: string, name: string) => operation(method, path).parameters!.find((p) => p.name === name)!.schema;
    const jsonBodyOf = (method: string, path: string) => {
      const schema = operation(method, path).requestBody!.content["application/json"]!.schema as { $ref?: string };
      return (schema.$ref ? schemas[schema.$ref.split("/").pop()!] : schema) as { properties: Record<string, Record<string, unknown>> };
    };

    it("no source overrides a schema's type with less than zod checks", () => {
      const files = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
      const overrides = files(path.resolve(__dirname, "../../src"))
        .filter((file) => file.endsWith(".ts"))
        // A file upload (z.custom<File>) has no JSON type of its own: `string`, `format: binary` is how OpenAPI says it.
        .flatMap((file) =>
          [...readFileSync(file, "utf8").matchAll(/\.openapi\(\{[^}]*\btype: "string"(?![^}]*(?:pattern|format: "binary"))/g)].map(() => path.basename(file)),
        );
      expect(overrides).toEqual([]);
    });

    it("declares every path id as an integer 1..2147483647; the other path parameters with their pattern, format or length", () => {
      const params = operations.flatMap((o) => (o.operation.parameters ?? []).filter((p) => p.in === "path").map((p) => ({ ...p, route: o.path })));
      const integers = params.filter((p) => p.schema.type === "integer");
      // Ids (`id`, `…_id`, and the inbound webhooks' `bot` and `account`) are int4; another number (a step of a list) has its own bounds.
      const ids = integers.filter((p) => /(^|_)id$|^bot$|^account$/.test(p.name));
      expect(ids.length).toBeGreaterThan(100);
      for (const id of ids) expect(id.schema, `${id.route} ${id.name}`).toMatchObject({ minimum: 1, maximum: 2_147_483_647 });
      for (const other of integers)
        expect(other.schema, `${other.route} ${other.name}`).toMatchObject({ minimum: expect.any(Number), maximum: expect.any(Number) });
      const others = params.filter((p) => p.schema.type !== "integer");
      expect([...new Set(others.map((p) => p.name))].sort()).toEqual(["encf", "id", "identification", "period", "token", "token_id"]);
      for (const other of others) expect(other.schema.pattern ?? other.schema.format ?? other.schema.maxLength, `${other.route} ${other.name}`).toBeDefined();
    });

    it("nullability and lengths of text fields, the null a PATCH accepts", () => {
      expect(schemas.UpdateWorkspaceRequest!.properties!.phone).toEqual({ type: ["string", "null"], maxLength: 30, pattern: "^[^\\u0000]*$" });
      expect(schemas.UpdateWorkspaceRequest!.properties!.address).toMatchObject({ type: ["string", "null"], maxLength: 250 });
      // An e-mail states its rule with a pattern that admits the spaces the API trims; no `format: email`, which refuses them.
      expect(schemas.UpdateCompanyRequest!.properties!.email).toEqual({ type: ["string", "null"], maxLength: 254, pattern: EMAIL_PATTERN });
    });

    it("decimals: a number within the bounds or a string with their pattern; nullable where null is taken", () => {
      const cost = jsonBodyOf("post", "/api/v1/products").properties.cost!;
      const anyOf = cost.anyOf as Record<string, unknown>[];
      expect(anyOf[0]).toEqual({ type: "number", minimum: 0, maximum: 999999999999.99, multipleOf: 0.01 });
      expect(anyOf[1]).toMatchObject({ type: "string" });
      const pattern = new RegExp(anyOf[1]!.pattern as string);
      for (const ok of ["10", "10.5", "10.50", "0", "0.00", " 12.00 ", "999999999999.99", "1.5000", "007"]) expect(ok, ok).toMatch(pattern);
      for (const bad of ["", "-0", "-5", "1e3", "10.", ".5", "10.555", "1,000", "0x10", "1000000000000", "\u0663"]) expect(bad, bad).not.toMatch(pattern);
      expect(anyOf).toContainEqual({ type: "null" });
      // Greater than 0 (a payment), in both branches: no "0" string, no 0 number.
      const amount = jsonBodyOf("post", "/api/v1/invoices/{id}/payments").properties.amount!.anyOf as Record<string, unknown>[];
      expect(amount[0]).toEqual({ type: "number", exclusiveMinimum: 0, maximum: 999999999999.99, multipleOf: 0.01 });
      for (const bad of ["0", "0.00", "000", "-5"]) expect(bad, bad).not.toMatch(new RegExp(amount[1]!.pattern as string));
      for (const ok of ["0.01", "0.10", "1"]) expect(ok, ok).toMatch(new RegExp(amount[1]!.pattern as string));
      // An exchange rate: up to 6 decimals; as a number no larger than a double carries with 6 decimals.
      const rate = jsonBodyOf("post", "/api/v1/currencies").properties.exchange_rate!.anyOf as Record<string, unknown>[];
      expect(rate[0]).toEqual({ type: "number", exclusiveMinimum: 0, maximum: 999999999.999999, multipleOf: 0.000001 });
      expect("999999999999.999999").toMatch(new RegExp(rate[1]!.pattern as string));
      expect("1000000000000").not.toMatch(new RegExp(rate[1]!.pattern as string));
      // A rate or discount: 0 to 100.
      const discount = new RegExp((jsonBodyOf("post", "/api/v1/taxes").properties.rate!.anyOf as Record<string, string>[])[1]!.pattern!);
      for (const ok of ["0", "100", "100.00", "99.99", "0100"]) expect(ok, ok).toMatch(discount);
      for (const bad of ["100.01", "101", "-1", "1000"]) expect(bad, bad).not.toMatch(discount);
      const adjustment = (
        jsonBodyOf("post", "/api/v1/inventory-adjustments") as unknown as Doc["components"]["schemas"][string] & {
          properties: { items: { items: { properties: Record<string, { anyOf: Record<string, unknown>[] }> } } };
        }
      ).properties.items.items.properties.quantity_adjustment!.anyOf;
      expect(adjustment[0]).toMatchObject({ minimum: -999999999999.99, maximum: 999999999999.99, not: { const: 0 } });
      for (const ok of ["-5", "5", "-0.01"]) expect(ok, ok).toMatch(new RegExp(adjustment[1]!.pattern as string));
      for (const bad of ["0", "-0", "-0.00", "--5"]) expect(bad, bad).not.toMatch(new RegExp(adjustment[1]!.pattern as string));
    });

    it("id filters as integer text with the exact int4 pattern, and the other constrained parameters", () => {
      const filter = parameter("get", "/api/v1/invoices", "filter[contact_id]") as { type: string; pattern: string };
      expect(filter.type).toBe("string");
      const id = new RegExp(filter.pattern);
      for (const ok of ["1", "9", "10", "2147483647", "2147483639", "1999999999"]) expect(ok, ok).toMatch(id);
      for (const bad of ["", "0", "01", "-1", "1.0", " 1", "2147483648", "2147483650", "3000000000", "99999999999"]) expect(bad, bad).not.toMatch(id);

      const since = new RegExp((parameter("get", "/api/v1/contacts", "filter[updated_since]") as { pattern: string }).pattern);
      for (const ok of ["2026-01-31T12:00Z", "2026-01-31T12:00:00.123456-04:00", "1900-01-01T00:00:00Z", "2199-12-31T23:59:59+14:00"])
        expect(ok).toMatch(since);
      for (const bad of ["0000-00-00T00:00Z", "0000-04-04T00:29Z", "2200-01-01T00:00Z", "2026-13-01T00:00Z", "2026-01-31T12:00:00"])
        expect(bad).not.toMatch(since);

      expect(parameter("post", "/api/v1/invoices", "idempotency-key")).toMatchObject({ type: "string", minLength: 1, maxLength: 255 });
      const search = parameter("get", "/api/v1/rnc", "search") as { pattern: string; maxLength: number };
      expect(search.maxLength).toBe(100);
      for (const ok of ["abc", "a b", "  a  bc "]) expect(ok).toMatch(new RegExp(search.pattern));
      for (const bad of ["ab", "  ab  ", "a ", ""]) expect(bad).not.toMatch(new RegExp(search.pattern));
      const identification = new RegExp((parameter("get", "/api/v1/rnc/{identification}", "identification") as { pattern: string }).pattern);
      for (const ok of ["131234567", "131-23456-7", "00112345678", "001-1234567-8"]) expect(ok).toMatch(identification);
      for (const bad of ["13123456", "1312345678", "-131234567", "131234567-", "001123456789"]) expect(bad).not.toMatch(identification);

      const code = new RegExp((jsonBodyOf("post", "/api/v1/currencies").properties.code as { pattern: string }).pattern);
      for (const ok of ["USD", "eur", " DOP "]) expect(ok).toMatch(code);
      for (const bad of ["US", "USDD", "U5D", "ABC", "XXA", "HRK", "XXX"]) expect(bad).not.toMatch(code);
      // The pattern lists exactly ISO 4217's current codes of src/lib/currencies.ts, in any case (issue 44).
      const listed = code.source.replace(/\[([A-Z])[a-z]\]/g, "$1").match(/[A-Z]{3}/g);
      expect(listed).toEqual([...CURRENCY_CODES]);
      expect(CURRENCY_CODES.length).toBe(176);
      const note = jsonBodyOf("post", "/api/v1/invoices/{id}/credit-notes").properties.modification_code;
      expect(note).toMatchObject({ type: "integer", minimum: 1, maximum: 4 });
    });

    it("the date patterns accept exactly the days the API stores (isStorableDate), leap years included", () => {
      let checked = 0;
      for (let year = 1895; year <= 2205; year++) {
        for (let month = 0; month <= 13; month++) {
          for (let day = 0; day <= 32; day++) {
            const text = `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
            expect(DATE_PATTERN.test(text), text).toBe(isStorableDate(text));
            expect(DATE_TIME_PATTERN.test(`${text}T23:59:59.5-04:00`), text).toBe(isStorableDate(text));
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(140_000);
    });

    it("dates: a real day from 1900 to 2199", () => {
      const date = jsonBodyOf("post", "/api/v1/invoices").properties.issue_date as { format: string; pattern: string };
      expect(date.format).toBe("date");
      for (const ok of ["1900-01-01", "2199-12-31", "2026-02-28"]) expect(ok).toMatch(new RegExp(date.pattern));
      for (const bad of ["1899-12-31", "2200-01-01", "2026-00-10", "2026-01-32", "26-01-01"]) expect(bad).not.toMatch(new RegExp(date.pattern));
    });

    it("the receiver's certificate validation takes a multipart `xml` file", () => {
      const body = operation("post", "/fe/autenticacion/api/validacioncertificado").requestBody!;
      expect(body.content["multipart/form-data"]!.schema).toMatchObject({
        type: "object",
        properties: { xml: { type: "string", format: "binary" } },
        required: ["xml"],
      });
    });

    it("every operation declares the pipeline's errors; 400 and 415 where a JSON body is read; route-specific 409s", () => {
      for (const { path: route, method, operation: op } of operations) {
        const statuses = Object.keys(op.responses);
        expect(statuses, `${method} ${route}`).toEqual(expect.arrayContaining(["404", "413", "429", "500", "503"]));
        if (op.requestBody?.content["application/json"]) expect(statuses, `${method} ${route}`).toEqual(expect.arrayContaining(["400", "415"]));
        if (["post", "put", "patch"].includes(method) && !route.startsWith("/fe/")) expect(statuses, `${method} ${route}`).toContain("415");
      }
      expect(Object.keys(operation("post", "/api/v1/document-subtypes").responses)).toContain("409");
      expect(operation("patch", "/api/v1/document-subtypes/{id}").responses["409"]!.description).toContain("ncf_range_in_use");
    });
  });
});

interface Operation {
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string }>;
}
interface Doc {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
}

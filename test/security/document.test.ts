import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createApp, OPENAPI_DOCUMENT } from "../../src/app";
import { seedTenant } from "../support/seed";
import { appCall, NO_LIMIT, record, unlimited } from "./world";

/**
 * Property test driven by the OpenAPI document (issue 35): for each list operation, query values
 * generated from the parameters' declared schemas (fast-check; patterns through stringMatching) must
 * not be refused with 422, and a value outside a parameter's schema must be a 4xx; for each
 * operation with a JSON body, a body with one property outside its declared schema must be a 4xx.
 * Every answer also goes through the conformance check (status declared, body valid). Seeded.
 */
const SEED = 20261125;
const VALID_RUNS = 3; // valid query strings per list operation

interface ParameterSchema {
  type?: string | string[];
  enum?: string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: ParameterSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { $ref?: string; properties?: Record<string, ParameterSchema & { anyOf?: ParameterSchema[] }> } }> };
}

const document = createApp().getOpenAPI31Document(OPENAPI_DOCUMENT) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, ParameterSchema & { anyOf?: ParameterSchema[] }> }> };
};

/** A value the schema allows, as query text. */
function validValue(schema: ParameterSchema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === "integer") return fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 1_000_000 }).map(String);
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern, "u"))
      .filter((text) => text.length >= (schema.minLength ?? 0) && text.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY));
  }
  return fc.string({ minLength: Math.max(schema.minLength ?? 0, 1), maxLength: Math.min(schema.maxLength ?? 20, 20) }).filter((text) => text.trim() !== "");
}

/** A value outside the schema, as query text; null when every text is allowed. */
function invalidValue(schema: ParameterSchema): string | null {
  if (schema.enum) return "not-a-declared-value";
  if (schema.type === "integer") return schema.maximum !== undefined ? String(schema.maximum + 1) : "x";
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern, "u");
    return ["\u0001", "!", "x", "0", "not-matching", "2026-02-30"].find((text) => !pattern.test(text)) ?? null;
  }
  if (schema.maxLength !== undefined) return "x".repeat(schema.maxLength + 1);
  return null;
}

/**
 * Business rules a schema cannot say, each named in its parameter's description (checked below):
 * a 422 on one of these fields for a declared value is the rule, not a mismatch.
 */
const BUSINESS_RULES: Record<string, { field: string; described: string }[]> = {
  "GET /api/v1/reports/606": [{ field: "period", described: "a past month or the current one" }],
  "GET /api/v1/reports/607": [{ field: "period", described: "a past month or the current one" }],
  "GET /api/v1/reports/608": [{ field: "period", described: "a past month or the current one" }],
  "GET /api/v1/reports/it1": [{ field: "period", described: "a past month or the current one" }],
  "GET /api/v1/reports/ir17": [{ field: "period", described: "a past month or the current one" }],
  "GET /api/v1/fiscal-periods": [{ field: "from", described: "on or before `to`" }],
  "GET /api/v1/reports/sales-summary": [
    { field: "to", described: "days after from" },
    { field: "workspace_id", described: "one of this company's" },
  ],
};

/** A JSON value outside a body property's schema; undefined when none is known. */
function invalidProperty(schema: ParameterSchema & { anyOf?: ParameterSchema[] }): unknown {
  const types = new Set((schema.anyOf ?? [schema]).flatMap((s) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : [])));
  if (types.size === 0) return undefined;
  if (!types.has("object")) return { not: "declared" };
  if (!types.has("boolean")) return true;
  return undefined;
}

describe("the OpenAPI document drives requests (issue 35)", () => {
  it("list operations: declared query values are not refused, undeclared ones are 4xx", async () => {
    const tenant = await seedTenant();
    const api = unlimited(tenant.subdomain, tenant.admin.token);
    const counts: Record<string, { valid: number; invalid: number }> = {};
    const problems: string[] = [];
    const lists = Object.entries(document.paths).filter(([path, item]) => path.startsWith("/api/v1/") && !path.includes("{") && item.get?.parameters?.length);
    expect(lists.length).toBeGreaterThan(20);
    let seed = SEED;
    for (const [path, item] of lists) {
      const parameters = (item.get!.parameters ?? []).filter((p) => p.in === "query");
      const count = { valid: 0, invalid: 0 };
      counts[`GET ${path}`] = count;
      // Valid: every declared filter at once would rarely match a row but must never be a 422.
      const rules = BUSINESS_RULES[`GET ${path}`] ?? [];
      for (const rule of rules) expect(parameters.find((p) => p.name === rule.field)?.description, `${path} ${rule.field}`).toContain(rule.described);
      const samples = fc.sample(
        fc.record(Object.fromEntries(parameters.map((p) => [p.name, p.required ? validValue(p.schema) : fc.option(validValue(p.schema), { nil: undefined })]))),
        {
          numRuns: VALID_RUNS,
          seed: seed++,
        },
      );
      for (const sample of samples) {
        const query = new URLSearchParams(Object.entries(sample).filter(([, v]) => v !== undefined) as [string, string][]);
        const res = await api.get(`${path.slice("/api/v1".length)}?${query}`);
        count.valid++;
        const fields = res.status === 422 ? Object.keys((res.body as { errors?: Record<string, unknown> }).errors ?? { body: 1 }) : [];
        if (res.status === 422 && fields.every((field) => rules.some((rule) => rule.field === field))) continue;
        if (res.status === 422 || res.status >= 500) problems.push(`GET ${path}?${query} (valid) → ${res.status} ${res.text.slice(0, 200)}`);
      }
      for (const parameter of parameters) {
        const bad = invalidValue(parameter.schema);
        if (bad === null) continue;
        const res = await api.get(`${path.slice("/api/v1".length)}?${new URLSearchParams({ [parameter.name]: bad })}`);
        count.invalid++;
        if (res.status < 400 || res.status >= 500) problems.push(`GET ${path}?${parameter.name}=${bad} (invalid) → ${res.status}`);
      }
    }
    const total = Object.values(counts).reduce((sum, c) => sum + c.valid + c.invalid, 0);
    console.log(`document-driven list requests: ${total}`, JSON.stringify(counts));
    await record({ suite: "document-driven lists", cases: total, failures: problems.length, invariants: 2 });
    expect(problems).toEqual([]);
  });

  it("JSON bodies: a property outside its declared schema is a 4xx on every operation", async () => {
    const tenant = await seedTenant();
    const counts: Record<string, number> = {};
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.startsWith("/api/")) continue;
      for (const [method, operation] of Object.entries(item)) {
        const schema = operation.requestBody?.content["application/json"]?.schema;
        if (!schema) continue;
        const properties = (schema.$ref ? document.components.schemas[schema.$ref.split("/").pop()!]!.properties : schema.properties) ?? {};
        const concrete = path.replace(/\{\w+\}/g, "1").slice("/api/v1".length);
        // One property per operation (the first with a known wrong value) keeps the run small.
        const [name, bad] = Object.entries(properties)
          .map(([property, propertySchema]) => [property, invalidProperty(propertySchema)] as const)
          .find(([, value]) => value !== undefined) ?? [undefined, undefined];
        if (name === undefined) continue;
        const res = await appCall(tenant.subdomain, concrete, {
          token: tenant.admin.token,
          method: method.toUpperCase(),
          body: { [name]: bad },
          env: NO_LIMIT,
        });
        counts[`${method.toUpperCase()} ${path}`] = 1;
        if (res.status < 400 || res.status >= 500) problems.push(`${method.toUpperCase()} ${path} {${name}: ${JSON.stringify(bad)}} → ${res.status}`);
      }
    }
    const total = Object.keys(counts).length;
    console.log(`document-driven invalid bodies: ${total} operations, one request each`);
    await record({ suite: "document-driven bodies", cases: total, failures: problems.length, invariants: 1 });
    expect(total).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });
});

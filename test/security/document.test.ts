import { type Schema, Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createApp, OPENAPI_DOCUMENT } from "../../src/app";
import type { EcfTenant } from "../ecf/helpers";
import { receiveFromSupplier } from "../reception/helpers";
import { freshRnc } from "../support/sales";
import { seedTenant, TEST_RNC } from "../support/seed";
import { concreteRoutes } from "./routes";
import { appCall, buildWorld, NO_LIMIT, record, unlimited } from "./world";

/**
 * Property test driven by the OpenAPI document (issue 35): for each list operation, query values
 * generated from the parameters' declared schemas (fast-check; patterns through stringMatching) must
 * not be refused with 422, and a value outside a parameter's schema must be a 4xx; for each
 * operation with a JSON body, a body with one property outside its declared schema must be a 4xx,
 * and bodies generated from the declared schema (every property, deterministic: exampleOf; one per
 * branch of its choices, at most 3 an operation, and one at its bounds, each text at its maxLength and
 * each number at its maximum: validBodies), each checked valid against the
 * document first, must not be refused with 422 but for a named reference or business rule (issue
 * 44; path ids need not exist, so an operation on one answers 404 after its body was validated).
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
  "GET /api/v1/reports/606": [
    { field: "period", described: "a past month or the current one" },
    { field: "workspace_id", described: "one of this company's" },
  ],
  "GET /api/v1/reports/607": [
    { field: "period", described: "a past month or the current one" },
    { field: "workspace_id", described: "one of this company's" },
  ],
  "GET /api/v1/reports/608": [
    { field: "period", described: "a past month or the current one" },
    { field: "workspace_id", described: "one of this company's" },
  ],
  "GET /api/v1/reports/it1": [
    { field: "period", described: "a past month or the current one" },
    // Anexo A VI and VII: what is subject to ITBIS is part of what was invoiced.
    ...["34", "35", "39", "40"].map((casilla) => ({ field: `anexo_a_${casilla}_taxable`, described: `at most anexo_a_${casilla}_invoiced` })),
    { field: "anexo_a_36_taxable", described: "34 + 35 + 36 at most 34 + 35 invoiced" },
  ],
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

/** The JSON Schema keywords the example generator honours. */
interface JsonSchema {
  description?: string;
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  not?: JsonSchema;
  format?: string;
  pattern?: string;
  example?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  required?: string[];
}

const schemaNamed = (ref: string) => (document.components.schemas as Record<string, JsonSchema>)[ref.split("/").pop()!]!;

/** A text for a string schema: its example, a format's value, a text matching its pattern, else plain words. */
function textOf(schema: JsonSchema, name: string): string {
  const fits = (text: string) =>
    text.length >= (schema.minLength ?? 0) &&
    text.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY) &&
    (!schema.pattern || new RegExp(schema.pattern, "u").test(text));
  const formats: Record<string, string> = {
    date: "2026-11-20",
    "date-time": "2026-11-20T10:00:00Z",
    email: "persona@example.com",
    uri: "https://example.com/hook",
  };
  const candidates = [
    typeof schema.example === "string" ? schema.example : undefined,
    schema.format ? formats[schema.format] : undefined,
    `Texto ${name}`.slice(0, schema.maxLength ?? 64).padEnd(schema.minLength ?? 0, "x"),
  ];
  const found = candidates.find((text): text is string => text !== undefined && fits(text));
  if (found !== undefined) return found;
  // A pattern of the project's own (NCF prefixes, municipality codes, bot tokens): fast-check writes a match.
  const matches = fc.sample(fc.stringMatching(new RegExp(schema.pattern ?? ".*", "u")), { numRuns: 50, seed: SEED });
  const match = matches.find((text) => fits(text) && text.trim() !== "");
  if (match === undefined) throw new Error(`no example for ${name}: ${JSON.stringify(schema)}`);
  return match;
}

/** A number the schema allows: 1 where it may, else its lower bound (or one step above an exclusive one). */
function numberOf(schema: JsonSchema): number {
  const step = schema.multipleOf ?? 1;
  const allowed = (n: number) =>
    (schema.minimum === undefined || n >= schema.minimum) &&
    (schema.maximum === undefined || n <= schema.maximum) &&
    (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum) &&
    (schema.not?.const === undefined || n !== schema.not.const);
  const candidates = [1, schema.minimum, schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + step, schema.maximum];
  const found = candidates.find((n): n is number => n !== undefined && allowed(n));
  if (found === undefined) throw new Error(`no number for ${JSON.stringify(schema)}`);
  return found;
}

/**
 * A deterministic value the document declares valid (issue 44): every declared property (optional
 * ones too), branch `branch` of a choice (modulo its non-null branches: 0 the first), arrays of their
 * least length (at least one item), the first enum value. An object's own combinators (a rule across
 * its fields: oneOf, allOf, if/then) are left to validBodies, which repairs the body against them.
 */
function exampleOf(raw: JsonSchema, name: string, branch = 0): unknown {
  const schema = raw.$ref ? schemaNamed(raw.$ref) : raw;
  if (schema.allOf && !schema.properties) return Object.assign({}, ...schema.allOf.map((part) => exampleOf(part, name, branch)));
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices && !schema.properties) {
    const nonNull = choices.filter((choice) => choice.type !== "null");
    return exampleOf(nonNull.length ? nonNull[branch % nonNull.length]! : choices[0]!, name, branch);
  }
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum.find((value) => value !== null) ?? null;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([property, sub]) => [property, exampleOf(sub, property, branch)]));
    case "array":
      return Array.from({ length: Math.max(schema.minItems ?? 0, 1) }, () => exampleOf(schema.items ?? {}, name, branch));
    case "integer":
    case "number":
      return branch === BOUNDARY && schema.maximum !== undefined && (schema.multipleOf === undefined || Number.isInteger(schema.maximum / schema.multipleOf))
        ? schema.maximum
        : numberOf(schema);
    case "boolean":
      return true;
    case "string":
      // At its longest where nothing but the length constrains it: the boundary a client may reach.
      return branch === BOUNDARY &&
        schema.maxLength !== undefined &&
        !schema.format &&
        !schema.example &&
        (!schema.pattern || schema.pattern.startsWith("^[^\\u0000]*"))
        ? "x".repeat(schema.maxLength)
        : textOf(schema, name);
    default:
      return null;
  }
}

/** The branch number that asks exampleOf for each value at its bound (longest text, largest number). */
const BOUNDARY = 3;

const validators = new Map<string, Validator>();
/** How many errors the document's schema finds in a value (0: it is valid). */
function errorsIn(raw: JsonSchema | Record<string, unknown>, value: unknown): number {
  const key = JSON.stringify(raw);
  let validator = validators.get(key);
  if (!validator) {
    validator = new Validator({ ...raw, components: document.components } as Schema, "2020-12", false);
    validators.set(key, validator);
  }
  return validator.validate(value).errors.length;
}

const REMOVE = Symbol("remove");

/** The other values a property may take: left out (when optional), another branch, false, another bound. */
function alternativesOf(raw: JsonSchema, name: string, optional: boolean): unknown[] {
  const schema = raw.$ref ? schemaNamed(raw.$ref) : raw;
  const values: unknown[] = optional ? [REMOVE] : [];
  for (const branch of [0, 1, 2]) values.push(exampleOf(schema, name, branch));
  if (schema.type === "boolean") values.push(false);
  if (schema.enum) values.push(...schema.enum);
  if (schema.type === "integer" || schema.type === "number")
    values.push(...[schema.minimum, schema.maximum, schema.minimum === undefined ? undefined : schema.minimum + 1].filter((n) => n !== undefined));
  return [...new Map(values.map((value) => [typeof value === "symbol" ? "remove" : JSON.stringify(value), value])).values()];
}

/**
 * The values the body's rules across fields name for each property (a `const`, an `enum`, in a
 * `then`, an `else` or an `anyOf` branch): a tax's rate 18 for type itbis is no example of the
 * rate's own schema, only of the rule's.
 */
function ruleValues(rule: unknown, into = new Map<string, unknown[]>()): Map<string, unknown[]> {
  if (typeof rule !== "object" || rule === null) return into;
  const { properties, allOf, anyOf, oneOf, then, else: otherwise } = rule as JsonSchema & { then?: JsonSchema; else?: JsonSchema };
  for (const [key, sub] of Object.entries(properties ?? {})) {
    for (const choice of [sub, ...(sub.anyOf ?? [])]) {
      const values = choice.const !== undefined ? [choice.const] : (choice.enum ?? []);
      into.set(key, [...(into.get(key) ?? []), ...values]);
    }
  }
  for (const part of [...(allOf ?? []), ...(anyOf ?? []), ...(oneOf ?? []), then, otherwise]) ruleValues(part, into);
  return into;
}

/**
 * The body changed, one property at a time (then two, when no single change helps), until the
 * document's schema admits it: what a rule across fields (oneOf, if/then, not) asks of the example.
 */
function repaired(raw: JsonSchema, body: unknown): unknown {
  const schema = raw.$ref ? schemaNamed(raw.$ref) : raw;
  if (typeof body !== "object" || body === null || Array.isArray(body) || !schema.properties) return body;
  const required = new Set(schema.required ?? []);
  const { then: consequence, else: alternative } = schema as { then?: JsonSchema; else?: JsonSchema };
  const named = ruleValues({ allOf: [...(schema.allOf ?? []), consequence, alternative] });
  const changes = Object.entries(schema.properties).flatMap(([key, sub]) =>
    [...alternativesOf(sub, key, !required.has(key)), ...(named.get(key) ?? [])].map((value) => [key, value] as const),
  );
  const apply = (value: Record<string, unknown>, ...steps: (readonly [string, unknown])[]) => {
    const next = { ...value };
    for (const [key, v] of steps) {
      if (v === REMOVE) delete next[key];
      else next[key] = v;
    }
    return next;
  };
  // Progress is counted per rule: the plain schema's errors, and each rule across fields broken
  // (each alternative of a `not` apart), so that fixing one of several is a step forward.
  const { not, oneOf, anyOf, allOf, if: condition, then, else: otherwise, ...plain } = schema as JsonSchema & Record<string, JsonSchema | undefined>;
  const rules: (JsonSchema | Record<string, unknown>)[] = [
    ...(not ? (not.anyOf ?? [not]).map((alternative) => ({ not: alternative })) : []),
    ...(oneOf ? [{ oneOf }] : []),
    ...(anyOf ? [{ anyOf }] : []),
    ...(allOf ?? []),
    ...(condition ? [{ if: condition, then, else: otherwise }] : []),
  ];
  const score = (value: unknown) => errorsIn(plain, value) + rules.filter((rule) => errorsIn(rule, value) > 0).length;
  let current = body as Record<string, unknown>;
  let errors = score(current);
  for (let round = 0; errors > 0 && round < 8; round++) {
    const single = changes.map((step) => apply(current, step)).find((next) => score(next) < errors);
    const pair = single
      ? undefined
      : changes
          .flatMap((a) => changes.map((b) => [a, b] as const))
          .map(([a, b]) => apply(current, a, b))
          .find((next) => score(next) < errors);
    const next = single ?? pair;
    if (!next) break;
    current = next;
    errors = score(current);
  }
  return current;
}

/**
 * Bodies the document declares valid, at most 3 an operation: one per branch of its choices (a
 * property's anyOf, an item's union, the body's own oneOf), each repaired against the body's rules
 * across fields, deduplicated.
 */
function validBodies(raw: JsonSchema): unknown[] {
  const schema = raw.$ref ? schemaNamed(raw.$ref) : raw;
  const own = (schema.oneOf ?? schema.anyOf ?? []).filter(() => schema.properties !== undefined);
  const bodies = [0, 1, 2, BOUNDARY].map((branch) => {
    const body = exampleOf(raw, "body", branch);
    const consts = Object.entries(own[branch % Math.max(own.length, 1)]?.properties ?? {}).filter(([, sub]) => sub.const !== undefined);
    const start = consts.length ? { ...(body as Record<string, unknown>), ...Object.fromEntries(consts.map(([key, sub]) => [key, sub.const])) } : body;
    return repaired(raw, start);
  });
  return [...new Map(bodies.map((body) => [JSON.stringify(body), body])).values()];
}

/**
 * Why a 422 on a declared-valid body is right, by operation and field (a field is the error's key:
 * `items.0.product_id`). A reference: an id the body names that this tenant does not have is 422
 * "No such …" (docs/api.md: an unknown reference in a body stays 422), which a document cannot know.
 * A rule: a business rule a schema cannot say, named in the field's or the operation's description.
 */
const REFERENCE = { field: /(^|\.)\w+_ids?(\.\d+)?$/, message: /^(No such|Unknown tax id)/ };
const BODY_RULES: Record<string, { field: string; described: string }[]> = {
  "PUT /api/v1/ecf/certificate": [{ field: "p12_base64", described: "The PKCS#12 (.p12/.pfx) file" }],
  "POST /api/v1/workspace/invitations": [{ field: "role", described: "one of the company's roles" }],
  // A PATCH without a type is held to the stored one (a type given: the schema's rules).
  "PATCH /api/v1/taxes/{id}": [{ field: "amount_per_unit", described: "required for it and only for it" }],
  "POST /api/v1/document-subtypes": [
    // The boundary body: every number at its maximum, which comparisons across fields refuse.
    { field: "end_number", described: "end_number ≥ start_number" },
  ],
  "PATCH /api/v1/document-subtypes/{id}": [
    // On the world's sequence, numbers were issued: the range keeps them.
    { field: "end_number", described: "next_number ≤ end_number + 1 (on end_number)" },
  ],
  "PATCH /api/v1/quotations/{id}": [{ field: "document_subtype_id", described: "cannot change" }],
  "PUT /api/v1/company/members/{user_id}": [{ field: "role", described: "one of the company's roles" }],
  "PATCH /api/v1/workspace/members/{user_id}": [{ field: "role", described: "one of the company's roles" }],
  "POST /api/v1/received-ecf/{id}/purchase": [{ field: "supplier_id", described: "one given is a supplier (contact_type supplier or both)" }],
  "POST /api/chat-accounts/{account}/messages": [{ field: "template", described: "one of this account's templates" }],
  "POST /api/v1/workspaces/{id}/transfer-ownership": [{ field: "user_id", described: "not its current owner" }],
  "POST /api/v1/company/transfer-ownership": [{ field: "user_id", described: "not its current owner" }],
  "POST /api/v1/me/password": [{ field: "current_password", described: "current password: checked" }],
};

function explained(key: string, operation: Operation & { description?: string }, field: string, messages: string[]): boolean {
  if (REFERENCE.field.test(field) && messages.every((message) => REFERENCE.message.test(message))) return true;
  const rule = (BODY_RULES[key] ?? []).find((r) => r.field === field);
  if (!rule) return false;
  const raw = operation.requestBody!.content["application/json"]!.schema as JsonSchema;
  const body = raw.$ref ? schemaNamed(raw.$ref) : raw;
  const described = `${body.properties?.[field.split(".")[0]!]?.description ?? ""} ${operation.description ?? ""}`;
  expect(described, `${key}: the rule on ${field} is described`).toContain(rule.described);
  return true;
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
        // The whole path: v1() leaves /api/… as it is (slicing "/api/v1" off /api/messaging-bots asked for /ing-bots, a 404).
        const concrete = path.replace(/\{\w+\}/g, "1");
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

  it("JSON bodies: a body the document declares valid is not refused with 422 on any operation (issue 44)", async () => {
    // A tenant per body of an operation: the second body creates what the first did (a SKU, an
    // identification), which one tenant refuses as taken.
    const tenants = [await seedTenant(), await seedTenant(), await seedTenant(), await seedTenant()];
    // The first body of each operation goes to the security suites' world, on the real objects its
    // path names (test/security/routes.ts), so that it reaches the operation's rules, not a 404.
    const world = await buildWorld();
    const o = world.objects;
    // The company receives e-CF once it has a certificate to sign the ARECF with: without one,
    // approving the world's received e-CF was a 404 (route_not_found).
    const certificate = await appCall(world.tenant.subdomain, "/ecf/certificate", {
      token: world.tenant.admin.token,
      method: "PUT",
      body: { p12_base64: o.certificate.p12Base64, password: o.certificate.password },
      env: NO_LIMIT,
    });
    expect(certificate.status, certificate.text).toBe(200);
    const realPaths = new Map(concreteRoutes(world).map((route) => [route.key, route.url]));
    // The world's received e-CF is a stand-in without lines, which cannot make a purchase (a 422 no
    // document states): a supplier's real one, received through DGII's reception, makes it.
    const supplied = await receiveFromSupplier({ tenant: world.tenant, rnc: TEST_RNC } as EcfTenant, freshRnc());
    realPaths.set("POST /api/v1/received-ecf/{id}/purchase", `/api/v1/received-ecf/${supplied.id}/purchase`);
    // The security suites' bogus token, there so that no anonymous check accepts it: here the world's
    // own invitation, accepted by the generated body.
    realPaths.set("POST /api/v1/invitations/{token}/accept", `/api/v1/invitations/${encodeURIComponent(o.invitation.token)}/accept`);
    // Ids a body names, where the generated one would be a stranger (404): the company's owner
    // itself, which the rule refuses (422) and which keeps the world's owner.
    const realBodyIds: Record<string, Record<string, unknown>> = {
      "POST /api/v1/company/transfer-ownership": { user_id: world.tenant.admin.id },
    };
    const problems: string[] = [];
    const answers: Record<string, number[]> = {};
    let bodyCount = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.startsWith("/api/")) continue;
      for (const [method, operation] of Object.entries(item)) {
        const schema = operation.requestBody?.content["application/json"]?.schema;
        if (!schema) continue;
        const key = `${method.toUpperCase()} ${path}`;
        const pathValues = Object.fromEntries(
          (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => [p.name, String(exampleOf(p.schema, p.name))]),
        );
        const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name] ?? "1"));
        for (const [index, body] of validBodies(schema).entries()) {
          const real = index === 0 ? realPaths.get(key) : undefined;
          if (real && realBodyIds[key]) Object.assign(body as object, realBodyIds[key]);
          const subdomain = real ? world.tenant.subdomain : tenants[index]!.subdomain;
          const token = real ? world.tenant.admin.token : tenants[index]!.admin.token;
          // W1, where the world's objects are: POST /workspaces makes the new workspace the admin's
          // current one, and members, bots and chat accounts of W1 were then a 404 in it.
          const headers: Record<string, string> = real ? { "X-Workspace-ID": String(world.w1) } : {};
          // The property is about bodies the document admits: one it does not is the generator's fault.
          if (errorsIn(schema, body) > 0) {
            problems.push(`${key} ${JSON.stringify(body)}: the generated body is not valid against the document`);
            continue;
          }
          const res = await appCall(subdomain, real ?? concrete, { token, method: method.toUpperCase(), body, headers, env: NO_LIMIT });
          answers[key] = [...(answers[key] ?? []), res.status];
          bodyCount++;
          if (res.status >= 500) problems.push(`${key} ${JSON.stringify(body)} → ${res.status}`);
          // On the world's objects a body reaches the operation's rules: a 404 there is a path id that is not real.
          if (real && res.status === 404) problems.push(`${key} on ${real} → 404 ${res.text.slice(0, 200)}`);
          if (res.status !== 422) continue;
          const fields = Object.entries((res.body as { errors?: Record<string, string[]> }).errors ?? { body: [res.text] });
          const unexplained = fields.filter(([field, messages]) => !explained(key, operation, field, messages));
          if (unexplained.length > 0) problems.push(`${key} ${JSON.stringify(body)} → 422 ${JSON.stringify(Object.fromEntries(unexplained))}`);
        }
      }
    }
    const total = Object.keys(answers).length;
    console.log(`document-driven valid bodies: ${bodyCount} bodies over ${total} operations`, JSON.stringify(answers));
    await record({ suite: "document-driven valid bodies", cases: bodyCount, failures: problems.length, invariants: 1 });
    expect(total).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });
});

import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { INT4_MAX } from "../../src/lib/bounds";
import { TEST_DOMAIN } from "../support/api";
import { ownerRow, sql } from "../support/seed";
import { type ConcreteRoute, concreteRoutes } from "./routes";
import { appCall, buildWorld, expectErrorShape, NO_LIMIT, record, SOAK, type World } from "./world";

/**
 * Property-based fuzzing of every operation that takes a JSON body: starting from a valid body
 * (test/security/routes.ts), fast-check replaces fields with values of the wrong type and hostile
 * values, drops required fields, adds fields the client must not set, or replaces the whole body.
 * Numbers the JSON encoder cannot write (1e400, -0) go in as raw text. Properties: never 5xx, never
 * a hang, every error in the documented shape. Seeded; `npm run soak` runs ≥ 10,000 cases.
 */
const SEED = 20261122;
const RUNS = SOAK ? 10_000 : 300;
const QUERY_RUNS = SOAK ? 2_000 : 100;
const ENV = { ...NO_LIMIT, UPSTASH_REDIS_REST_URL: "" }; // not a rate-limit test

const RAW = "\u0000raw:"; // a string value replaced by raw JSON text after encoding
const raw = (text: string) => `${RAW}${text}`;

const hostile = fc.constantFrom<unknown>(
  raw("1e400"),
  raw("-1e400"),
  raw("-0"),
  raw("1e-400"),
  raw("123456789012345678901234567890"),
  "NaN",
  "Infinity",
  "-Infinity",
  "1e5",
  "0x10",
  " 1 ",
  "-0",
  "-0.00",
  "1,000.00",
  "١٢٣",
  "",
  " ",
  "\u0000",
  "💥".repeat(300),
  "x".repeat(20_000),
  "<script>alert(1)</script>",
  "'; DROP TABLE invoices; --",
  "2026-02-30",
  "9999-12-31",
  "0000-00-00",
  Number.MAX_SAFE_INTEGER + 2,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  2_147_483_648,
  -1,
  0,
  1.5,
  1e21,
  true,
  null,
  [],
  {},
  [null],
  { $gt: "" },
  { __proto__: { admin: true } },
);

/**
 * Boundary values by field type, chosen by the field's name in the valid body: values at and just
 * beyond what the database columns hold (src/lib/bounds.ts). Each must be accepted or refused
 * with a 4xx, never a database error.
 */
const BOUNDARY_AMOUNTS: unknown[] = [
  "999999999999.99",
  "999999999999.995",
  "1000000000000.00",
  "-999999999999.99",
  "99999999.99",
  "9999999999.99",
  "10000",
  "100",
  "100.01",
  "0.001",
  "0.01",
  "-0.01",
  "0",
  "1e3",
  999_999_999_999.99,
  1e-7,
  1e12,
  -1,
];
const BOUNDARY_DATES: unknown[] = [
  "1899-12-31",
  "1900-01-01",
  "2199-12-31",
  "2200-01-01",
  "0001-01-01",
  "0000-01-01",
  "9999-12-31",
  "2026-02-29",
  "2028-02-29",
  "2026-02-30",
  "2026-11-20T00:00:00Z",
];
const BOUNDARY_SEQUENCES: unknown[] = [0, -1, 1, INT4_MAX, INT4_MAX + 1, 9_999_999_999, 10_000_000_000, Number.MAX_SAFE_INTEGER];
const AMOUNT_KEY = /(^|_)(quantity|quantity_adjustment|price|cost|amount|rate|discount|limit)$/;
const DATE_KEY = /(_date|^valid_until|^date_from|^date_to)$/;

/** Ids at the int4 limits, nonexistent ones and the other tenant's (set once its world exists). */
let boundaryIds: unknown[] = [0, -1, 1, INT4_MAX, INT4_MAX + 1, 2_147_483_000, 1.5, "1"];

function boundaryValues(path: (string | number)[]): unknown[] | null {
  const last = path[path.length - 1];
  const key = String(typeof last === "number" ? (path[path.length - 2] ?? "") : (last ?? ""));
  if (key === "id" || key.endsWith("_id") || (typeof last === "number" && key.endsWith("_ids"))) return boundaryIds;
  if (DATE_KEY.test(key)) return BOUNDARY_DATES;
  if (AMOUNT_KEY.test(key)) return BOUNDARY_AMOUNTS;
  if (/_number$/.test(key)) return BOUNDARY_SEQUENCES;
  return null;
}

const MASS_ASSIGNMENT = [
  "id",
  "tenant_id",
  "workspace_id",
  "status",
  "document_number",
  "total_amount",
  "subtotal",
  "tax_amount",
  "amount_paid",
  "amount_due",
  "created_by",
  "created_at",
  "next_number",
  "owner_id",
  "is_owner",
  "password_hash",
  "role_id",
];

type Mutation = (body: Record<string, unknown>) => unknown;

function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [prefix, ...value.slice(0, 2).flatMap((item, i) => fieldPaths(item, [...prefix, i]))];
  if (value && typeof value === "object") return [prefix, ...Object.entries(value).flatMap(([k, v]) => fieldPaths(v, [...prefix, k]))];
  return [prefix];
}

function setAt(root: unknown, path: (string | number)[], value: unknown, remove = false): unknown {
  if (!path.length) return value;
  // An array indexes by number and an object by key: both read as a record here.
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  if (rest.length === 0) {
    if (remove) {
      if (Array.isArray(copy)) (copy as unknown[]).splice(Number(head), 1);
      else delete copy[head!];
    } else copy[head!] = value;
    return copy;
  }
  copy[head!] = setAt(copy[head!], rest, value, remove);
  return copy;
}

const deep = (depth: number) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

function mutation(): fc.Arbitrary<Mutation> {
  const value = fc.oneof(
    { weight: 3, arbitrary: hostile },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  );
  return fc.oneof(
    // one field (or element) replaced
    fc.tuple(fc.nat(), value).map(([n, v]) => (body: Record<string, unknown>) => {
      const paths = fieldPaths(body).filter((p) => p.length);
      return paths.length ? setAt(body, paths[n % paths.length]!, v) : v;
    }),
    // one field removed
    fc.nat().map((n) => (body: Record<string, unknown>) => {
      const paths = fieldPaths(body).filter((p) => p.length);
      return paths.length ? setAt(body, paths[n % paths.length]!, undefined, true) : body;
    }),
    // fields the client must not set, and unknown ones
    fc
      .tuple(fc.subarray(MASS_ASSIGNMENT, { minLength: 1 }), value, fc.dictionary(fc.string({ maxLength: 12 }), hostile, { maxKeys: 3 }))
      .map(([keys, v, extra]) => (body: Record<string, unknown>) => ({ ...body, ...extra, ...Object.fromEntries(keys.map((k) => [k, v])) })),
    // several fields at once
    fc.array(fc.tuple(fc.nat(), value), { minLength: 2, maxLength: 5 }).map((changes) => (body: Record<string, unknown>) => {
      let out: unknown = body;
      for (const [n, v] of changes) {
        const paths = fieldPaths(out).filter((p) => p.length);
        if (paths.length) out = setAt(out, paths[n % paths.length]!, v);
      }
      return out;
    }),
    // the whole body of the wrong shape
    fc.oneof(value, fc.constant(deep(2_000)), fc.constant([]), fc.constant("body")).map((v) => () => v),
    // boundary values for the fields' types: one field, or several at once (quantity and price
    // both at their maximum, say)
    fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }).map((changes) => (body: Record<string, unknown>) => {
      let out: unknown = body;
      for (const [n, k] of changes) {
        const paths = fieldPaths(out).filter((p) => p.length && boundaryValues(p));
        if (!paths.length) return out;
        const path = paths[n % paths.length]!;
        const values = boundaryValues(path)!;
        out = setAt(out, path, values[k % values.length]);
      }
      return out;
    }),
    // many lines at the largest quantity and price the line schema takes: the document's sum
    fc.tuple(fc.integer({ min: 2, max: 40 }), fc.constantFrom("10000", "9999999999.99", "1")).map(([count, price]) => (body: Record<string, unknown>) => {
      const items = body.items;
      if (!Array.isArray(items) || !items.length || !(items[0] as Record<string, unknown>).unit_price) return body;
      return { ...body, items: Array.from({ length: count }, () => ({ ...(items[0] as object), quantity: "99999999.99", unit_price: price })) };
    }),
  );
}

function encode(body: unknown): string {
  return (JSON.stringify(body, (_key, v) => (typeof v === "string" && v.startsWith(RAW) ? `__RAW__${v.slice(RAW.length)}__RAW__` : v)) ?? "null").replace(
    /"__RAW__(.*?)__RAW__"/g,
    "$1",
  );
}

let world: World;
let targets: ConcreteRoute[];
const stats = { cases: 0, failures: 0, byStatus: {} as Record<number, number> };

async function send(route: ConcreteRoute, rawBody: BodyInit | undefined, headers: Record<string, string> = {}, extra: Record<string, string> = {}) {
  const url = `http://${world.tenant.subdomain}.${TEST_DOMAIN}${route.url}`;
  const res = await Promise.race([
    appCall(world.tenant.subdomain, url, {
      method: route.method,
      token: world.tenant.admin.token,
      rawBody,
      headers: { "content-type": "application/json", "x-workspace-id": String(world.w1), ...headers },
      env: { ...ENV, ...extra },
    }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in 20 s: ${route.key}`)), 20_000)),
  ]);
  stats.cases++;
  stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
  return res;
}

function expectSane(res: Awaited<ReturnType<typeof send>>, context: string) {
  if (res.status >= 500) stats.failures++;
  expect(res.status, `${context}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) expectErrorShape(res, context);
}

describe("fuzzing every JSON body", () => {
  beforeAll(async () => {
    world = await buildWorld();
    // The DELETE-like writes of the world's objects are fuzzed too; keep the fixtures' objects
    // apart from the fuzz by leaving out the routes that only take a path (no body to fuzz).
    // JSON bodies: the one multipart upload (DGII's test sets) is refused in test/ecf/certification-test-sets.test.ts.
    targets = concreteRoutes(world).filter((r) => r.body !== undefined && !(r.body instanceof FormData) && r.scope !== "public");
    // Ids of another tenant (invisible under RLS): refused as "no such", never a database error.
    const other = await buildWorld();
    const o = other.objects;
    boundaryIds = [
      ...boundaryIds,
      other.w1,
      other.ids.b02,
      other.ids.itbis18,
      o.contact.id,
      o.product.id,
      o.invoice.id,
      o.quotation.id,
      o.currency.id,
      o.bank.id,
      o.salesman.id,
    ];
  }, 180_000);

  it(
    `never answers 5xx and always answers errors in the documented shape (${RUNS} seeded cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: targets.length - 1 }), mutation(), async (index, mutate) => {
          const route = targets[index]!;
          const body = mutate(structuredClone(route.body) as Record<string, unknown>);
          const res = await send(route, body === undefined ? "" : encode(body));
          expectSane(res, `${route.key} ${encode(body).slice(0, 200)}`);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    },
    SOAK ? 3_600_000 : 90_000,
  );

  it(
    `answers boundary ids, dates and numbers in paths, filters and query parameters without a 5xx (${QUERY_RUNS} seeded cases)`,
    async () => {
      const idText = fc.constantFrom<string>(
        "0",
        "-1",
        "1",
        "01",
        "1e3",
        "",
        " 1",
        String(INT4_MAX),
        String(INT4_MAX + 1),
        "99999999999999999999",
        "2147483000",
        "abc",
        ...boundaryIds.filter((v) => typeof v === "number" && v > 0).map(String),
      );
      const dateText = fc.constantFrom<string>(...(BOUNDARY_DATES as string[]), "", "abc", "2026-1-1");
      const queries: [string, (id: string, date: string) => string][] = [
        ["invoice by id", (id) => `/invoices/${id}`],
        ["invoices by date", (_id, date) => `/invoices?filter[issue_date]=${date}`],
        ["invoices by contact", (id) => `/invoices?filter[contact_id]=${id}`],
        ["quotations by contact", (id) => `/quotations?filter[contact_id]=${id}`],
        ["movements", (id, date) => `/inventory/movements?product_id=${id}&date_from=${date}&date_to=${date}`],
        ["low stock", (id) => `/inventory/low-stock?workspace_id=${id}`],
        ["products of a workspace", (id) => `/products?filter[workspace_id]=${id}`],
        ["product stock", (id) => `/products/${id}/stock`],
        ["transfers of a product", (id) => `/stock-transfers?filter[product_id]=${id}`],
        ["bank accounts by currency", (id) => `/bank-accounts?filter[currency_id]=${id}`],
      ];
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: queries.length - 1 }), idText, dateText, async (index, id, date) => {
          const [name, build] = queries[index]!;
          const path = build(encodeURIComponent(id), encodeURIComponent(date));
          const res = await send({ key: `GET ${path}`, method: "GET", url: `/api/v1${path}` } as ConcreteRoute, undefined);
          expectSane(res, `${name}: GET ${path}`);
        }),
        { seed: SEED, numRuns: QUERY_RUNS, endOnFailure: true },
      );
    },
    SOAK ? 600_000 : 60_000,
  );

  it("refuses 1e400, -0, NaN strings and huge numbers in money and quantity fields", async () => {
    const invoices = targets.find((r) => r.key === "POST /api/v1/invoices")!;
    const base = invoices.body as { items: unknown[] };
    for (const value of ["1e400", "-0", '"NaN"', '"Infinity"', "1e21", "123456789012345678901234567890", '"1e5"', '"-0"']) {
      const text = encode(base).replace('"unit_price":"1.00"', `"unit_price":${value}`);
      const res = await send(invoices, text);
      expectSane(res, value);
      if (res.status === 201) expect(Number(res.body.data.total_amount), value).toBeGreaterThanOrEqual(0);
      else expect(res.status, `${value}: ${res.text}`).toBe(422);
    }
  });

  it("answers 10,000-line documents, deep nesting, invalid UTF-8, 2 MiB bodies and wrong content types without a 5xx", async () => {
    const invoices = targets.find((r) => r.key === "POST /api/v1/invoices")!;
    const base = invoices.body as { items: unknown[] };
    const line = base.items[0];
    const many = await send(invoices, JSON.stringify({ ...base, items: Array.from({ length: 10_000 }, () => line) }));
    expectSane(many, "10,000 lines");
    expect([201, 413, 422]).toContain(many.status);

    const nested = await send(invoices, JSON.stringify({ ...base, notes: deep(5_000) }));
    expectSane(nested, "deep nesting");
    expect(nested.status).toBe(422);
    const nestedRaw = await send(invoices, `${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expectSane(nestedRaw, "100,000 nested arrays");

    const prefix = new TextEncoder().encode(encode({ ...base, notes: "__X__" }).split("__X__")[0]);
    const suffix = new TextEncoder().encode(encode({ ...base, notes: "__X__" }).split("__X__")[1]);
    const invalid = new Uint8Array([...prefix, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, ...suffix]);
    const utf8 = await send(invoices, invalid);
    expectSane(utf8, "invalid UTF-8");

    const huge = await send(invoices, JSON.stringify({ ...base, notes: "x".repeat(2 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expectErrorShape(huge);

    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml"]) {
      const res = await send(invoices, JSON.stringify(base), { "content-type": type });
      expect(res.status, type).toBe(415);
      expectErrorShape(res);
    }
    const malformed = await send(invoices, '{"contact_id": 1,');
    expect(malformed.status).toBe(400);
    expectErrorShape(malformed);
  }, 60_000);

  it("ignores or refuses fields a client must not set (tenant, workspace, status, number, totals)", async () => {
    const o = world.objects;
    const hostileFields = {
      tenant_id: 999_999,
      workspace_id: world.w2,
      status: "paid",
      document_number: "B0299999999",
      total_amount: "0.01",
      subtotal: "0.01",
      amount_paid: "999.00",
      amount_due: "0.00",
      id: 1,
      created_by: 1,
    };
    const invoice = await send(
      concreteRoutes(world).find((r) => r.key === "POST /api/v1/invoices")!,
      JSON.stringify({
        contact_id: o.contact.id,
        document_subtype_id: world.ids.b02,
        issue_date: "2026-11-20",
        items: [{ product_id: o.product.id, quantity: "2", unit_price: "50.00" }],
        ...hostileFields,
      }),
    );
    expect([201, 422]).toContain(invoice.status);
    if (invoice.status === 201) {
      const id = invoice.body.data.id;
      const row = await ownerRow(
        sql`SELECT tenant_id, workspace_id, status, document_number, total_amount::text, amount_paid::text FROM invoices WHERE id = ${id}`,
      );
      expect(row.tenant_id).toBe(world.tenant.tenantId);
      expect(row.workspace_id).toBe(world.w1);
      expect(row.status).toBe("pending_payment");
      expect(row.document_number).not.toBe("B0299999999");
      expect(Number(row.total_amount)).toBeGreaterThanOrEqual(100); // 2 × 50 plus the product's taxes, never the 0.01 sent
      expect(row.amount_paid).toBe("0.00");
    }
    const quotation = await send(
      concreteRoutes(world).find((r) => r.key === "POST /api/v1/quotations")!,
      JSON.stringify({
        contact_id: o.contact.id,
        document_subtype_id: world.ids.cot,
        issue_date: "2026-11-20",
        items: [{ product_id: o.product.id, quantity: "1", unit_price: "10" }],
        ...hostileFields,
        status: "converted",
      }),
    );
    expect([201, 422]).toContain(quotation.status);
    if (quotation.status === 201) {
      const id = quotation.body.data.id;
      const row = await ownerRow(sql`SELECT tenant_id, workspace_id, status, document_number, total_amount::text FROM quotations WHERE id = ${id}`);
      expect(row).toMatchObject({ tenant_id: world.tenant.tenantId, workspace_id: world.w1, status: "draft" });
      expect(row.document_number).not.toBe("B0299999999");
      expect(row.total_amount).not.toBe("0.01");
    }
    const product = await send(
      concreteRoutes(world).find((r) => r.key === "POST /api/v1/products")!,
      JSON.stringify({ name: "Masivo", price: "5.00", tenant_id: 999_999, id: 1, created_at: "2000-01-01T00:00:00Z" }),
    );
    expect([201, 422]).toContain(product.status);
    if (product.status === 201) {
      const row = await ownerRow(sql`SELECT tenant_id, id FROM products WHERE id = ${product.body.data.id}`);
      expect(row.tenant_id).toBe(world.tenant.tenantId);
      expect(row.id).not.toBe(1);
    }
    // An existing invoice's number and totals cannot be rewritten through an update.
    const w1 = { "x-workspace-id": String(world.w1) };
    const before = (await appCall(world.tenant.subdomain, `/invoices/${o.invoice.id}`, { token: world.tenant.admin.token, headers: w1, env: ENV })).body.data;
    const patch = await send(concreteRoutes(world).find((r) => r.key === "PATCH /api/v1/invoices/{id}")!, JSON.stringify({ notes: "otra", ...hostileFields }));
    expect([200, 409, 422]).toContain(patch.status);
    const after = (await appCall(world.tenant.subdomain, `/invoices/${o.invoice.id}`, { token: world.tenant.admin.token, headers: w1, env: ENV })).body.data;
    expect({ n: after.document_number, t: after.total_amount, s: after.status, w: after.workspace_id, p: after.amount_paid }).toEqual({
      n: before.document_number,
      t: before.total_amount,
      s: before.status,
      w: before.workspace_id,
      p: before.amount_paid,
    });
  });

  it("records the figures", async () => {
    console.log(`fuzz: ${stats.cases} cases, statuses ${JSON.stringify(stats.byStatus)}`);
    await record({
      suite: "fuzz (fast-check, seeded)",
      cases: stats.cases,
      failures: stats.failures,
      invariants: 3,
      notes: `seed ${SEED}; statuses ${JSON.stringify(stats.byStatus)}`,
    });
  });
});

describe("NUL characters", () => {
  it("answers a string holding \\u0000 with 422, not a database error", async () => {
    const w = await buildWorld();
    const res = await appCall(w.tenant.subdomain, `/currencies/${w.objects.currency.id}`, {
      method: "PATCH",
      token: w.tenant.admin.token,
      body: { name: "a\u0000b" },
      env: ENV,
    });
    expect(res.status, res.text).toBe(422);
    expectErrorShape(res);
  });
});

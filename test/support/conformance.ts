import { type Schema, Validator } from "@cfworker/json-schema";

/**
 * Every exchange the suite makes through workerFetch (test/support/api.ts) is held to the OpenAPI
 * document (issue 35): the response's status must be one its operation (method + path template)
 * declares, and a JSON body must validate against the schema declared for that status. A route or
 * status missing from the document, or a body that drifted from its schema, fails the test that
 * met it, with the operation, the status and the validation errors.
 *
 * The document is built once per test file by the same code that serves /api/v1/openapi.json
 * (createApp().getOpenAPI31Document), in workerd; @cfworker/json-schema validates without
 * generating code (workerd forbids eval, so Ajv cannot run here).
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface OperationEntry {
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  operation: Operation;
}

interface Document {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
}

/**
 * Requests that reach no operation of the document, each for a reason: the Worker's non-API
 * pages and files, which the document does not describe.
 */
const NOT_IN_DOCUMENT: { pattern: RegExp; reason: string }[] = [
  { pattern: /^\/health$/, reason: "liveness probe, no tenant, not part of the API" },
  { pattern: /^\/api\/v1\/docs(\/.*)?$/, reason: "Swagger UI page and its static files" },
  { pattern: /^\/api\/v1\/openapi\.json$/, reason: "the document itself" },
];

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

let loaded: Promise<{ document: Document; operations: OperationEntry[] }> | undefined;
const validators = new Map<string, Validator>();

async function load() {
  // Imported here, not at the top: test/support/api.ts is imported by every test, and the app only
  // needs building once a response is checked.
  const { createApp, OPENAPI_DOCUMENT } = await import("../../src/app");
  const document = createApp().getOpenAPI31Document(OPENAPI_DOCUMENT) as unknown as Document;
  const operations: OperationEntry[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const segments = template.split("/");
    const source = segments.map((segment) => segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")).join("/");
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        // DGII's receiver services are matched without regard to case (src/app.ts receiverServicePath).
        pattern: new RegExp(`^${source}$`, template.startsWith("/fe/") ? "i" : ""),
        literalSegments: segments.filter((segment) => !segment.includes("{")).length,
        operation: operation as Operation,
      });
    }
  }
  // A literal segment wins over a parameter (/invoices/summary before /invoices/{id}), as the router does.
  operations.sort((a, b) => b.literalSegments - a.literalSegments);
  return { document, operations };
}

function validatorFor(document: Document, key: string, schema: Schema): Validator {
  let validator = validators.get(key);
  if (!validator) {
    // The schema with the document's components beside it, so `#/components/schemas/…` resolves.
    validator = new Validator({ ...schema, components: document.components } as Schema, "2020-12", false);
    validators.set(key, validator);
  }
  return validator;
}

export class ConformanceError extends Error {
  override name = "ConformanceError";
}

/** Throws a ConformanceError when the exchange disagrees with the document; the response is left unread. */
export async function checkConformance(method: string, url: string, response: Response): Promise<void> {
  const path = new URL(url).pathname;
  if (NOT_IN_DOCUMENT.some((exclusion) => exclusion.pattern.test(path))) return;
  loaded ??= load();
  const { document, operations } = await loaded;
  // HEAD is the GET without its body (the router answers it so): the GET's statuses.
  const asMethod = method === "HEAD" ? "GET" : method;
  const entry = operations.find((candidate) => candidate.method === asMethod && candidate.pattern.test(path));
  const label = `${method} ${entry?.template ?? path}`;
  if (!entry) {
    // A method the path does not have: 405 method_not_allowed, Allow naming exactly the methods the
    // document gives the path (HEAD with GET).
    const others = operations.filter((candidate) => candidate.pattern.test(path)).map((candidate) => candidate.method);
    if (others.length > 0 && response.status === 405) {
      const allowed = [...new Set(others.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m])))];
      const header = (response.headers.get("allow") ?? "").split(",").map((m) => m.trim());
      const code = ((await readJson(response)) as { code?: string } | undefined)?.code;
      if (code === "method_not_allowed" && header.length === allowed.length && allowed.every((m) => header.includes(m))) return;
      throw new ConformanceError(`${label} → 405 ${code}: Allow "${header.join(", ")}" is not the document's ${allowed.join(", ")}`);
    }
    // A path the API does not have: the router's 404 route_not_found is the one answer,
    // or, on a host no tenant has, 404 tenant_not_found (the tenant is found before the route).
    if (response.status === 404) {
      const body = await readJson(response);
      const code = (body as { code?: string } | undefined)?.code;
      if (code === "tenant_not_found" || (code === "route_not_found" && others.length === 0)) return;
    }
    throw new ConformanceError(`${label} → ${response.status}: no operation of the OpenAPI document matches this request`);
  }
  const declared = entry.operation.responses[String(response.status)] ?? entry.operation.responses.default;
  if (!declared) {
    const body = await response.clone().text();
    throw new ConformanceError(
      `${label} → ${response.status}: status not declared (declared: ${Object.keys(entry.operation.responses).join(", ")}); body ${body.slice(0, 300)}`,
    );
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const hasBody = method !== "HEAD" && response.body !== null && response.status !== 204 && response.status !== 304;
  if (!hasBody || !declared.content) return;
  const media = declared.content[type];
  if (!media) {
    // An answer without a type says nothing of it when it is empty (never read a typed one: it may be a stream).
    if (type === "" && (await response.clone().text()) === "") return;
    throw new ConformanceError(
      `${label} → ${response.status}: content type ${type || "(none)"} not declared (declared: ${Object.keys(declared.content).join(", ")})`,
    );
  }
  if (!type.includes("json") || !media.schema) return;
  const body = await readJson(response);
  const result = validatorFor(document, `${entry.method} ${entry.template} ${response.status} ${type}`, media.schema).validate(body);
  if (!result.valid) {
    const errors = result.errors
      .filter((error) => error.keyword !== "properties" && error.keyword !== "$ref" && error.keyword !== "items")
      .slice(0, 5)
      .map((error) => `${error.instanceLocation}: ${error.error}`)
      .join("; ");
    throw new ConformanceError(`${label} → ${response.status}: body does not match the declared schema: ${errors}; body ${JSON.stringify(body).slice(0, 300)}`);
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.clone().text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

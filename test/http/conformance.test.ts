import { describe, expect, it } from "vitest";
import { TEST_DOMAIN } from "../support/api";
import { ConformanceError, checkConformance } from "../support/conformance";

const url = (path: string) => `http://acme.${TEST_DOMAIN}${path}`;
const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("conformance of every exchange with the OpenAPI document (test/support/conformance.ts)", () => {
  it("passes a declared status whose body matches its schema", async () => {
    await expect(checkConformance("GET", url("/api/v1/products/7"), json({ message: "Product not found.", code: "not_found" }, 404))).resolves.toBeUndefined();
  });

  it("fails a status the operation does not declare, naming the operation", async () => {
    const check = checkConformance("GET", url("/api/v1/products/7"), json({ message: "I'm a teapot", code: "conflict" }, 418));
    await expect(check).rejects.toThrow(ConformanceError);
    await expect(checkConformance("GET", url("/api/v1/products/7"), json({}, 418))).rejects.toThrow(
      /GET \/api\/v1\/products\/\{id\} → 418: status not declared/,
    );
  });

  it("fails a body off the declared schema, with the validation error", async () => {
    await expect(checkConformance("GET", url("/api/v1/products/7"), json({ message: "gone", code: "no_such_code" }, 404))).rejects.toThrow(
      /\/code: .*no_such_code/,
    );
    await expect(checkConformance("GET", url("/api/v1/products"), json({ data: [{ id: "seven" }] }, 200))).rejects.toThrow(
      /GET \/api\/v1\/products → 200: body does not match/,
    );
  });

  it("fails a request no operation has, unless the router answered route_not_found; non-API pages are excluded", async () => {
    await expect(
      checkConformance("GET", url("/api/v1/no-such-thing"), json({ message: "Route not found.", code: "route_not_found" }, 404)),
    ).resolves.toBeUndefined();
    await expect(checkConformance("GET", url("/api/v1/no-such-thing"), json({ ok: true }, 200))).rejects.toThrow(/no operation of the OpenAPI document/);
    await expect(checkConformance("GET", url("/health"), json({ status: "ok" }, 200))).resolves.toBeUndefined();
  });

  it("holds a method the path does not have to 405 method_not_allowed with Allow naming the document's methods", async () => {
    const refused = (allow: string, status = 405) =>
      new Response(JSON.stringify({ message: "No.", code: status === 405 ? "method_not_allowed" : "route_not_found" }), {
        status,
        headers: { "content-type": "application/json", allow },
      });
    await expect(checkConformance("PUT", url("/api/v1/products/7"), refused("GET, HEAD, PATCH, DELETE"))).resolves.toBeUndefined();
    await expect(checkConformance("PUT", url("/api/v1/products/7"), refused("GET, HEAD"))).rejects.toThrow(/Allow "GET, HEAD" is not the document's/);
    await expect(checkConformance("PUT", url("/api/v1/products/7"), refused("", 404))).rejects.toThrow(/no operation of the OpenAPI document/);
  });
});

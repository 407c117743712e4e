import swaggerUiPackage from "swagger-ui-dist/package.json";
import { describe, expect, it } from "vitest";
import { call } from "../support/api";
import { seedTenant } from "../support/seed";

const ASSETS = `/api/v1/docs/assets/${swaggerUiPackage.version}`;

describe("GET /api/v1/docs without internet", () => {
  it("loads Swagger UI from the Worker itself, never from a CDN", async () => {
    const tenant = await seedTenant();
    const res = await tenant.api.get("/docs");
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">`);
    expect(res.text).toContain(`<script src="${ASSETS}/swagger-ui-bundle.js"></script>`);
    expect(res.text).toContain('SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#docs" })');
    expect(res.text).not.toMatch(/https?:\/\//);
  });

  it("serves the bundle and the stylesheet with a year of immutable cache, on any host", async () => {
    const js = await call("no-such-tenant", `${ASSETS}/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.text).toContain("SwaggerUIBundle");
    expect(js.text.length).toBeGreaterThan(1_000_000);

    const css = await call("no-such-tenant", `${ASSETS}/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.text).toContain(".swagger-ui");
  });

  it("answers an unknown asset with 404 route_not_found", async () => {
    const res = await call("no-such-tenant", `${ASSETS}/index.html`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Route not found.", code: "route_not_found" });
  });
});

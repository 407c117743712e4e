import type { Context } from "hono";
import swaggerUiPackage from "swagger-ui-dist/package.json";

/**
 * Swagger UI's files, bundled into the Worker as text (wrangler.toml's Text rule for
 * swagger-ui-dist) and served by it, so the docs page works with no internet access (a laptop
 * running `npm run dev` offline, a network that blocks CDNs). The version is in the path: a new
 * swagger-ui-dist gets new URLs, so the files can be cached for a year as immutable.
 */
export const DOCS_ASSETS_PATH = `/api/v1/docs/assets/${swaggerUiPackage.version}`;
// Imported when first asked for: Node (scripts building the OpenAPI document, the node tests) loads
// this module too and has no Text rule for them, as src/modules/reception/service.ts does with xsd.ts.
const ASSETS: Record<string, { load: () => Promise<{ default: string }>; type: string }> = {
  "swagger-ui-bundle.js": { load: () => import("swagger-ui-dist/swagger-ui-bundle.js"), type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { load: () => import("swagger-ui-dist/swagger-ui.css"), type: "text/css; charset=utf-8" },
};

/** GET /api/v1/docs/assets/<version>/:file — the same for every tenant: no tenant, session or rate limit. */
export async function docsAsset(c: Context): Promise<Response> {
  const asset = Object.hasOwn(ASSETS, c.req.param("file") ?? "") ? ASSETS[c.req.param("file")!] : undefined;
  if (!asset) return c.json({ message: "Route not found.", code: "route_not_found" }, 404);
  return c.body((await asset.load()).default, 200, { "Content-Type": asset.type, "Cache-Control": "public, max-age=31536000, immutable" });
}

/** The Swagger UI page of GET /api/v1/docs, reading the OpenAPI document at `specUrl`. */
export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sucursal API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css"></head>
<body><div id="docs">The OpenAPI document is at <a href="${specUrl}">${specUrl}</a>.</div>
<script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script>if (window.SwaggerUIBundle) SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#docs" });</script>
</body></html>`;
}

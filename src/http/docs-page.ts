/** The Swagger UI page of GET /api/v1/docs, reading the OpenAPI document at `specUrl`. */
export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sucursal API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="https://unpkg.com/swagger-ui-dist@5/swagger-ui.css"></head>
<body><div id="docs">The OpenAPI document is at <a href="${specUrl}">${specUrl}</a>.</div>
<script src="https://unpkg.com/swagger-ui-dist@5/swagger-ui-bundle.js" crossorigin></script>
<script>if (window.SwaggerUIBundle) SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: "#docs" });</script>
</body></html>`;
}

// Swagger UI's browser bundle and stylesheet, imported as text (wrangler.toml's Text rule for
// swagger-ui-dist) so GET /api/v1/docs needs nothing from the internet.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}

import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse, WorkspaceFilter } from "../../http/schemas";
import { deletedEventData, emitEvent } from "../events/service";
import { CreateProductBody, PRODUCT_TYPES, Product, UpdateProductBody } from "./schemas";
import { createProduct, deleteProduct, getProduct, listProducts, serializeProduct, updateProduct } from "./service";

export const productsRouter = createRouter();
const tags = ["Products"];

const ProductListQuery = listQuerySchema({
  filters: {
    search: z.string().trim().min(1).max(100).optional(),
    product_type: z.enum(PRODUCT_TYPES).optional(),
    is_active: BooleanFilter,
    workspace_id: WorkspaceFilter,
  },
  sorts: ["name", "sku", "price", "created_at"] as const,
  defaultSort: "name",
});

const listRoute = defineRoute(
  { permission: "products:view" },
  {
    method: "get",
    path: `${V1}/products`,
    tags,
    summary: "List products visible in the request's workspace (filter[search] over name and sku)",
    request: { query: ProductListQuery },
    responses: { 200: jsonResponse("Products", paginated(Product)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listProducts(c.var.db, c.var.scope, query);
  return c.json(paginate(c, query, total, rows.map(serializeProduct)), 200);
};
productsRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "products:view" },
  {
    method: "get",
    path: `${V1}/products/{id}`,
    tags,
    summary: "Get a product",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The product", dataOnly(Product)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getProduct(c.var.db, c.var.scope, c.req.valid("param").id);
  return c.json({ data: serializeProduct(row) }, 200);
};
productsRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "products:create" },
  {
    method: "post",
    path: `${V1}/products`,
    tags,
    summary: "Create a product (shared by every workspace unless workspace_id is given)",
    request: jsonBody(CreateProductBody),
    responses: { 201: jsonResponse("Created", dataWithMessage(Product)), ...commonErrors },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const row = await createProduct(c.var.db, c.var.scope, c.req.valid("json"));
  return c.json({ data: serializeProduct(row), message: "Product created." }, 201);
};
productsRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "products:edit" },
  {
    method: "patch",
    path: `${V1}/products/{id}`,
    tags,
    summary: "Update a product (only the fields given)",
    request: { params: IdParam, ...jsonBody(UpdateProductBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(Product)), ...errorResponses(404), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateProduct(c.var.db, c.var.scope, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: serializeProduct(row), message: "Product updated." }, 200);
};
productsRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "products:delete" },
  {
    method: "delete",
    path: `${V1}/products/{id}`,
    tags,
    summary: "Delete a product (409 in_use when documents refer to it)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  const { workspaceId } = await deleteProduct(c.var.db, c.var.scope, id);
  // Incremental sync cannot see a deleted row: the event, in the delete's transaction, tells (docs/api.md).
  await emitEvent(c, "product.deleted", workspaceId, deletedEventData(id, workspaceId));
  return c.json({ message: "Product deleted." }, 200);
};
productsRouter.openapi(removeRoute, remove);

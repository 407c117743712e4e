import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import {
  AdjustmentItem,
  AdjustmentListQuery,
  CreateAdjustmentBody,
  CreatedTransfer,
  CreateTransferBody,
  InitialStockBody,
  LowStockItem,
  LowStockQuery,
  MinimumBody,
  MovementItem,
  MovementReportItem,
  MovementReportQuery,
  ProductStock,
  TransferListQuery,
} from "./schemas";
import * as inventory from "./service";

export const inventoryRouter = createRouter();
const tags = ["Inventory"];
const view = { permission: "inventory:view" } as const;

const listTransfersRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/stock-transfers`,
  tags,
  summary: "Transfer movements of the request's workspace",
  request: { query: TransferListQuery },
  responses: { 200: jsonResponse("Transfers", paginated(MovementItem)), ...commonErrors },
});
export const listTransfers: AppRouteHandler<typeof listTransfersRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await inventory.listTransfers(c.var.db, c.var.scope, query);
  return c.json(paginate(c, query, total, data), 200);
};
inventoryRouter.openapi(listTransfersRoute, listTransfers);

const getTransferRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/stock-transfers/{id}`,
  tags,
  summary: "One transfer movement, with the product's current stock",
  request: { params: IdParam },
  responses: { 200: jsonResponse("Transfer", dataOnly(MovementItem)), ...errorResponses(404), ...commonErrors },
});
export const getTransfer: AppRouteHandler<typeof getTransferRoute> = async (c) =>
  c.json({ data: await inventory.getTransfer(c.var.db, c.var.scope, c.req.valid("param").id) }, 200);
inventoryRouter.openapi(getTransferRoute, getTransfer);

const createTransferRoute = defineRoute(
  { permission: "inventory:transfer" },
  {
    method: "post",
    path: `${V1}/stock-transfers`,
    tags,
    summary: "Move stock from the request's workspace to another",
    request: jsonBody(CreateTransferBody),
    responses: { 201: jsonResponse("Transfer made", CreatedTransfer), ...commonErrors },
  },
);
export const createTransfer: AppRouteHandler<typeof createTransferRoute> = async (c) => {
  const data = await inventory.createTransfer(c.var.db, c.var.scope, c.req.valid("json"));
  return c.json({ data, message: "Stock transferred." }, 201);
};
inventoryRouter.openapi(createTransferRoute, createTransfer);

const listAdjustmentsRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/inventory-adjustments`,
  tags,
  summary: "Adjustments of the request's workspace",
  request: { query: AdjustmentListQuery },
  responses: { 200: jsonResponse("Adjustments", paginated(AdjustmentItem)), ...commonErrors },
});
export const listAdjustments: AppRouteHandler<typeof listAdjustmentsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await inventory.listAdjustments(c.var.db, c.var.scope, query);
  return c.json(paginate(c, query, total, data), 200);
};
inventoryRouter.openapi(listAdjustmentsRoute, listAdjustments);

const getAdjustmentRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/inventory-adjustments/{id}`,
  tags,
  summary: "One adjustment with its items",
  request: { params: IdParam },
  responses: { 200: jsonResponse("Adjustment", dataOnly(AdjustmentItem)), ...errorResponses(404), ...commonErrors },
});
export const getAdjustment: AppRouteHandler<typeof getAdjustmentRoute> = async (c) =>
  c.json({ data: await inventory.getAdjustment(c.var.db, c.var.scope, c.req.valid("param").id) }, 200);
inventoryRouter.openapi(getAdjustmentRoute, getAdjustment);

const createAdjustmentRoute = defineRoute(
  { permission: "inventory:adjust" },
  {
    method: "post",
    path: `${V1}/inventory-adjustments`,
    tags,
    summary: "Adjust stock in the request's workspace",
    request: jsonBody(CreateAdjustmentBody),
    responses: { 201: jsonResponse("Adjustment made", dataWithMessage(AdjustmentItem)), ...commonErrors },
  },
);
export const createAdjustment: AppRouteHandler<typeof createAdjustmentRoute> = async (c) => {
  const data = await inventory.createAdjustment(c.var.db, c.var.scope, c.req.valid("json"));
  return c.json({ data, message: "Inventory adjusted." }, 201);
};
inventoryRouter.openapi(createAdjustmentRoute, createAdjustment);

const setInitialStockRoute = defineRoute(
  { permission: "inventory:adjust" },
  {
    method: "post",
    path: `${V1}/inventory/initial-stock`,
    tags,
    summary: "Set the opening stock of products in the request's workspace",
    request: jsonBody(InitialStockBody),
    responses: {
      201: jsonResponse(
        "Initial stock set",
        z.object({ message: z.string(), summary: z.object({ total_products: z.number(), total_quantity: z.string(), total_value: z.string() }) }),
      ),
      ...errorResponses(409),
      ...commonErrors,
    },
  },
);
export const setInitialStock: AppRouteHandler<typeof setInitialStockRoute> = async (c) => {
  const summary = await inventory.setInitialStock(c.var.db, c.var.scope, c.req.valid("json"));
  return c.json({ message: "Initial stock set.", summary }, 201);
};
inventoryRouter.openapi(setInitialStockRoute, setInitialStock);

const getProductStockRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/products/{id}/stock`,
  tags,
  summary: "A product's stock in each workspace the caller can see",
  request: { params: IdParam },
  responses: { 200: jsonResponse("Stock by workspace", dataOnly(ProductStock)), ...errorResponses(404), ...commonErrors },
});
export const getProductStock: AppRouteHandler<typeof getProductStockRoute> = async (c) =>
  c.json({ data: await inventory.productStock(c.var.db, c.var.scope, c.req.valid("param").id) }, 200);
inventoryRouter.openapi(getProductStockRoute, getProductStock);

const setMinimumStockRoute = defineRoute(
  { permission: "inventory:adjust" },
  {
    method: "put",
    path: `${V1}/products/{id}/stock/minimum`,
    tags,
    summary: "Set the low-stock threshold of a product in a workspace",
    request: { params: IdParam, ...jsonBody(MinimumBody) },
    responses: { 200: jsonResponse("Minimum set", MessageResponse), ...errorResponses(404), ...commonErrors },
  },
);
export const setMinimumStock: AppRouteHandler<typeof setMinimumStockRoute> = async (c) => {
  const body = c.req.valid("json");
  await inventory.setMinimum(c.var.db, c.var.scope, c.req.valid("param").id, body.workspace_id, body.minimum_quantity);
  return c.json({ message: "Minimum quantity set." }, 200);
};
inventoryRouter.openapi(setMinimumStockRoute, setMinimumStock);

const listLowStockRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/inventory/low-stock`,
  tags,
  summary: "Products at or below their minimum in a workspace (default: the request's)",
  request: { query: LowStockQuery },
  responses: { 200: jsonResponse("Low-stock items", z.object({ data: z.array(LowStockItem) })), ...commonErrors },
});
export const listLowStock: AppRouteHandler<typeof listLowStockRoute> = async (c) => {
  const scope = c.var.scope;
  const data = await inventory.lowStock(c.var.db, scope, c.req.valid("query").workspace_id ?? scope.workspaceId);
  return c.json({ data }, 200);
};
inventoryRouter.openapi(listLowStockRoute, listLowStock);

const listMovementsRoute = defineRoute(view, {
  method: "get",
  path: `${V1}/inventory/movements`,
  tags,
  summary: "Stock movements report of a workspace (default: the request's)",
  request: { query: MovementReportQuery },
  responses: { 200: jsonResponse("Movements", paginated(MovementReportItem)), ...commonErrors },
});
export const listMovements: AppRouteHandler<typeof listMovementsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await inventory.movementReport(c.var.db, c.var.scope, query);
  return c.json(paginate(c, { page: query.page, perPage: query.per_page }, total, data), 200);
};
inventoryRouter.openapi(listMovementsRoute, listMovements);

import { config } from "../../env";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { queueAfterCommit } from "../events/service";
import {
  CreateEndpointBody,
  DeliveryListQuery,
  EndpointListQuery,
  EndpointParam,
  EventListQuery,
  EventParam,
  ResendEventBody,
  ResentEvent,
  UpdateEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEvent,
} from "./schemas";
import * as webhooks from "./service";

/** Outgoing webhook endpoints of the tenant (issue 21, docs/webhooks.md). */
export const webhooksRouter = createRouter();

const MANAGE = { permission: "webhooks:manage", level: "company" } as const;
const tags = ["Webhooks"];
const path = `${V1}/webhook-endpoints`;

const listEndpointsRoute = defineRoute(MANAGE, {
  method: "get",
  path,
  tags,
  summary: "The tenant's webhook endpoints (never their secrets)",
  request: { query: EndpointListQuery },
  responses: { 200: jsonResponse("Endpoints", paginated(WebhookEndpoint)), ...commonErrors },
});
export const listEndpoints: AppRouteHandler<typeof listEndpointsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await webhooks.listEndpoints(c.var.db, c.get("tenant").id, query);
  return c.json(
    paginate(
      c,
      query,
      total,
      rows.map((row) => webhooks.serializeEndpoint(row)),
    ),
    200,
  );
};
webhooksRouter.openapi(listEndpointsRoute, listEndpoints);

const createEndpointRoute = defineRoute(MANAGE, {
  method: "post",
  path,
  tags,
  summary: "Add a webhook endpoint; its signing secret (whsec_…) is in this response only",
  request: jsonBody(CreateEndpointBody),
  responses: { 201: jsonResponse("Created", dataWithMessage(WebhookEndpointWithSecret)), ...commonErrors },
});
export const createEndpoint: AppRouteHandler<typeof createEndpointRoute> = async (c) => {
  const { row, secret } = await webhooks.createEndpoint(c.var.db, c.env, c.get("tenant").id, c.req.valid("json"));
  return c.json(
    { data: { ...webhooks.serializeEndpoint(row), secret }, message: "Webhook endpoint created. Store its secret now: it is not shown again." },
    201,
  );
};
webhooksRouter.openapi(createEndpointRoute, createEndpoint);

const getEndpointRoute = defineRoute(MANAGE, {
  method: "get",
  path: `${path}/{id}`,
  tags,
  summary: "A webhook endpoint (never its secret)",
  request: { params: EndpointParam },
  responses: { 200: jsonResponse("The endpoint", dataOnly(WebhookEndpoint)), ...errorResponses(404), ...commonErrors },
});
export const getEndpoint: AppRouteHandler<typeof getEndpointRoute> = async (c) =>
  c.json({ data: webhooks.serializeEndpoint(await webhooks.getEndpoint(c.var.db, c.get("tenant").id, c.req.valid("param").id)) }, 200);
webhooksRouter.openapi(getEndpointRoute, getEndpoint);

const updateEndpointRoute = defineRoute(MANAGE, {
  method: "patch",
  path: `${path}/{id}`,
  tags,
  summary: "Change a webhook endpoint (only the fields given)",
  request: { params: EndpointParam, ...jsonBody(UpdateEndpointBody) },
  responses: { 200: jsonResponse("Updated", dataWithMessage(WebhookEndpoint)), ...errorResponses(404), ...commonErrors },
});
export const updateEndpoint: AppRouteHandler<typeof updateEndpointRoute> = async (c) => {
  const row = await webhooks.updateEndpoint(c.var.db, c.env, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: webhooks.serializeEndpoint(row), message: "Webhook endpoint updated." }, 200);
};
webhooksRouter.openapi(updateEndpointRoute, updateEndpoint);

const deleteEndpointRoute = defineRoute(MANAGE, {
  method: "delete",
  path: `${path}/{id}`,
  tags,
  summary: "Delete a webhook endpoint and its deliveries",
  request: { params: EndpointParam },
  responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404), ...commonErrors },
});
export const deleteEndpoint: AppRouteHandler<typeof deleteEndpointRoute> = async (c) => {
  await webhooks.deleteEndpoint(c.var.db, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ message: "Webhook endpoint deleted." }, 200);
};
webhooksRouter.openapi(deleteEndpointRoute, deleteEndpoint);

const rotateSecretRoute = defineRoute(MANAGE, {
  method: "post",
  path: `${path}/{id}/rotate-secret`,
  tags,
  summary: "A new signing secret (in this response only); the previous one keeps signing alongside for 24 h",
  request: { params: EndpointParam },
  responses: { 200: jsonResponse("Rotated", dataWithMessage(WebhookEndpointWithSecret)), ...errorResponses(404), ...commonErrors },
});
export const rotateSecret: AppRouteHandler<typeof rotateSecretRoute> = async (c) => {
  const { row, secret } = await webhooks.rotateSecret(c.var.db, c.env, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ data: { ...webhooks.serializeEndpoint(row), secret }, message: "Secret rotated. The previous secret also signs for 24 hours." }, 200);
};
webhooksRouter.openapi(rotateSecretRoute, rotateSecret);

const listDeliveriesRoute = defineRoute(MANAGE, {
  method: "get",
  path: `${path}/{id}/deliveries`,
  tags,
  summary: "An endpoint's deliveries, newest first, with every attempt (status code, duration, the response's first 1 KB)",
  request: { params: EndpointParam, query: DeliveryListQuery },
  responses: { 200: jsonResponse("Deliveries", paginated(WebhookDelivery)), ...errorResponses(404), ...commonErrors },
});
export const listDeliveries: AppRouteHandler<typeof listDeliveriesRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await webhooks.listDeliveries(c.var.db, c.get("tenant").id, c.req.valid("param").id, query);
  return c.json(paginate(c, query, total, data), 200);
};
webhooksRouter.openapi(listDeliveriesRoute, listDeliveries);

// The event log. Admin-only like the endpoints: an event carries every workspace's data.
const eventsPath = `${V1}/events`;
const eventTags = ["Webhooks"];

const listEventsRoute = defineRoute(MANAGE, {
  method: "get",
  path: eventsPath,
  tags: eventTags,
  summary: "The tenant's events of the last 30 days (every workspace's), whether or not an endpoint listens; filter by type and resource",
  request: { query: EventListQuery },
  responses: { 200: jsonResponse("Events", paginated(WebhookEvent)), ...commonErrors },
});
export const listEvents: AppRouteHandler<typeof listEventsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await webhooks.listEvents(c.var.db, c.get("tenant").id, query);
  return c.json(
    paginate(
      c,
      query,
      total,
      rows.map((row) => webhooks.serializeEvent(row, config(c.env))),
    ),
    200,
  );
};
webhooksRouter.openapi(listEventsRoute, listEvents);

const resendEventRoute = defineRoute(MANAGE, {
  method: "post",
  path: `${eventsPath}/{id}/resend`,
  tags: eventTags,
  summary: "Deliver an event again, with the same id, to every enabled endpoint subscribed to it (or to endpoint_id)",
  request: { params: EventParam, body: { content: { "application/json": { schema: ResendEventBody } }, required: false } },
  responses: { 202: jsonResponse("Queued", dataWithMessage(ResentEvent)), ...errorResponses(404, 410), ...commonErrors },
});
export const resendEvent: AppRouteHandler<typeof resendEventRoute> = async (c) => {
  const db = c.var.db;
  const body = c.req.valid("json") ?? {};
  const { event, deliveries } = await webhooks.resendEvent(db, c.get("tenant").id, c.req.valid("param").id, body.endpoint_id);
  queueAfterCommit(
    db,
    deliveries.map((row) => row.id),
  );
  return c.json(
    {
      data: { event_id: event.publicId, deliveries: deliveries.map((row) => ({ id: row.id, endpoint_id: row.endpointId })) },
      message: `Event queued for ${deliveries.length} endpoint(s).`,
    },
    202,
  );
};
webhooksRouter.openapi(resendEventRoute, resendEvent);

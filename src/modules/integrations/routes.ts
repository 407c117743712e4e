import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/context";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { canonicalId, INT4_MAX } from "../../lib/bounds";
import { AppError } from "../../lib/errors";
import { deletedEventData, emitEvent } from "../events/service";
import { createBot, deleteBot, getBot, type IntegrationScope, listBots, receiveBotUpdate, sendTestMessage, serializeBot, updateBot } from "./bots";
import {
  createAccount,
  createTemplate,
  deleteAccount,
  getAccount,
  listAccounts,
  listTemplates,
  receiveAccountEvent,
  sendTemplateMessage,
  serializeAccount,
  serializeTemplate,
  syncTemplates,
  updateAccount,
  verifySubscription,
} from "./chat-accounts";
import {
  AccountParam,
  BotParam,
  ChatAccount,
  ChatTemplate,
  CreateAccountBody,
  CreateBotBody,
  CreateTemplateBody,
  MessagingBot,
  SendMessageBody,
  SendMessageResult,
  TestMessageBody,
  TestMessageResult,
  UpdateAccountBody,
  UpdateBotBody,
} from "./schemas";

/**
 * Integrations (issue 8), at the tenant host root as SPEC "Integrations" writes them: messaging
 * bots and chat-platform accounts of the request's workspace, and the platforms' inbound webhooks.
 */
export const integrationsRouter = createRouter();

const VIEW = { permission: "integrations:view" } as const;
const MANAGE = { permission: "integrations:manage" } as const;
const botTags = ["Messaging bots"];
const accountTags = ["Chat accounts"];

function scopeOf(c: Context<AppEnv>): IntegrationScope {
  return { tenantId: c.get("tenant").id, workspaceId: requireWorkspace(c).id, origin: new URL(c.req.url).origin, requestId: c.get("requestId") };
}

const ListQuery = listQuerySchema({ filters: { is_active: BooleanFilter }, sorts: ["id", "name", "created_at"] as const, defaultSort: "name" });
const platformError = errorResponses(502);

// ---- Messaging bots

const listBotsRouteRoute = defineRoute(VIEW, {
  method: "get",
  path: "/api/messaging-bots",
  tags: botTags,
  summary: "Messaging bots of the request's workspace (never their tokens)",
  request: { query: ListQuery },
  responses: { 200: jsonResponse("Bots", paginated(MessagingBot)), ...commonErrors },
});
export const listBotsRoute: AppRouteHandler<typeof listBotsRouteRoute> = async (c) => {
  const query = c.req.valid("query");
  const scope = scopeOf(c);
  const { rows, total } = await listBots(c.var.db, scope, query);
  return c.json(
    paginate(
      c,
      query,
      total,
      rows.map((r) => serializeBot(r, scope.origin)),
    ),
    200,
  );
};
integrationsRouter.openapi(listBotsRouteRoute, listBotsRoute);

const createBotRouteRoute = defineRoute(MANAGE, {
  method: "post",
  path: "/api/messaging-bots",
  tags: botTags,
  summary: "Add a messaging bot to the request's workspace (the token is checked with the platform and stored encrypted)",
  request: jsonBody(CreateBotBody),
  responses: { 201: jsonResponse("Created", dataWithMessage(MessagingBot)), ...platformError, ...commonErrors },
});
export const createBotRoute: AppRouteHandler<typeof createBotRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const row = await createBot(c.var.db, c.env, scope, c.req.valid("json"));
  return c.json({ data: serializeBot(row, scope.origin), message: "Messaging bot created." }, 201);
};
integrationsRouter.openapi(createBotRouteRoute, createBotRoute);

const getBotRouteRoute = defineRoute(VIEW, {
  method: "get",
  path: "/api/messaging-bots/{bot}",
  tags: botTags,
  summary: "A messaging bot of the request's workspace",
  request: { params: BotParam },
  responses: { 200: jsonResponse("The bot", dataOnly(MessagingBot)), ...errorResponses(404), ...commonErrors },
});
export const getBotRoute: AppRouteHandler<typeof getBotRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const row = await getBot(c.var.db, scope, c.req.valid("param").bot);
  return c.json({ data: serializeBot(row, scope.origin) }, 200);
};
integrationsRouter.openapi(getBotRouteRoute, getBotRoute);

const updateBotRouteRoute = defineRoute(MANAGE, {
  method: "patch",
  path: "/api/messaging-bots/{bot}",
  tags: botTags,
  summary: "Update a messaging bot (only the fields given; a new token is checked, the webhook re-registered)",
  request: { params: BotParam, ...jsonBody(UpdateBotBody) },
  responses: { 200: jsonResponse("Updated", dataWithMessage(MessagingBot)), ...errorResponses(404), ...platformError, ...commonErrors },
});
export const updateBotRoute: AppRouteHandler<typeof updateBotRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const row = await updateBot(c.var.db, c.env, scope, c.req.valid("param").bot, c.req.valid("json"));
  return c.json({ data: serializeBot(row, scope.origin), message: "Messaging bot updated." }, 200);
};
integrationsRouter.openapi(updateBotRouteRoute, updateBotRoute);

const deleteBotRouteRoute = defineRoute(MANAGE, {
  method: "delete",
  path: "/api/messaging-bots/{bot}",
  tags: botTags,
  summary: "Delete a messaging bot (its webhook is removed from the platform when possible)",
  request: { params: BotParam },
  responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404), ...commonErrors },
});
export const deleteBotRoute: AppRouteHandler<typeof deleteBotRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const id = c.req.valid("param").bot;
  await deleteBot(c.var.db, c.env, scope, id);
  // It leaves the list: the event tells a syncing client (docs/api.md, Deletions).
  await emitEvent(c, "messaging_bot.deleted", scope.workspaceId, deletedEventData(id, scope.workspaceId));
  return c.json({ message: "Messaging bot deleted." }, 200);
};
integrationsRouter.openapi(deleteBotRouteRoute, deleteBotRoute);

const testBotRouteRoute = defineRoute(MANAGE, {
  method: "post",
  path: "/messaging-bots/{bot}/test",
  tags: botTags,
  summary: "Send a test message through a bot (a platform error is 502 integration_failed with its description)",
  request: { params: BotParam, ...jsonBody(TestMessageBody) },
  responses: { 200: jsonResponse("Sent", TestMessageResult), ...errorResponses(404), ...platformError, ...commonErrors },
});
export const testBotRoute: AppRouteHandler<typeof testBotRouteRoute> = async (c) => {
  const body = c.req.valid("json");
  const data = await sendTestMessage(c.var.db, c.env, scopeOf(c), c.req.valid("param").bot, body.chat_id, body.message);
  return c.json({ data, message: "Test message sent." }, 200);
};
integrationsRouter.openapi(testBotRouteRoute, testBotRoute);

/**
 * The endpoint id of a webhook path, written canonically ("1", never "01", "0x1", "+1", "1.0" or
 * " 1", which Number() would all read as 1): any other spelling is no route (404), so one endpoint
 * has one URL and one rate-limit bucket (src/http/rate-limit.ts parses it the same way).
 */
function webhookId(text: string): number {
  const id = canonicalId(text);
  if (id === null) throw new AppError("route_not_found", "Route not found.");
  return id;
}

/** A platform's inbound id: checked by webhookId (anything else is 404 route_not_found, as an unknown path). */
const inboundId = { type: "integer", minimum: 1, maximum: INT4_MAX, example: 1 } as const;

const WebhookBotParam = z.object({ bot: z.string().openapi({ param: { name: "bot", in: "path" }, ...inboundId }) });
const Received = z.object({ ok: z.boolean() }).openapi("WebhookReceived");

const botWebhookRouteRoute = defineRoute("public", {
  method: "post",
  path: "/webhooks/messaging-bots/{bot}",
  tags: botTags,
  summary: "Inbound updates of a bot; X-Telegram-Bot-Api-Secret-Token must carry the bot's webhook secret (else 403)",
  request: { params: WebhookBotParam },
  responses: { 200: jsonResponse("Accepted", Received), ...errorResponses(403, 404) },
});
export const botWebhookRoute: AppRouteHandler<typeof botWebhookRouteRoute> = async (c) => {
  const bot = webhookId(c.req.valid("param").bot);
  // The raw body first: nothing parses it before the secret is checked.
  const raw = await c.req.text();
  await receiveBotUpdate(c.var.db, c.env, c.get("tenant").id, bot, c.req.header("x-telegram-bot-api-secret-token"), raw);
  return c.json({ ok: true }, 200);
};
integrationsRouter.openapi(botWebhookRouteRoute, botWebhookRoute);

// ---- Chat-platform accounts

const listAccountsRouteRoute = defineRoute(VIEW, {
  method: "get",
  path: "/api/chat-accounts",
  tags: accountTags,
  summary: "Chat-platform accounts of the request's workspace (never their secrets)",
  request: { query: ListQuery },
  responses: { 200: jsonResponse("Accounts", paginated(ChatAccount)), ...commonErrors },
});
export const listAccountsRoute: AppRouteHandler<typeof listAccountsRouteRoute> = async (c) => {
  const query = c.req.valid("query");
  const scope = scopeOf(c);
  const { rows, total } = await listAccounts(c.var.db, scope, query);
  return c.json(
    paginate(
      c,
      query,
      total,
      rows.map((r) => serializeAccount(r, scope.origin)),
    ),
    200,
  );
};
integrationsRouter.openapi(listAccountsRouteRoute, listAccountsRoute);

const createAccountRouteRoute = defineRoute(MANAGE, {
  method: "post",
  path: "/api/chat-accounts",
  tags: accountTags,
  summary: "Add a chat-platform account to the request's workspace (secrets stored encrypted)",
  request: jsonBody(CreateAccountBody),
  responses: { 201: jsonResponse("Created", dataWithMessage(ChatAccount)), ...commonErrors, ...errorResponses(409) },
});
export const createAccountRoute: AppRouteHandler<typeof createAccountRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const row = await createAccount(c.var.db, c.env, scope, c.req.valid("json"));
  return c.json({ data: serializeAccount(row, scope.origin), message: "Chat account created." }, 201);
};
integrationsRouter.openapi(createAccountRouteRoute, createAccountRoute);

const getAccountRouteRoute = defineRoute(VIEW, {
  method: "get",
  path: "/api/chat-accounts/{account}",
  tags: accountTags,
  summary: "A chat-platform account of the request's workspace",
  request: { params: AccountParam },
  responses: { 200: jsonResponse("The account", dataOnly(ChatAccount)), ...errorResponses(404), ...commonErrors },
});
export const getAccountRoute: AppRouteHandler<typeof getAccountRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const row = await getAccount(c.var.db, scope, c.req.valid("param").account);
  return c.json({ data: serializeAccount(row, scope.origin) }, 200);
};
integrationsRouter.openapi(getAccountRouteRoute, getAccountRoute);

const updateAccountRouteRoute = defineRoute(MANAGE, {
  method: "patch",
  path: "/api/chat-accounts/{account}",
  tags: accountTags,
  summary: "Update a chat-platform account (only the fields given; secrets may be rotated)",
  request: { params: AccountParam, ...jsonBody(UpdateAccountBody) },
  responses: { 200: jsonResponse("Updated", dataWithMessage(ChatAccount)), ...errorResponses(404, 409), ...commonErrors },
});
export const updateAccountRoute: AppRouteHandler<typeof updateAccountRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const row = await updateAccount(c.var.db, c.env, scope, c.req.valid("param").account, c.req.valid("json"));
  return c.json({ data: serializeAccount(row, scope.origin), message: "Chat account updated." }, 200);
};
integrationsRouter.openapi(updateAccountRouteRoute, updateAccountRoute);

const deleteAccountRouteRoute = defineRoute(MANAGE, {
  method: "delete",
  path: "/api/chat-accounts/{account}",
  tags: accountTags,
  summary: "Delete a chat-platform account with its templates",
  request: { params: AccountParam },
  responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404), ...commonErrors },
});
export const deleteAccountRoute: AppRouteHandler<typeof deleteAccountRouteRoute> = async (c) => {
  const scope = scopeOf(c);
  const id = c.req.valid("param").account;
  await deleteAccount(c.var.db, scope, id);
  // It leaves the list: the event tells a syncing client (docs/api.md, Deletions).
  await emitEvent(c, "chat_account.deleted", scope.workspaceId, deletedEventData(id, scope.workspaceId));
  return c.json({ message: "Chat account deleted." }, 200);
};
integrationsRouter.openapi(deleteAccountRouteRoute, deleteAccountRoute);

const listTemplatesRouteRoute = defineRoute(VIEW, {
  method: "get",
  path: "/api/chat-accounts/{account}/templates",
  tags: accountTags,
  summary: "Message templates of a chat account, with their approval status",
  request: { params: AccountParam },
  responses: { 200: jsonResponse("Templates", dataOnly(z.array(ChatTemplate))), ...errorResponses(404), ...commonErrors },
});
export const listTemplatesRoute: AppRouteHandler<typeof listTemplatesRouteRoute> = async (c) => {
  const rows = await listTemplates(c.var.db, scopeOf(c), c.req.valid("param").account);
  return c.json({ data: rows.map(serializeTemplate) }, 200);
};
integrationsRouter.openapi(listTemplatesRouteRoute, listTemplatesRoute);

const createTemplateRouteRoute = defineRoute(MANAGE, {
  method: "post",
  path: "/api/chat-accounts/{account}/templates",
  tags: accountTags,
  summary: "Submit a message template for approval (stored PENDING)",
  request: { params: AccountParam, ...jsonBody(CreateTemplateBody) },
  responses: { 201: jsonResponse("Submitted", dataWithMessage(ChatTemplate)), ...errorResponses(404), ...platformError, ...commonErrors },
});
export const createTemplateRoute: AppRouteHandler<typeof createTemplateRouteRoute> = async (c) => {
  const row = await createTemplate(c.var.db, c.env, scopeOf(c), c.req.valid("param").account, c.req.valid("json"));
  return c.json({ data: serializeTemplate(row), message: "Template submitted for approval." }, 201);
};
integrationsRouter.openapi(createTemplateRouteRoute, createTemplateRoute);

const syncTemplatesRouteRoute = defineRoute(MANAGE, {
  method: "post",
  path: "/api/chat-accounts/{account}/templates/sync",
  tags: accountTags,
  summary: "Refresh template statuses from the platform",
  request: { params: AccountParam },
  responses: { 200: jsonResponse("Synchronized", dataWithMessage(z.array(ChatTemplate))), ...errorResponses(404), ...platformError, ...commonErrors },
});
export const syncTemplatesRoute: AppRouteHandler<typeof syncTemplatesRouteRoute> = async (c) => {
  const rows = await syncTemplates(c.var.db, c.env, scopeOf(c), c.req.valid("param").account);
  return c.json({ data: rows.map(serializeTemplate), message: `${rows.length} templates synchronized.` }, 200);
};
integrationsRouter.openapi(syncTemplatesRouteRoute, syncTemplatesRoute);

const sendMessageRouteRoute = defineRoute(MANAGE, {
  method: "post",
  path: "/api/chat-accounts/{account}/messages",
  tags: accountTags,
  summary: "Send an approved template (422 template_not_approved otherwise)",
  request: { params: AccountParam, ...jsonBody(SendMessageBody) },
  responses: { 200: jsonResponse("Sent", SendMessageResult), ...errorResponses(404), ...platformError, ...commonErrors },
});
export const sendMessageRoute: AppRouteHandler<typeof sendMessageRouteRoute> = async (c) => {
  const data = await sendTemplateMessage(c.var.db, c.env, scopeOf(c), c.req.valid("param").account, c.req.valid("json"));
  return c.json({ data, message: "Message sent." }, 200);
};
integrationsRouter.openapi(sendMessageRouteRoute, sendMessageRoute);

const WebhookAccountParam = z.object({ account: z.string().openapi({ param: { name: "account", in: "path" }, ...inboundId }) });
const VerificationQuery = z.object({
  "hub.mode": z.string().optional(),
  "hub.verify_token": z.string().optional(),
  "hub.challenge": z.string().optional(),
});

const verifyAccountWebhookRouteRoute = defineRoute("public", {
  method: "get",
  path: "/webhooks/chat-accounts/{account}",
  tags: accountTags,
  summary: "The platform's webhook verification: hub.mode=subscribe and the account's verify token → hub.challenge (else 403)",
  request: { params: WebhookAccountParam, query: VerificationQuery },
  responses: { 200: { description: "The challenge", content: { "text/plain": { schema: z.string() } } }, ...errorResponses(403, 404) },
});
export const verifyAccountWebhookRoute: AppRouteHandler<typeof verifyAccountWebhookRouteRoute> = async (c) => {
  const account = webhookId(c.req.valid("param").account);
  const challenge = await verifySubscription(c.var.db, c.env, c.get("tenant").id, account, c.req.valid("query"));
  return c.text(challenge, 200);
};
integrationsRouter.openapi(verifyAccountWebhookRouteRoute, verifyAccountWebhookRoute);

const accountWebhookRouteRoute = defineRoute("public", {
  method: "post",
  path: "/webhooks/chat-accounts/{account}",
  tags: accountTags,
  summary: "Inbound events of a chat account; X-Hub-Signature-256 must be the HMAC-SHA256 of the raw body with the app secret (else 403)",
  request: { params: WebhookAccountParam },
  responses: { 200: jsonResponse("Accepted", Received), ...errorResponses(403, 404) },
});
export const accountWebhookRoute: AppRouteHandler<typeof accountWebhookRouteRoute> = async (c) => {
  const account = webhookId(c.req.valid("param").account);
  // The signature covers the exact bytes received: read them before anything parses the body.
  const raw = new Uint8Array(await c.req.arrayBuffer());
  await receiveAccountEvent(c.var.db, c.env, c.get("tenant").id, account, c.req.header("x-hub-signature-256"), raw);
  return c.json({ ok: true }, 200);
};
integrationsRouter.openapi(accountWebhookRouteRoute, accountWebhookRoute);

import { and, eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow, orderBy, type Page, pageOf } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { config, type Env } from "../../env";
import type { ListQuery } from "../../http/pagination";
import { decryptSecret, encryptSecret, last4, randomSecret, secretsEqual } from "../../lib/crypto";
import { AppError, fieldError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { log } from "../../lib/log";
import {
  type BotIdentity,
  integrationFailed,
  jsonObjectBody,
  PlatformError,
  telegramDeleteWebhook,
  telegramGetMe,
  telegramSendMessage,
  telegramSetWebhook,
} from "./platforms";
import type { CreateBotInput, UpdateBotInput } from "./schemas";

const b = schema.messagingBots;
type BotRow = typeof b.$inferSelect;

export interface IntegrationScope {
  tenantId: number;
  workspaceId: number;
  /** Origin of the tenant's host, for inbound URLs: `https://acme.sucursal.do`. */
  origin: string;
  requestId: string;
}

const botInboundUrl = (origin: string, id: number) => `${origin}/webhooks/messaging-bots/${id}`;

/** The public shape: never the token nor the webhook secret. */
export function serializeBot(row: BotRow, origin: string) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    token_last4: row.tokenLast4,
    webhook_url: row.webhookUrl,
    inbound_url: botInboundUrl(origin, row.id),
    platform_username: row.platformUsername,
    is_active: row.isActive,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type BotSort = "id" | "name" | "created_at";

export async function listBots(db: AnyDb, scope: IntegrationScope, query: ListQuery<"is_active", BotSort>): Promise<Page<BotRow>> {
  const where = and(
    eq(b.tenantId, scope.tenantId),
    eq(b.workspaceId, scope.workspaceId),
    query.filters.is_active ? eq(b.isActive, query.filters.is_active === "true") : undefined,
  );
  const column = { id: b.id, name: b.name, created_at: b.createdAt, updated_at: b.updatedAt }[query.sort.field];
  return pageOf(db, b, where, orderBy(column, b.id, query.sort.descending), query);
}

/** A bot of the request's workspace; another workspace's (or tenant's) is 404. */
export async function getBot(db: AnyDb, scope: Pick<IntegrationScope, "tenantId" | "workspaceId">, id: number, lock = false): Promise<BotRow> {
  return findRow(db, b, and(eq(b.tenantId, scope.tenantId), eq(b.workspaceId, scope.workspaceId), eq(b.id, id)), "Messaging bot", lock);
}

/** getMe: a refused token is the caller's mistake (422 on `token`); anything else is the platform's (502). */
async function identify(env: Env, token: string, scope: IntegrationScope): Promise<BotIdentity> {
  try {
    return await telegramGetMe(env, token);
  } catch (error) {
    if (error instanceof PlatformError && error.status !== null && [401, 403, 404].includes(error.status)) {
      throw fieldError("token", `The messaging platform refused this token (${error.description}).`);
    }
    throw integrationFailed(error, "check the bot token", { requestId: scope.requestId });
  }
}

async function registerWebhook(env: Env, token: string, url: string, secret: string, scope: IntegrationScope, botId: number) {
  try {
    await telegramSetWebhook(env, token, url, secret);
  } catch (error) {
    throw integrationFailed(error, "register the webhook", { requestId: scope.requestId, botId });
  }
}

export async function createBot(db: AnyDb, env: Env, scope: IntegrationScope, input: CreateBotInput): Promise<BotRow> {
  const identity = await identify(env, input.token, scope);
  const secret = randomSecret();
  const row = await db
    .insert(b)
    .values({
      tenantId: scope.tenantId,
      workspaceId: scope.workspaceId,
      name: input.name,
      tokenEncrypted: await encryptSecret(config(env).APP_ENCRYPTION_KEY, input.token),
      tokenLast4: last4(input.token),
      webhookSecretEncrypted: await encryptSecret(config(env).APP_ENCRYPTION_KEY, secret),
      webhookUrl: input.webhook_url ?? null,
      platformBotId: identity.id ?? null,
      platformUsername: identity.username ?? null,
      isActive: input.is_active ?? true,
    })
    .returning()
    .then(oneRow);
  if (input.webhook_url) await registerWebhook(env, input.token, input.webhook_url, secret, scope, row.id);
  return row;
}

export async function updateBot(db: AnyDb, env: Env, scope: IntegrationScope, id: number, input: UpdateBotInput): Promise<BotRow> {
  const current = await getBot(db, scope, id, true);
  const tokenChanged = input.token !== undefined;
  const token = input.token ?? (await decryptSecret(config(env).APP_ENCRYPTION_KEY, current.tokenEncrypted));
  const identity = tokenChanged ? await identify(env, token, scope) : null;
  const webhookUrl = input.webhook_url === undefined ? current.webhookUrl : input.webhook_url;
  if (webhookUrl && (tokenChanged || webhookUrl !== current.webhookUrl)) {
    const secret = await decryptSecret(config(env).APP_ENCRYPTION_KEY, current.webhookSecretEncrypted);
    await registerWebhook(env, token, webhookUrl, secret, scope, id);
  } else if (!webhookUrl && current.webhookUrl) {
    try {
      await telegramDeleteWebhook(env, token);
    } catch (error) {
      throw integrationFailed(error, "remove the webhook", { requestId: scope.requestId, botId: id });
    }
  }
  const row = await db
    .update(b)
    .set({
      name: input.name,
      ...(tokenChanged
        ? {
            tokenEncrypted: await encryptSecret(config(env).APP_ENCRYPTION_KEY, token),
            tokenLast4: last4(token),
            platformBotId: identity?.id ?? null,
            platformUsername: identity?.username ?? null,
          }
        : {}),
      webhookUrl,
      isActive: input.is_active,
      updatedAt: new Date(),
    })
    .where(and(eq(b.tenantId, scope.tenantId), eq(b.id, id)))
    .returning()
    .then(oneRow);
  return row;
}

/** Deletes the bot; its webhook is removed from the platform on a best-effort basis (logged). */
export async function deleteBot(db: AnyDb, env: Env, scope: IntegrationScope, id: number): Promise<void> {
  const current = await getBot(db, scope, id, true);
  if (current.webhookUrl) {
    try {
      await telegramDeleteWebhook(env, await decryptSecret(config(env).APP_ENCRYPTION_KEY, current.tokenEncrypted));
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      log.warn("messaging bot deleted; its webhook could not be removed", { requestId: scope.requestId, botId: id, description: error.description });
    }
  }
  await db.delete(b).where(and(eq(b.tenantId, scope.tenantId), eq(b.id, id)));
}

export async function sendTestMessage(
  db: AnyDb,
  env: Env,
  scope: IntegrationScope,
  id: number,
  chatId: string,
  text: string,
): Promise<{ message_id: number; chat_id: string }> {
  const bot = await getBot(db, scope, id);
  const token = await decryptSecret(config(env).APP_ENCRYPTION_KEY, bot.tokenEncrypted);
  try {
    const result = await telegramSendMessage(env, token, chatId, text);
    return { message_id: result.message_id, chat_id: chatId };
  } catch (error) {
    throw integrationFailed(error, "deliver the test message", { requestId: scope.requestId, botId: id });
  }
}

/**
 * An inbound update: the bot must exist in the tenant and the request must carry its webhook
 * secret in `X-Telegram-Bot-Api-Secret-Token` (compared in constant time); anything else is 403,
 * the same for an unknown bot. Accepted updates are stored once per update_id.
 */
export async function receiveBotUpdate(
  db: AnyDb,
  env: Env,
  tenantId: number,
  botId: number,
  secretHeader: string | undefined,
  rawBody: string,
): Promise<{ stored: boolean }> {
  const refused = () => new AppError("webhook_verification_failed", "Webhook verification failed.");
  const [bot] = Number.isSafeInteger(botId)
    ? await db
        .select()
        .from(b)
        .where(and(eq(b.tenantId, tenantId), eq(b.id, botId)))
    : [];
  const secret = bot ? await decryptSecret(config(env).APP_ENCRYPTION_KEY, bot.webhookSecretEncrypted) : randomSecret();
  const matches = await secretsEqual(secretHeader ?? "", secret);
  if (!bot || !secretHeader || !matches) throw refused();
  const update = jsonObjectBody(rawBody, "An update");
  const updateId = Number.isSafeInteger(update.update_id) ? Number(update.update_id) : null;
  const inserted = await db
    .insert(schema.inboundUpdates)
    .values({ tenantId, source: "messaging_bot", botId: bot.id, updateId, payload: update })
    .onConflictDoNothing()
    .returning({ id: schema.inboundUpdates.id });
  return { stored: inserted.length > 0 };
}

import { z } from "@hono/zod-openapi";
import { and, asc, eq, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { findRow, orderBy, type Page, pageOf } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { config, type Env } from "../../env";
import type { ListQuery } from "../../http/pagination";
import { INT4_MAX } from "../../lib/bounds";
import { decryptSecret, encryptSecret, hmacSha256Hex, last4, randomSecret, secretsEqual } from "../../lib/crypto";
import { AppError, fieldError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { IntegrationScope } from "./bots";
import { fieldsOf, graph, integrationFailed, jsonObjectBody } from "./platforms";
import type { CreateAccountInput, CreateTemplateInput, SendMessageInput, UpdateAccountInput } from "./schemas";

const a = schema.chatAccounts;
const t = schema.chatTemplates;
type AccountRow = typeof a.$inferSelect;
type TemplateRow = typeof t.$inferSelect;

const accountInboundUrl = (origin: string, id: number) => `${origin}/webhooks/chat-accounts/${id}`;

/** The public shape: never the access token, the app secret or the verify token. */
export function serializeAccount(row: AccountRow, origin: string) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    phone_number: row.phoneNumber,
    phone_number_id: row.phoneNumberId,
    business_account_id: row.businessAccountId,
    access_token_last4: row.accessTokenLast4,
    webhook_url: accountInboundUrl(origin, row.id),
    is_active: row.isActive,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

export function serializeTemplate(row: TemplateRow) {
  return {
    id: row.id,
    account_id: row.accountId,
    name: row.name,
    language: row.language,
    category: row.category,
    components: (row.components as unknown[]) ?? [],
    status: row.status,
    platform_template_id: row.platformTemplateId,
    rejected_reason: row.rejectedReason,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type AccountSort = "id" | "name" | "created_at";

export async function listAccounts(db: AnyDb, scope: IntegrationScope, query: ListQuery<"is_active", AccountSort>): Promise<Page<AccountRow>> {
  const where = and(
    eq(a.tenantId, scope.tenantId),
    eq(a.workspaceId, scope.workspaceId),
    query.filters.is_active ? eq(a.isActive, query.filters.is_active === "true") : undefined,
  );
  const column = { id: a.id, name: a.name, created_at: a.createdAt, updated_at: a.updatedAt }[query.sort.field];
  return pageOf(db, a, where, orderBy(column, a.id, query.sort.descending), query);
}

/** An account of the request's workspace; another workspace's (or tenant's) is 404. */
export async function getAccount(db: AnyDb, scope: Pick<IntegrationScope, "tenantId" | "workspaceId">, id: number, lock = false): Promise<AccountRow> {
  return findRow(db, a, and(eq(a.tenantId, scope.tenantId), eq(a.workspaceId, scope.workspaceId), eq(a.id, id)), "Chat account", lock);
}

const phoneIdTaken = (error: unknown) => {
  if (isUniqueViolation(error, "chat_accounts_phone_number_id_key")) {
    throw fieldError("phone_number_id", "Another chat account of this business already uses this phone number id.", "duplicate_phone_number_id");
  }
  throw error;
};

export async function createAccount(db: AnyDb, env: Env, scope: IntegrationScope, input: CreateAccountInput): Promise<AccountRow> {
  const key = config(env).APP_ENCRYPTION_KEY;
  const row = await db
    .insert(a)
    .values({
      tenantId: scope.tenantId,
      workspaceId: scope.workspaceId,
      name: input.name,
      phoneNumber: input.phone_number,
      phoneNumberId: input.phone_number_id,
      businessAccountId: input.business_account_id,
      accessTokenEncrypted: await encryptSecret(key, input.access_token),
      accessTokenLast4: last4(input.access_token),
      appSecretEncrypted: await encryptSecret(key, input.app_secret),
      webhookVerifyTokenEncrypted: await encryptSecret(key, input.webhook_verify_token),
      isActive: input.is_active ?? true,
    })
    .returning()
    .catch(phoneIdTaken)
    .then(oneRow);
  return row;
}

export async function updateAccount(db: AnyDb, env: Env, scope: IntegrationScope, id: number, input: UpdateAccountInput): Promise<AccountRow> {
  await getAccount(db, scope, id, true);
  const key = config(env).APP_ENCRYPTION_KEY;
  const row = await db
    .update(a)
    .set({
      name: input.name,
      phoneNumber: input.phone_number,
      phoneNumberId: input.phone_number_id,
      businessAccountId: input.business_account_id,
      ...(input.access_token !== undefined
        ? { accessTokenEncrypted: await encryptSecret(key, input.access_token), accessTokenLast4: last4(input.access_token) }
        : {}),
      ...(input.app_secret !== undefined ? { appSecretEncrypted: await encryptSecret(key, input.app_secret) } : {}),
      ...(input.webhook_verify_token !== undefined ? { webhookVerifyTokenEncrypted: await encryptSecret(key, input.webhook_verify_token) } : {}),
      isActive: input.is_active,
      updatedAt: new Date(),
    })
    .where(and(eq(a.tenantId, scope.tenantId), eq(a.id, id)))
    .returning()
    .catch(phoneIdTaken)
    .then(oneRow);
  return row;
}

export async function deleteAccount(db: AnyDb, scope: IntegrationScope, id: number): Promise<void> {
  await getAccount(db, scope, id, true);
  await db.delete(a).where(and(eq(a.tenantId, scope.tenantId), eq(a.id, id)));
}

// ---- Templates

export async function listTemplates(db: AnyDb, scope: IntegrationScope, accountId: number): Promise<TemplateRow[]> {
  // Issued together, one round trip (issue 46): the templates are answered only once the account
  // is found visible to the caller (404 otherwise).
  const [, templates] = await Promise.all([
    getAccount(db, scope, accountId),
    db
      .select()
      .from(t)
      .where(and(eq(t.tenantId, scope.tenantId), eq(t.accountId, accountId)))
      .orderBy(asc(t.name), asc(t.language)),
  ]);
  return templates;
}

const CreatedTemplate = z.object({ id: z.unknown(), status: z.unknown() }).partial();
const SentMessage = z.object({ messages: z.array(z.object({ id: z.unknown() }).partial()) }).partial();

/** Submits a template for approval and stores it with the status the platform gave (PENDING). */
export async function createTemplate(db: AnyDb, env: Env, scope: IntegrationScope, accountId: number, input: CreateTemplateInput): Promise<TemplateRow> {
  const account = await getAccount(db, scope, accountId, true);
  const [existing] = await db
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.accountId, accountId), eq(t.name, input.name), eq(t.language, input.language)));
  if (existing) throw fieldError("name", "This account already has a template with this name and language.");
  const accessToken = await decryptSecret(config(env).APP_ENCRYPTION_KEY, account.accessTokenEncrypted);
  let created: z.output<typeof CreatedTemplate>;
  try {
    created = await graph(env, accessToken, "POST", `${account.businessAccountId}/message_templates`, CreatedTemplate, {
      name: input.name,
      language: input.language,
      category: input.category,
      components: input.components,
    });
  } catch (error) {
    throw integrationFailed(error, "accept the template", { requestId: scope.requestId, accountId });
  }
  const row = await db
    .insert(t)
    .values({
      tenantId: scope.tenantId,
      accountId,
      name: input.name,
      language: input.language,
      category: input.category,
      components: input.components,
      status: String(created.status ?? "PENDING").toUpperCase(),
      platformTemplateId: created.id === undefined ? null : String(created.id),
    })
    .returning()
    .then(oneRow);
  return row;
}

/** A template as the platform lists it; fields are read as text, whatever type the platform used. */
const PlatformTemplate = z
  .object({
    id: z.unknown(),
    name: z.unknown(),
    language: z.unknown(),
    status: z.unknown(),
    category: z.unknown(),
    components: z.array(z.unknown()),
    rejected_reason: z.unknown(),
  })
  .partial();
type PlatformTemplate = z.output<typeof PlatformTemplate>;
const TemplatePage = z.object({ data: z.array(PlatformTemplate), paging: z.object({ next: z.string() }).partial() }).partial();

const MAX_SYNC_PAGES = 20;

/** Refreshes statuses (and adds templates created elsewhere) from the platform's list. */
export async function syncTemplates(db: AnyDb, env: Env, scope: IntegrationScope, accountId: number): Promise<TemplateRow[]> {
  const account = await getAccount(db, scope, accountId, true);
  const accessToken = await decryptSecret(config(env).APP_ENCRYPTION_KEY, account.accessTokenEncrypted);
  const remote: PlatformTemplate[] = [];
  try {
    let next: string | null = `${account.businessAccountId}/message_templates?fields=id,name,language,status,category,components,rejected_reason&limit=100`;
    for (let page = 0; next && page < MAX_SYNC_PAGES; page++) {
      const result: z.output<typeof TemplatePage> = await graph(env, accessToken, "GET", next, TemplatePage);
      remote.push(...(result.data ?? []));
      next = result.paging?.next ?? null;
    }
  } catch (error) {
    throw integrationFailed(error, "list the templates", { requestId: scope.requestId, accountId });
  }
  const values = remote
    .filter((r) => r.name && r.language)
    .map((r) => ({
      tenantId: scope.tenantId,
      accountId,
      name: String(r.name),
      language: String(r.language),
      category: String(r.category ?? "UTILITY").toUpperCase(),
      components: r.components ?? [],
      status: String(r.status ?? "PENDING").toUpperCase(),
      platformTemplateId: r.id === undefined ? null : String(r.id),
      rejectedReason: r.rejected_reason && r.rejected_reason !== "NONE" ? String(r.rejected_reason) : null,
    }));
  if (values.length) {
    await db
      .insert(t)
      .values(values)
      .onConflictDoUpdate({
        target: [t.accountId, t.name, t.language],
        set: {
          status: sql`excluded.status`,
          category: sql`excluded.category`,
          components: sql`excluded.components`,
          platformTemplateId: sql`excluded.platform_template_id`,
          rejectedReason: sql`excluded.rejected_reason`,
          updatedAt: sql`now()`,
        },
      });
  }
  return listTemplates(db, scope, accountId);
}

/** Sends an APPROVED template (422 template_not_approved otherwise). */
export async function sendTemplateMessage(
  db: AnyDb,
  env: Env,
  scope: IntegrationScope,
  accountId: number,
  input: SendMessageInput,
): Promise<{ message_id: string; to: string; template: string; language: string }> {
  const account = await getAccount(db, scope, accountId);
  const candidates = await db
    .select()
    .from(t)
    .where(and(eq(t.accountId, accountId), eq(t.name, input.template), input.language ? eq(t.language, input.language) : undefined));
  if (!candidates.length) throw fieldError("template", "This account has no template of that name (and language).");
  if (candidates.length > 1) throw fieldError("language", "The template exists in several languages: say which one.");
  const template = candidates[0]!;
  if (template.status !== "APPROVED") {
    const message = `The template "${template.name}" (${template.language}) is ${template.status}: only templates the platform approved can be sent.`;
    throw new AppError("template_not_approved", message, { template: [message] });
  }
  const accessToken = await decryptSecret(config(env).APP_ENCRYPTION_KEY, account.accessTokenEncrypted);
  const to = input.to.replace(/^\+/, "");
  try {
    const result = await graph(env, accessToken, "POST", `${account.phoneNumberId}/messages`, SentMessage, {
      messaging_product: "whatsapp",
      to,
      type: "template",
      template: {
        name: template.name,
        language: { code: template.language },
        ...(input.parameters.length ? { components: [{ type: "body", parameters: input.parameters.map((text) => ({ type: "text", text })) }] } : {}),
      },
    });
    return { message_id: String(result.messages?.[0]?.id ?? ""), to, template: template.name, language: template.language };
  } catch (error) {
    throw integrationFailed(error, "send the message", { requestId: scope.requestId, accountId });
  }
}

// ---- Inbound

const refused = () => new AppError("webhook_verification_failed", "Webhook verification failed.");

async function accountForWebhook(db: AnyDb, tenantId: number, id: number): Promise<AccountRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0 || id > INT4_MAX) return undefined;
  const [row] = await db
    .select()
    .from(a)
    .where(and(eq(a.tenantId, tenantId), eq(a.id, id)));
  return row;
}

/** The platform's subscription check: the challenge when mode and verify token match, else 403. */
export async function verifySubscription(db: AnyDb, env: Env, tenantId: number, id: number, query: Record<string, string | undefined>): Promise<string> {
  const account = await accountForWebhook(db, tenantId, id);
  const expected = account ? await decryptSecret(config(env).APP_ENCRYPTION_KEY, account.webhookVerifyTokenEncrypted) : randomSecret();
  const matches = await secretsEqual(query["hub.verify_token"] ?? "", expected);
  if (!account || query["hub.mode"] !== "subscribe" || !query["hub.verify_token"] || !matches || !query["hub.challenge"]) throw refused();
  return query["hub.challenge"];
}

const STATUS_EVENTS: Record<string, string> = { REINSTATED: "APPROVED" };

/** The parts of an event delivery read here (template status updates); the rest is only stored. */
const EventEntries = z.object({ entry: z.array(z.unknown()).catch([]) }).partial();
const EventEntry = z.object({ id: z.unknown(), changes: z.array(z.unknown()).catch([]) }).partial();
const TemplateStatusChange = z
  .object({
    field: z.unknown(),
    value: z
      .object({
        event: z.unknown(),
        message_template_id: z.unknown(),
        message_template_name: z.unknown(),
        message_template_language: z.unknown(),
        reason: z.unknown(),
      })
      .partial(),
  })
  .partial();

/**
 * An event delivery: `X-Hub-Signature-256` must be `sha256=` + the HMAC-SHA256 of the raw body with
 * the account's app secret (compared in constant time), else 403. Stored, then template status
 * updates (`message_template_status_update`) of this business account are applied.
 */
export async function receiveAccountEvent(
  db: AnyDb,
  env: Env,
  tenantId: number,
  id: number,
  signature: string | undefined,
  raw: Uint8Array,
): Promise<{ applied: number }> {
  const account = await accountForWebhook(db, tenantId, id);
  const appSecret = account ? await decryptSecret(config(env).APP_ENCRYPTION_KEY, account.appSecretEncrypted) : randomSecret();
  const expected = `sha256=${await hmacSha256Hex(appSecret, raw)}`;
  const matches = await secretsEqual((signature ?? "").trim().toLowerCase(), expected);
  if (!account || !signature || !matches) throw refused();
  const event = jsonObjectBody(new TextDecoder().decode(raw), "An event");
  await db.insert(schema.inboundUpdates).values({ tenantId, source: "chat_account", accountId: account.id, payload: event });
  let applied = 0;
  // Read leniently: entries and changes of other shapes are skipped, not refused (the event is stored).
  for (const entry of fieldsOf(EventEntries, event).entry ?? []) {
    const { id: entryId, changes = [] } = fieldsOf(EventEntry, entry);
    if (entryId !== undefined && String(entryId) !== account.businessAccountId) continue;
    for (const rawChange of changes) {
      const change = fieldsOf(TemplateStatusChange, rawChange);
      if (change.field !== "message_template_status_update" || !change.value?.event) continue;
      const value = change.value;
      const status = STATUS_EVENTS[String(value.event).toUpperCase()] ?? String(value.event).toUpperCase();
      const byId = value.message_template_id !== undefined ? eq(t.platformTemplateId, String(value.message_template_id)) : undefined;
      const byName =
        value.message_template_name && value.message_template_language
          ? and(eq(t.name, String(value.message_template_name)), eq(t.language, String(value.message_template_language)))
          : undefined;
      if (!byId && !byName) continue;
      const updated = await db
        .update(t)
        .set({
          status,
          rejectedReason: status === "REJECTED" && value.reason && value.reason !== "NONE" ? String(value.reason) : null,
          updatedAt: new Date(),
        })
        .where(and(eq(t.tenantId, tenantId), eq(t.accountId, account.id), or(byId, byName)))
        .returning({ id: t.id });
      applied += updated.length;
    }
  }
  return { applied };
}

import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { tenants, workspaces } from "./tenancy";

/**
 * Messaging bots (Telegram Bot API shape), one workspace each. Secrets are stored encrypted
 * (AES-GCM, src/lib/crypto.ts): the bot token, and the webhook secret we register with the
 * platform (`secret_token`) and expect back in `X-Telegram-Bot-Api-Secret-Token`.
 */
export const messagingBots = pgTable(
  "messaging_bots",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenEncrypted: text("token_encrypted").notNull(),
    tokenLast4: text("token_last4").notNull(),
    webhookSecretEncrypted: text("webhook_secret_encrypted").notNull(),
    webhookUrl: text("webhook_url"),
    platformBotId: bigint("platform_bot_id", { mode: "number" }),
    platformUsername: text("platform_username"),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("messaging_bots_workspace_idx").on(t.tenantId, t.workspaceId), tenantIsolation("messaging_bots")],
);

/** Chat-platform business accounts (WhatsApp Cloud API shape), one workspace each. */
export const chatAccounts = pgTable(
  "chat_accounts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    phoneNumber: text("phone_number").notNull(),
    phoneNumberId: text("phone_number_id").notNull(),
    businessAccountId: text("business_account_id").notNull(),
    accessTokenEncrypted: text("access_token_encrypted").notNull(),
    accessTokenLast4: text("access_token_last4").notNull(),
    appSecretEncrypted: text("app_secret_encrypted").notNull(),
    webhookVerifyTokenEncrypted: text("webhook_verify_token_encrypted").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("chat_accounts_workspace_idx").on(t.tenantId, t.workspaceId),
    uniqueIndex("chat_accounts_phone_number_id_key").on(t.tenantId, t.phoneNumberId),
    tenantIsolation("chat_accounts"),
  ],
);

/** Message templates of a chat account, with the platform's approval status. */
export const chatTemplates = pgTable(
  "chat_templates",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    accountId: integer("account_id")
      .notNull()
      .references(() => chatAccounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    language: text("language").notNull(),
    category: text("category").notNull(),
    components: jsonb("components").notNull().default(sql`'[]'::jsonb`),
    status: text("status").notNull().default("PENDING"),
    platformTemplateId: text("platform_template_id"),
    rejectedReason: text("rejected_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("chat_templates_account_name_language_key").on(t.accountId, t.name, t.language), tenantIsolation("chat_templates")],
);

/**
 * Verified inbound webhook deliveries, as received. `update_id` is the messaging platform's
 * update id: a redelivered update is stored once.
 */
export const inboundUpdates = pgTable(
  "inbound_updates",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    source: text("source").notNull(),
    botId: integer("bot_id").references(() => messagingBots.id, { onDelete: "cascade" }),
    accountId: integer("account_id").references(() => chatAccounts.id, { onDelete: "cascade" }),
    updateId: bigint("update_id", { mode: "number" }),
    payload: jsonb("payload").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("inbound_updates_bot_update_key").on(t.botId, t.updateId),
    index("inbound_updates_account_idx").on(t.accountId),
    tenantIsolation("inbound_updates"),
  ],
);

import { z } from "@hono/zod-openapi";
import { idParam } from "../../lib/bounds";

const id = (name: string) => idParam(name);

export const BotParam = z.object({ bot: id("bot") });
export const AccountParam = z.object({ account: id("account") });

const name = z.string().trim().min(1).max(100);
const httpsUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    try {
      return new URL(v).protocol === "https:";
    } catch {
      return false;
    }
  }, "Must be an https:// URL.")
  // The document says what the refinement checks: an absolute URL whose scheme is https.
  .openapi({ format: "uri", pattern: "^\\s*[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#]\\S*\\s*$", description: "An https:// URL" });

// ---- Messaging bots

const botToken = z
  .string()
  .trim()
  .regex(/^\d{1,20}:[A-Za-z0-9_-]{10,200}$/, "Must be a bot token as the platform issues it (<digits>:<secret>).");

export const CreateBotBody = z
  .object({
    name,
    token: botToken.openapi({ example: "<BOT_TOKEN>" }),
    webhook_url: httpsUrl.nullable().optional().openapi({ description: "Registered with the platform (setWebhook) together with the bot's webhook secret." }),
    is_active: z.boolean().optional(),
  })
  .openapi("CreateMessagingBotRequest");

export const UpdateBotBody = z
  .object({
    name: name.optional(),
    token: botToken.optional(),
    webhook_url: httpsUrl.nullable().optional(),
    is_active: z.boolean().optional(),
  })
  .openapi("UpdateMessagingBotRequest");

export type CreateBotInput = z.output<typeof CreateBotBody>;
export type UpdateBotInput = z.output<typeof UpdateBotBody>;

export const MessagingBot = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    name: z.string(),
    token_last4: z.string(),
    webhook_url: z.string().nullable(),
    inbound_url: z.string().openapi({ description: "This bot's inbound endpoint, to use as webhook_url." }),
    platform_username: z.string().nullable(),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("MessagingBot");

export const TestMessageBody = z
  .object({
    chat_id: z.union([z.string().trim().min(1).max(100), z.number().int().transform(String)]),
    message: z.string().trim().min(1).max(4096),
  })
  .openapi("MessagingBotTestRequest");

export const TestMessageResult = z
  .object({ data: z.object({ message_id: z.number(), chat_id: z.string() }), message: z.string() })
  .openapi("MessagingBotTestResponse");

// ---- Chat accounts

const digits = (max: number) =>
  z
    .string()
    .trim()
    .regex(new RegExp(`^\\d{1,${max}}$`), "Must be the platform's numeric id.");
const secret = (min: number) => z.string().min(min).max(1024);

export const CreateAccountBody = z
  .object({
    name,
    phone_number: z
      .string()
      .trim()
      .regex(/^\+?[\d\s-]{6,24}$/, "Must be a phone number."),
    phone_number_id: digits(30).openapi({
      description: "Meta's phone number id: one chat account per id, another account's is a 409 duplicate_phone_number_id",
    }),
    business_account_id: digits(30),
    access_token: secret(10),
    app_secret: secret(8),
    webhook_verify_token: secret(8),
    is_active: z.boolean().optional(),
  })
  .openapi("CreateChatAccountRequest");

export const UpdateAccountBody = z
  .object({
    name: name.optional(),
    phone_number: CreateAccountBody.shape.phone_number.optional(),
    phone_number_id: digits(30)
      .optional()
      .openapi({ description: "Meta's phone number id: one chat account per id, another account's is a 409 duplicate_phone_number_id" }),
    business_account_id: digits(30).optional(),
    access_token: secret(10).optional(),
    app_secret: secret(8).optional(),
    webhook_verify_token: secret(8).optional(),
    is_active: z.boolean().optional(),
  })
  .openapi("UpdateChatAccountRequest");

export type CreateAccountInput = z.output<typeof CreateAccountBody>;
export type UpdateAccountInput = z.output<typeof UpdateAccountBody>;

export const ChatAccount = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    name: z.string(),
    phone_number: z.string(),
    phone_number_id: z.string(),
    business_account_id: z.string(),
    access_token_last4: z.string(),
    webhook_url: z.string().openapi({ description: "The callback URL to configure on the platform (verification and events)." }),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("ChatAccount");

const TEMPLATE_CATEGORIES = ["MARKETING", "UTILITY", "AUTHENTICATION"] as const;

export const CreateTemplateBody = z
  .object({
    name: z
      .string()
      .trim()
      .regex(/^[a-z0-9_]{1,512}$/, "Lower-case letters, digits and underscores."),
    language: z
      .string()
      .trim()
      .regex(/^[a-z]{2,3}(?:_[A-Z]{2})?$/, "A language code such as es, en_US."),
    category: z.enum(TEMPLATE_CATEGORIES),
    components: z.array(z.record(z.string(), z.unknown())).min(1).max(10),
  })
  .openapi("CreateChatTemplateRequest");

export type CreateTemplateInput = z.output<typeof CreateTemplateBody>;

export const ChatTemplate = z
  .object({
    id: z.number(),
    account_id: z.number(),
    name: z.string(),
    language: z.string(),
    category: z.string(),
    components: z.array(z.unknown()),
    status: z.string().openapi({ description: "PENDING, APPROVED, REJECTED, PAUSED, DISABLED, … as the platform reports it." }),
    platform_template_id: z.string().nullable(),
    rejected_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("ChatTemplate");

export const SendMessageBody = z
  .object({
    to: z
      .string()
      .trim()
      .regex(/^\+?\d{6,20}$/, "Must be a phone number in international format (digits)."),
    template: z
      .string()
      .trim()
      .min(1)
      .max(512)
      .openapi({ description: "The name of one of this account's templates (POST /api/chat-accounts/{account}/templates)" }),
    language: z.string().trim().min(2).max(10).optional(),
    parameters: z.array(z.string().max(1024)).max(20).default([]),
  })
  .openapi("ChatSendMessageRequest");

export type SendMessageInput = z.output<typeof SendMessageBody>;

export const SendMessageResult = z
  .object({
    data: z.object({ message_id: z.string(), to: z.string(), template: z.string(), language: z.string() }),
    message: z.string(),
  })
  .openapi("ChatSendMessageResponse");
export type MessagingBot = z.output<typeof MessagingBot>;
export type ChatTemplate = z.output<typeof ChatTemplate>;

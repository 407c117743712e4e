import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import type { MessagingBot } from "../../src/modules/integrations/schemas";
import type { Page } from "../support/api";
import { type Client, call } from "../support/api";
import { asOwner, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { botToken, failNext, received } from "./helpers";

const WEBHOOK = "https://hooks.example.do/telegram";

async function createBot(api: Client, token = botToken(), extra: Record<string, unknown> = {}) {
  const res = await api.post("/api/messaging-bots", { name: "Ventas", token, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { bot: res.body.data, token, res };
}

/** The secret_token the bot registered with the platform (the fake saw it in setWebhook). */
async function registeredSecret(token: string): Promise<string> {
  const calls = (await received("telegram", token)).requests.filter((r) => r.method === "setWebhook");
  return calls[calls.length - 1]!.body.secret_token;
}

describe("messaging bots", () => {
  it("creates a bot after checking the token with getMe, and never returns or stores the token in clear", async () => {
    const tenant = await seedTenant();
    const { bot, token, res } = await createBot(tenant.api);
    expect(res.body.message).toBe("Messaging bot created.");
    expect(bot).toMatchObject({
      workspace_id: tenant.workspaceId,
      name: "Ventas",
      token_last4: token.slice(-4),
      webhook_url: null,
      inbound_url: `http://${tenant.subdomain}.sucursal.test/webhooks/messaging-bots/${bot.id}`,
      is_active: true,
    });
    expect(bot.platform_username).toMatch(/^sucursal_\d+_bot$/);
    expect(bot).not.toHaveProperty("token");
    expect((await received("telegram", token)).requests.map((r) => r.method)).toEqual(["getMe"]);

    const list = await tenant.api.get("/api/messaging-bots");
    const one = await tenant.api.get(`/api/messaging-bots/${bot.id}`);
    const patched = await tenant.api.patch(`/api/messaging-bots/${bot.id}`, { name: "Ventas 2" });
    expect(list.body.data).toEqual([bot]);
    expect(list.body.meta.total).toBe(1);
    expect(one.body.data).toEqual(bot);
    expect(patched.status).toBe(200);
    expect(patched.body.data.name).toBe("Ventas 2");
    for (const r of [res, list, one, patched]) expect(r.text).not.toContain(token.split(":")[1]);

    const [row] = await asOwner((db) => db.select().from(schema.messagingBots).where(eq(schema.messagingBots.id, bot.id)));
    expect(row!.tokenEncrypted).toMatch(/^v1\./);
    expect(row!.tokenEncrypted).not.toContain(token.split(":")[1]);
  });

  it("refuses a token the platform does not know (422 on token) and a malformed one without calling it", async () => {
    const tenant = await seedTenant();
    const bad = await tenant.api.post("/api/messaging-bots", { name: "X", token: botToken(true) });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("validation_failed");
    expect(bad.body.errors.token[0]).toContain("Unauthorized");
    const malformed = await tenant.api.post("/api/messaging-bots", { name: "X", token: "not-a-token" });
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.errors)).toEqual(["token"]);
    expect((await tenant.api.get("/api/messaging-bots")).body.data).toEqual([]);
  });

  it("sends a test message; a platform error or an unreachable platform is 502 integration_failed, never 500", async () => {
    const tenant = await seedTenant();
    const { bot, token } = await createBot(tenant.api);

    const ok = await call(tenant.subdomain, `/messaging-bots/${bot.id}/test`, {
      token: tenant.admin.token,
      body: { chat_id: "12345", message: "Hola desde Sucursal" },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ data: { chat_id: "12345" }, message: "Test message sent." });
    expect(typeof ok.body.data.message_id).toBe("number");
    const sent = (await received("telegram", token)).requests.filter((r) => r.method === "sendMessage");
    expect(sent.map((r) => r.body)).toEqual([{ chat_id: "12345", text: "Hola desde Sucursal" }]);

    const notFound = await call(tenant.subdomain, `/messaging-bots/${bot.id}/test`, {
      token: tenant.admin.token,
      body: { chat_id: "missing", message: "Hola" },
    });
    expect(notFound.status).toBe(502);
    expect(notFound.body.code).toBe("integration_failed");
    expect(notFound.body.message).toBe("The messaging platform could not deliver the test message: Bad Request: chat not found");

    await failNext("telegram", token, { method: "sendMessage", status: 500, description: "Internal Server Error" });
    const down = await call(tenant.subdomain, `/messaging-bots/${bot.id}/test`, { token: tenant.admin.token, body: { chat_id: "1", message: "Hola" } });
    expect(down.status).toBe(502);
    expect(down.body.message).toContain("Internal Server Error");

    await failNext("telegram", token, { method: "sendMessage", mode: "drop" });
    const unreachable = await call(tenant.subdomain, `/messaging-bots/${bot.id}/test`, { token: tenant.admin.token, body: { chat_id: "1", message: "Hola" } });
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.message).toBe("The messaging platform could not deliver the test message: the platform could not be reached");
    for (const r of [ok, notFound, down, unreachable]) expect(r.text).not.toContain(token.split(":")[1]);
  });

  it("registers the webhook with a secret; inbound updates need that secret (else 403) and are stored once", async () => {
    const tenant = await seedTenant();
    const { bot, token } = await createBot(tenant.api, botToken(), { webhook_url: WEBHOOK });
    expect(bot.webhook_url).toBe(WEBHOOK);
    const setWebhook = (await received("telegram", token)).requests.find((r) => r.method === "setWebhook")!;
    expect(setWebhook.body.url).toBe(WEBHOOK);
    const secret = await registeredSecret(token);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const update = { update_id: 91001, message: { message_id: 1, chat: { id: 555, type: "private" }, text: "hola" } };
    const path = `/webhooks/messaging-bots/${bot.id}`;
    const accepted = await call(tenant.subdomain, path, { body: update, headers: { "x-telegram-bot-api-secret-token": secret } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ ok: true });
    const again = await call(tenant.subdomain, path, { body: update, headers: { "x-telegram-bot-api-secret-token": secret } });
    expect(again.status).toBe(200);

    const wrong = await call(tenant.subdomain, path, { body: update, headers: { "x-telegram-bot-api-secret-token": `${secret.slice(0, -1)}x` } });
    const missing = await call(tenant.subdomain, path, { body: update });
    const unknownBot = await call(tenant.subdomain, `/webhooks/messaging-bots/999999`, {
      body: update,
      headers: { "x-telegram-bot-api-secret-token": secret },
    });
    const other = await seedTenant();
    const otherTenant = await call(other.subdomain, path, { body: update, headers: { "x-telegram-bot-api-secret-token": secret } });
    for (const r of [wrong, missing, unknownBot, otherTenant]) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ message: "Webhook verification failed.", code: "webhook_verification_failed" });
    }

    const stored = await asOwner((db) => db.select().from(schema.inboundUpdates).where(eq(schema.inboundUpdates.botId, bot.id)));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ tenantId: tenant.tenantId, source: "messaging_bot", updateId: 91001, payload: update });
  });

  it("updates the token (checked again) and the webhook, and deletes the bot with its webhook", async () => {
    const tenant = await seedTenant();
    const { bot, token } = await createBot(tenant.api, botToken(), { webhook_url: WEBHOOK });
    const secret = await registeredSecret(token);
    const newToken = botToken();
    const patched = await tenant.api.patch(`/api/messaging-bots/${bot.id}`, { token: newToken });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.token_last4).toBe(newToken.slice(-4));
    expect(patched.text).not.toContain(newToken.split(":")[1]);
    // The new token is checked and the webhook re-registered with it, with the same secret.
    expect((await received("telegram", newToken)).requests.map((r) => r.method)).toEqual(["getMe", "setWebhook"]);
    expect(await registeredSecret(newToken)).toBe(secret);

    const refused = await tenant.api.patch(`/api/messaging-bots/${bot.id}`, { token: botToken(true) });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty("token");

    const unhooked = await tenant.api.patch(`/api/messaging-bots/${bot.id}`, { webhook_url: null });
    expect(unhooked.body.data.webhook_url).toBeNull();
    expect((await received("telegram", newToken)).requests.map((r) => r.method)).toEqual(["getMe", "setWebhook", "deleteWebhook"]);

    const deleted = await tenant.api.delete(`/api/messaging-bots/${bot.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: "Messaging bot deleted." });
    expect((await tenant.api.get(`/api/messaging-bots/${bot.id}`)).status).toBe(404);
  });

  it("scopes bots to the request's workspace (another's is 404) and guards them with integrations permissions", async () => {
    const tenant = await seedTenant();
    const { bot } = await createBot(tenant.api);
    const other = await seedWorkspace(tenant);
    const elsewhere = { headers: { "x-workspace-id": String(other) } };
    expect((await tenant.api.get("/api/messaging-bots", elsewhere)).body.data).toEqual([]);
    for (const r of [
      await tenant.api.get(`/api/messaging-bots/${bot.id}`, elsewhere),
      await tenant.api.patch(`/api/messaging-bots/${bot.id}`, { name: "x" }, elsewhere),
      await tenant.api.delete(`/api/messaging-bots/${bot.id}`, elsewhere),
      await call(tenant.subdomain, `/messaging-bots/${bot.id}/test`, {
        token: tenant.admin.token,
        body: { chat_id: "1", message: "x" },
        headers: elsewhere.headers,
      }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    const otherTenant = await seedTenant();
    expect((await otherTenant.api.get(`/api/messaging-bots/${bot.id}`)).status).toBe(404);

    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get<Page<MessagingBot>>("/api/messaging-bots")).body.data.map((b) => b.id)).toEqual([bot.id]);
    const forbidden = [
      await viewer.api.post("/api/messaging-bots", { name: "x", token: botToken() }),
      await viewer.api.patch(`/api/messaging-bots/${bot.id}`, { name: "x" }),
      await viewer.api.delete(`/api/messaging-bots/${bot.id}`),
      await call(tenant.subdomain, `/messaging-bots/${bot.id}/test`, { token: viewer.token, body: { chat_id: "1", message: "x" } }),
    ];
    for (const r of forbidden) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    expect((await call(tenant.subdomain, "/api/messaging-bots")).status).toBe(401);
  });
});

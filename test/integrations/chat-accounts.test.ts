import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import type { ChatTemplate } from "../../src/modules/integrations/schemas";
import type { Data, DataWithMessage } from "../support/api";
import { type Client, call } from "../support/api";
import { asOwner, seedTenant, seedUser, seedWorkspace, uniqueName } from "../support/seed";
import { chatAccountInput, failNext, hmacHex, received, setTemplateStatus } from "./helpers";

async function createAccount(api: Client) {
  const input = chatAccountInput();
  const res = await api.post("/api/chat-accounts", input);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { account: res.body.data, input, res };
}

const TEMPLATE = {
  name: "factura_emitida",
  language: "es",
  category: "UTILITY",
  components: [{ type: "BODY", text: "Su factura {{1}} por {{2}} está lista.", example: { body_text: [["B0100000001", "RD$ 236.00"]] } }],
};

/** A signed event delivery, as the platform posts it. */
async function postEvent(
  subdomain: string,
  accountId: number,
  appSecret: string,
  event: unknown,
  options: { signature?: string | null; rawBody?: string } = {},
) {
  const raw = options.rawBody ?? JSON.stringify(event);
  const signature = options.signature === undefined ? `sha256=${await hmacHex(appSecret, raw)}` : options.signature;
  return call(subdomain, `/webhooks/chat-accounts/${accountId}`, {
    method: "POST",
    rawBody: raw,
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "x-hub-signature-256": signature }) },
  });
}

const statusUpdate = (businessAccountId: string, template: { id: string | null; name: string; language: string }, event: string, reason = "NONE") => ({
  object: "whatsapp_business_account",
  entry: [
    {
      id: businessAccountId,
      time: 1763800000,
      changes: [
        {
          field: "message_template_status_update",
          value: {
            event,
            message_template_id: template.id === null ? undefined : Number(template.id),
            message_template_name: template.name,
            message_template_language: template.language,
            reason,
          },
        },
      ],
    },
  ],
});

describe("chat-platform accounts", () => {
  it("creates, lists, shows, updates and deletes accounts without ever returning a secret", async () => {
    const tenant = await seedTenant();
    const { account, input, res } = await createAccount(tenant.api);
    expect(res.body.message).toBe("Chat account created.");
    expect(account).toMatchObject({
      workspace_id: tenant.workspaceId,
      name: input.name,
      phone_number: input.phone_number,
      phone_number_id: input.phone_number_id,
      business_account_id: input.business_account_id,
      access_token_last4: input.access_token.slice(-4),
      webhook_url: `http://${tenant.subdomain}.sucursal.test/webhooks/chat-accounts/${account.id}`,
      is_active: true,
    });
    const newAccessToken = `EAAG${uniqueName("rotated")}`;
    const responses = [
      res,
      await tenant.api.get("/api/chat-accounts"),
      await tenant.api.get(`/api/chat-accounts/${account.id}`),
      await tenant.api.patch(`/api/chat-accounts/${account.id}`, { name: "Ventas 2", access_token: newAccessToken }),
    ];
    expect(responses[1]!.body.data).toEqual([account]);
    expect(responses[2]!.body.data).toEqual(account);
    expect(responses[3]!.body.data).toMatchObject({ name: "Ventas 2", access_token_last4: newAccessToken.slice(-4) });
    for (const r of responses) {
      for (const secret of [input.access_token, input.app_secret, input.webhook_verify_token, newAccessToken]) expect(r.text).not.toContain(secret);
    }
    const [row] = await asOwner((db) => db.select().from(schema.chatAccounts).where(eq(schema.chatAccounts.id, account.id)));
    for (const stored of [row!.accessTokenEncrypted, row!.appSecretEncrypted, row!.webhookVerifyTokenEncrypted]) {
      expect(stored).toMatch(/^v1\./);
      expect(stored).not.toContain(input.app_secret);
    }

    const duplicate = await tenant.api.post("/api/chat-accounts", { ...chatAccountInput(), phone_number_id: input.phone_number_id });
    // A uniqueness conflict with what exists, like the other duplicates (issue 44): 409 with its own code.
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe("duplicate_phone_number_id");
    expect(Object.keys(duplicate.body.errors)).toEqual(["phone_number_id"]);

    expect((await tenant.api.delete(`/api/chat-accounts/${account.id}`)).body).toEqual({ message: "Chat account deleted." });
    expect((await tenant.api.get(`/api/chat-accounts/${account.id}`)).status).toBe(404);
  });

  it("answers the platform's verification with the challenge only for the right verify token (else 403)", async () => {
    const tenant = await seedTenant();
    const { account, input } = await createAccount(tenant.api);
    const path = (query: Record<string, string>) => `/webhooks/chat-accounts/${account.id}?${new URLSearchParams(query)}`;
    const ok = await call(tenant.subdomain, path({ "hub.mode": "subscribe", "hub.verify_token": input.webhook_verify_token, "hub.challenge": "1158201444" }));
    expect(ok.status).toBe(200);
    expect(ok.text).toBe("1158201444");
    expect(ok.headers.get("content-type")).toContain("text/plain");

    const other = await seedTenant();
    const refused = [
      await call(tenant.subdomain, path({ "hub.mode": "subscribe", "hub.verify_token": "wrong-token", "hub.challenge": "1" })),
      await call(tenant.subdomain, path({ "hub.mode": "unsubscribe", "hub.verify_token": input.webhook_verify_token, "hub.challenge": "1" })),
      await call(tenant.subdomain, path({ "hub.mode": "subscribe", "hub.challenge": "1" })),
      await call(tenant.subdomain, `/webhooks/chat-accounts/999999?hub.mode=subscribe&hub.verify_token=${input.webhook_verify_token}&hub.challenge=1`),
      await call(other.subdomain, path({ "hub.mode": "subscribe", "hub.verify_token": input.webhook_verify_token, "hub.challenge": "1" })),
    ];
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ message: "Webhook verification failed.", code: "webhook_verification_failed" });
    }
  });

  it("submits a template (PENDING), refuses to send it until approved (422), applies the approval from a signed webhook, then sends it", async () => {
    const tenant = await seedTenant();
    const { account, input } = await createAccount(tenant.api);
    const base = `/api/chat-accounts/${account.id}`;

    const created = await tenant.api.post(`${base}/templates`, TEMPLATE);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      account_id: account.id,
      name: "factura_emitida",
      language: "es",
      category: "UTILITY",
      status: "PENDING",
      components: TEMPLATE.components,
      rejected_reason: null,
    });
    const submitted = (await received("graph", input.business_account_id)).requests;
    expect(submitted.map((r) => r.method)).toEqual(["POST message_templates"]);
    expect(submitted[0]!.body).toEqual(TEMPLATE);
    expect(submitted[0]!.headers.authorization).toBe(`Bearer ${input.access_token}`);
    expect((await tenant.api.post(`${base}/templates`, TEMPLATE)).status).toBe(422);

    const message = { to: "18095550123", template: "factura_emitida", parameters: ["B0100000001", "RD$ 236.00"] };
    const refused = await tenant.api.post(`${base}/messages`, message);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("template_not_approved");
    expect(refused.body.message).toBe('The template "factura_emitida" (es) is PENDING: only templates the platform approved can be sent.');
    expect((await received("graph", input.phone_number_id)).requests).toEqual([]);

    // The platform's approval arrives by webhook, signed over the raw body with the app secret.
    const approval = statusUpdate(
      input.business_account_id,
      { id: created.body.data.platform_template_id, name: "factura_emitida", language: "es" },
      "APPROVED",
    );
    const raw = JSON.stringify(approval, null, 2);
    const forged = await postEvent(tenant.subdomain, account.id, "not-the-secret", approval, { rawBody: raw });
    const unsigned = await postEvent(tenant.subdomain, account.id, input.app_secret, approval, { rawBody: raw, signature: null });
    // Signed over another serialization of the same JSON: the raw bytes differ, so it is refused.
    const reserialized = await postEvent(tenant.subdomain, account.id, input.app_secret, approval, {
      rawBody: raw,
      signature: `sha256=${await hmacHex(input.app_secret, JSON.stringify(approval))}`,
    });
    for (const r of [forged, unsigned, reserialized]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("webhook_verification_failed");
    }
    expect((await tenant.api.get(`${base}/templates`)).body.data[0].status).toBe("PENDING");

    const accepted = await postEvent(tenant.subdomain, account.id, input.app_secret, approval, { rawBody: raw });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ ok: true });
    const list = await tenant.api.get<Data<ChatTemplate[]>>(`${base}/templates`);
    expect(list.body.data.map((t) => [t.name, t.language, t.status])).toEqual([["factura_emitida", "es", "APPROVED"]]);

    const sent = await tenant.api.post(`${base}/messages`, message);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data).toMatchObject({ to: "18095550123", template: "factura_emitida", language: "es" });
    expect(sent.body.data.message_id).toMatch(/^wamid\./);
    const delivered = (await received("graph", input.phone_number_id)).requests;
    expect(delivered.map((r) => r.body)).toEqual([
      {
        messaging_product: "whatsapp",
        to: "18095550123",
        type: "template",
        template: {
          name: "factura_emitida",
          language: { code: "es" },
          components: [
            {
              type: "body",
              parameters: [
                { type: "text", text: "B0100000001" },
                { type: "text", text: "RD$ 236.00" },
              ],
            },
          ],
        },
      },
    ]);

    const stored = await asOwner((db) => db.select().from(schema.inboundUpdates).where(eq(schema.inboundUpdates.accountId, account.id)));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.payload).toEqual(approval);

    // A platform error while sending is a user-level 502, never a 500.
    await failNext("graph", input.phone_number_id, { status: 500, description: "Service temporarily unavailable" });
    const failed = await tenant.api.post(`${base}/messages`, message);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: "integration_failed", message: "The chat platform could not send the message: Service temporarily unavailable" });
  });

  it("syncs statuses from the platform, and a rejection by webhook carries its reason", async () => {
    const tenant = await seedTenant();
    const { account, input } = await createAccount(tenant.api);
    const base = `/api/chat-accounts/${account.id}`;
    await tenant.api.post(`${base}/templates`, TEMPLATE);
    const promo = await tenant.api.post(`${base}/templates`, { ...TEMPLATE, name: "promo_mensual", category: "MARKETING" });
    expect(promo.status).toBe(201);

    await setTemplateStatus(input.business_account_id, "factura_emitida", "es", "APPROVED");
    const synced = await tenant.api.post<DataWithMessage<ChatTemplate[]>>(`${base}/templates/sync`);
    expect(synced.status, synced.text).toBe(200);
    expect(synced.body.message).toBe("2 templates synchronized.");
    expect(synced.body.data.map((t) => [t.name, t.status])).toEqual([
      ["factura_emitida", "APPROVED"],
      ["promo_mensual", "PENDING"],
    ]);

    const rejection = statusUpdate(input.business_account_id, { id: null, name: "promo_mensual", language: "es" }, "REJECTED", "INVALID_FORMAT");
    expect((await postEvent(tenant.subdomain, account.id, input.app_secret, rejection)).status).toBe(200);
    const list = (await tenant.api.get(`${base}/templates`)).body.data;
    expect(list[1]).toMatchObject({ name: "promo_mensual", status: "REJECTED", rejected_reason: "INVALID_FORMAT" });
    const refused = await tenant.api.post(`${base}/messages`, { to: "18095550123", template: "promo_mensual" });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("template_not_approved");

    await failNext("graph", input.business_account_id, { method: "GET message_templates", status: 400, description: "Invalid parameter" });
    const failedSync = await tenant.api.post(`${base}/templates/sync`);
    expect(failedSync.status).toBe(502);
    expect(failedSync.body.code).toBe("integration_failed");
  });

  it("scopes accounts to the request's workspace (another's is 404) and guards them with integrations permissions", async () => {
    const tenant = await seedTenant();
    const { account } = await createAccount(tenant.api);
    const other = await seedWorkspace(tenant);
    const elsewhere = { headers: { "x-workspace-id": String(other) } };
    expect((await tenant.api.get("/api/chat-accounts", elsewhere)).body.data).toEqual([]);
    for (const r of [
      await tenant.api.get(`/api/chat-accounts/${account.id}`, elsewhere),
      await tenant.api.get(`/api/chat-accounts/${account.id}/templates`, elsewhere),
      await tenant.api.post(`/api/chat-accounts/${account.id}/templates`, TEMPLATE, elsewhere),
      await tenant.api.post(`/api/chat-accounts/${account.id}/messages`, { to: "18095550123", template: "x" }, elsewhere),
      await tenant.api.delete(`/api/chat-accounts/${account.id}`, elsewhere),
    ]) {
      expect(r.status).toBe(404);
    }
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get(`/api/chat-accounts/${account.id}/templates`)).status).toBe(200);
    for (const r of [
      await viewer.api.post("/api/chat-accounts", chatAccountInput()),
      await viewer.api.post(`/api/chat-accounts/${account.id}/templates`, TEMPLATE),
      await viewer.api.post(`/api/chat-accounts/${account.id}/templates/sync`),
      await viewer.api.post(`/api/chat-accounts/${account.id}/messages`, { to: "18095550123", template: "x" }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
  });
});

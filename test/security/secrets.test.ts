import { describe, expect, it, vi } from "vitest";
import { deliverWebhook } from "../../src/jobs/webhooks";
import { failNext } from "../integrations/helpers";
import { env } from "../support/env";
import { asOwner, DEFAULT_PASSWORD, ownerRow, sql, uniqueName } from "../support/seed";
import { receiverKey } from "../webhooks/helpers";
import { appCall, botToken, buildWorld, platformId, record, unlimited } from "./world";

/**
 * Secrets never leave: password hashes, JWTs (other than in the response that issues them), bot
 * tokens, chat access tokens, app secrets, webhook verify tokens and outgoing webhooks' signing
 * secrets (whsec_…, other than in the create and rotate responses) appear in no response body
 * and no log line, over a representative set of requests (reads, lists, errors, integrations,
 * webhooks, login). console.* is captured in workerd, where the Worker logs.
 */
describe("secrets never appear in a response body or a log line", () => {
  it("over logins, reads, lists, errors and integrations", async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level).mockImplementation(capture));
    try {
      const world = await buildWorld();
      const { tenant } = world;
      // Through createApp().fetch in this isolate, so that console.* of the Worker is the spied one.
      const call = appCall;
      const api = unlimited(tenant.subdomain, tenant.admin.token);
      const bodies: string[] = [];
      const keep = async (res: Promise<{ text: string; status: number }>) => {
        const r = await res;
        bodies.push(r.text);
        return r;
      };

      const token = botToken();
      const bot = await api.post("/api/messaging-bots", { name: "Secreto", token });
      expect(bot.status).toBe(201);
      bodies.push(bot.text);
      const chatSecrets = {
        access_token: `EAAG${uniqueName("access")}`,
        app_secret: `appsecret-${uniqueName("s")}`,
        webhook_verify_token: `verify-${uniqueName("v")}`,
      };
      const chat = await api.post("/api/chat-accounts", {
        name: "Chat",
        phone_number: "+1 809-555-0100",
        phone_number_id: platformId(),
        business_account_id: platformId(),
        ...chatSecrets,
      });
      expect(chat.status).toBe(201);
      bodies.push(chat.text);

      // An outgoing webhook endpoint: its secret is in the create and rotate responses only (not kept).
      const hook = receiverKey();
      const endpoint = await api.post("/webhook-endpoints", { url: hook.url, events: ["payment.received"] });
      expect(endpoint.status).toBe(201);
      const rotated = await api.post(`/webhook-endpoints/${endpoint.body.data.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const whsecs = { first: endpoint.body.data.secret as string, rotated: rotated.body.data.secret as string };
      // A delivery signed with both, failed once (logged) and then delivered, in this isolate.
      await failNext("receiver", hook.key, { times: 1, status: 500 });
      const paid = await api.post(`/invoices/${world.objects.invoice.id}/payments`, { amount: "0.01", payment_date: "2026-11-21", payment_method: "cash" });
      expect(paid.status, paid.text).toBe(201);
      const delivery = await ownerRow<{ id: number }>(sql`SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpoint.body.data.id}`);
      const ref = { tenant_id: tenant.tenantId, webhook_delivery_id: Number(delivery.id) };
      for (let hour = 1; hour <= 3; hour++) await deliverWebhook(env, ref, { now: new Date(Date.now() + hour * 3_600_000) });

      const login = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: { email: tenant.admin.email, password: DEFAULT_PASSWORD } });
      expect(login.status).toBe(201);
      const issued = login.body.data.token as string;

      const as = unlimited(tenant.subdomain, issued);
      for (const path of [
        "/me",
        "/auth/tokens",
        "/workspace/members",
        `/workspaces/${world.w1}`,
        "/workspaces",
        "/workspace/invitations",
        "/api/messaging-bots",
        `/api/messaging-bots/${bot.body.data.id}`,
        "/api/chat-accounts",
        `/api/chat-accounts/${chat.body.data.id}`,
        `/invoices/${world.objects.invoice.id}`,
        "/webhook-endpoints",
        `/webhook-endpoints/${endpoint.body.data.id}`,
        `/webhook-endpoints/${endpoint.body.data.id}/deliveries`,
        "/roles",
        "/api/v1/no-such-route",
      ]) {
        await keep(as.get(path));
      }
      await keep(as.patch(`/api/messaging-bots/${bot.body.data.id}`, { name: "Otro" }));
      await keep(as.post(`/messaging-bots/${bot.body.data.id}/test`, { chat_id: "12345", message: "hola" }));
      await keep(as.patch(`/api/chat-accounts/${chat.body.data.id}`, { name: "Otro chat" }));
      await keep(as.patch(`/webhook-endpoints/${endpoint.body.data.id}`, { description: "Otro" }));
      // Errors that carry the secrets in the request must not echo them.
      await keep(call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: { email: tenant.admin.email, password: "wrong password" } }));
      await keep(call(tenant.subdomain, "/api/v1/me", { token: `${issued}x` }));
      await keep(call(tenant.subdomain, "/api/v1/me", { token: issued, headers: { "x-workspace-id": "not-a-number" } }));
      await keep(as.post("/api/messaging-bots", { name: "Inválido", token: `${token}-invalid` }));
      await keep(as.post("/api/chat-accounts", { name: 1, ...chatSecrets }));
      await keep(
        call(tenant.subdomain, `/webhooks/messaging-bots/${bot.body.data.id}`, {
          method: "POST",
          body: { update_id: 1 },
          headers: { "x-telegram-bot-api-secret-token": token },
        }),
      );
      await keep(call(tenant.subdomain, `/webhooks/chat-accounts/${chat.body.data.id}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`));
      // Paths that always log: the database unavailable (503) with the token in the request.
      await keep(call(tenant.subdomain, "/me", { token: issued, env: { DATABASE_URL: "postgres://sucursal_app@127.0.0.1:1/x" } }));
      await keep(
        call(tenant.subdomain, "/me", {
          token: issued,
          headers: { authorization: `Bearer ${issued}` },
          env: { DATABASE_URL: "postgres://sucursal_app@127.0.0.1:1/x" },
        }),
      );
      // A database error nothing maps (a trigger raising XX000 on a marked insert): the 500's log
      // line names the error's class, SQLSTATE and constraint, and none of the query's parameters.
      await asOwner(async (db) => {
        await db.execute(
          sql.raw(`CREATE OR REPLACE FUNCTION test_secrets_forced_failure() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'forced failure' USING ERRCODE = 'XX000', CONSTRAINT = 'salesmen_forced_failure', TABLE = 'salesmen'; END $$`),
        );
        await db.execute(
          sql.raw(`CREATE OR REPLACE TRIGGER test_secrets_forced_failure BEFORE INSERT ON salesmen
          FOR EACH ROW WHEN (NEW.full_name LIKE 'zz-forced-failure-%') EXECUTE FUNCTION test_secrets_forced_failure()`),
        );
      });
      const parameters = {
        full_name: uniqueName("zz-forced-failure-"),
        email: `${uniqueName("param")}@secreto.do`,
        phone: `809${String(Date.now() % 10_000_000).padStart(7, "0")}`,
      };
      const forced = await keep(as.post("/salesmen", parameters));
      expect(forced.status, forced.text).toBe(500);
      const unhandled = lines.filter((line) => line.includes('"unhandled error"'));
      expect(unhandled.length).toBe(1);
      expect(JSON.parse(unhandled[0]!)).toMatchObject({
        errorClass: "DrizzleQueryError",
        sqlState: "XX000",
        constraint: "salesmen_forced_failure",
        table: "salesmen",
      });
      await keep(as.delete("/auth/tokens/current"));
      await keep(call(tenant.subdomain, "/api/v1/me", { token: issued })); // revoked now

      const { password_hash: hash } = await ownerRow<{ password_hash: string }>(sql`SELECT password_hash FROM users WHERE id = ${tenant.admin.id}`);
      const secrets: Record<string, string> = {
        "password hash": hash,
        "the admin's JWT": tenant.admin.token,
        "the issued JWT": issued,
        "the issued JWT's signature": issued.split(".")[2]!,
        "the bot token": token,
        "the chat access token": chatSecrets.access_token,
        "the chat app secret": chatSecrets.app_secret,
        "the webhook verify token": chatSecrets.webhook_verify_token,
        "the webhook signing secret": whsecs.first,
        "the rotated webhook signing secret": whsecs.rotated,
        "the signing key of the webhook secret": whsecs.rotated.slice("whsec_".length),
        password: DEFAULT_PASSWORD,
        "a query parameter (name)": parameters.full_name,
        "a query parameter (email)": parameters.email,
        "a query parameter (phone)": parameters.phone,
      };
      const leaks: string[] = [];
      for (const [name, secret] of Object.entries(secrets)) {
        expect(secret.length).toBeGreaterThan(8);
        bodies.forEach((body, i) => {
          if (body.includes(secret)) leaks.push(`${name} in response body #${i}: ${body.slice(0, 200)}`);
        });
        lines.forEach((line) => {
          if (line.includes(secret)) leaks.push(`${name} in log line: ${line.slice(0, 200)}`);
        });
      }
      // No whsec_ value at all, whichever endpoint it belongs to.
      bodies.forEach((body, i) => {
        if (body.includes("whsec_")) leaks.push(`a whsec_ value in response body #${i}: ${body.slice(0, 200)}`);
      });
      for (const line of lines) if (line.includes("whsec_")) leaks.push(`a whsec_ value in log line: ${line.slice(0, 200)}`);
      expect(leaks).toEqual([]);
      expect(lines.length).toBeGreaterThan(0); // the capture saw the Worker's logs
      await record({
        suite: "secrets",
        cases: bodies.length + lines.length,
        failures: leaks.length,
        invariants: Object.keys(secrets).length,
        notes: `${bodies.length} bodies, ${lines.length} log lines`,
      });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  }, 120_000);
});

import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import * as schema from "../../src/db/schema";
import { env } from "../support/env";
import { asOwner, uniqueName } from "../support/seed";

/** The fake providers' control API (scripts/fake-providers.ts). */
const fakeUrl = () => (env as unknown as { TEST_FAKE_PROVIDERS_URL: string }).TEST_FAKE_PROVIDERS_URL;

type Service = "resend" | "telegram" | "graph" | "receiver";

export async function failNext(
  service: Service,
  key: string,
  options: { times?: number; status?: number; description?: string; method?: string; mode?: "error" | "drop" | "slow" } = {},
) {
  const res = await fetch(`${fakeUrl()}/_control/fail`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ service, key, ...options }),
  });
  expect(res.status).toBe(200);
}

export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The JSON a provider was sent, as the fake recorded it: each provider's own shape. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read each provider's fields (Resend's subject, Telegram's chat_id, Graph's template).
  body: any;
}

export async function received(
  service: Service,
  key: string,
): Promise<{ requests: FakeRequest[]; deliveries: { id: string; idempotency_key: string | null; body: FakeRequest["body"] }[] }> {
  const res = await fetch(`${fakeUrl()}/_control/requests?service=${service}&key=${encodeURIComponent(key)}`);
  return (await res.json()) as { requests: FakeRequest[]; deliveries: { id: string; idempotency_key: string | null; body: FakeRequest["body"] }[] };
}

export async function setTemplateStatus(businessAccountId: string, name: string, language: string, status: string) {
  const res = await fetch(`${fakeUrl()}/_control/graph/template-status`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ business_account_id: businessAccountId, name, language, status }),
  });
  expect(res.status).toBe(200);
}

/** A bot token of the platform's form, unique per call; `invalid` ones are refused by the fake. */
export const botToken = (invalid = false) => `${Math.floor(Math.random() * 1e9)}:${invalid ? "invalid-" : "AAH"}${uniqueName("tok")}`;

/** A numeric platform id, unique per call. */
export const platformId = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

/** A valid chat-account body (POST /api/chat-accounts) with fresh platform ids and secrets. */
export function chatAccountInput(overrides: { name?: string } = {}) {
  return {
    name: overrides.name ?? "WhatsApp ventas",
    phone_number: "+1 809-555-0100",
    phone_number_id: platformId(),
    business_account_id: platformId(),
    access_token: `EAAG${uniqueName("access")}`,
    app_secret: `appsecret-${uniqueName("s")}`,
    webhook_verify_token: `verify-${uniqueName("v")}`,
  };
}

export async function outboxRows(tenantId: number) {
  return asOwner((db) => db.select().from(schema.outboxMessages).where(eq(schema.outboxMessages.tenantId, tenantId)).orderBy(schema.outboxMessages.id));
}

export async function outboxRow(tenantId: number, id: number) {
  const [row] = await asOwner((db) =>
    db
      .select()
      .from(schema.outboxMessages)
      .where(and(eq(schema.outboxMessages.tenantId, tenantId), eq(schema.outboxMessages.id, id))),
  );
  return row!;
}

export async function hmacHex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

import { expect } from "vitest";
import { config } from "../../src/env";
import { eventPayload } from "../../src/modules/webhooks/data-formats";
import type { WebhookEndpointWithSecret } from "../../src/modules/webhooks/schemas";
import type { DataWithMessage } from "../support/api";
import { env } from "../support/env";
import { ownerRows, type SeededTenant, sql, uniqueName } from "../support/seed";

// biome-ignore lint/suspicious/noExplicitAny: an event's data is the resource's GET, checked against it.
export type StoredEvent = { public_id: string; type: string; workspace_id: number | null; resource_type: string | null; resource_id: number | null; data: any };

/**
 * The tenant's stored events, oldest first, read as the owner, each `data` as it is sent (an event
 * stored with the rows its statement read is shaped by its format, webhooks/data-formats.ts).
 */
export async function storedEvents(tenantId: number, ...types: string[]): Promise<StoredEvent[]> {
  const rows = await ownerRows<StoredEvent & { data_format: string | null }>(
    sql`SELECT public_id, type, workspace_id, resource_type, resource_id, data, data_format FROM webhook_events WHERE tenant_id = ${tenantId} ORDER BY id`,
  );
  return rows
    .filter((row) => !types.length || types.includes(row.type))
    .map(({ data_format, ...row }) => ({ ...row, data: eventPayload({ data: row.data, dataFormat: data_format }, config(env)) }));
}

/** The fake receiver of scripts/fake-providers.ts: a URL of its own per test. */
const fakeUrl = () => (env as unknown as { TEST_FAKE_PROVIDERS_URL: string }).TEST_FAKE_PROVIDERS_URL;

export function receiverKey(): { key: string; url: string } {
  const key = uniqueName("hook");
  return { key, url: `${fakeUrl()}/receiver/${key}` };
}

/** The secrets the receiver checks each request against with the Standard Webhooks library. */
export async function receiverSecrets(key: string, secrets: Record<string, string>) {
  const res = await fetch(`${fakeUrl()}/_control/receiver-secrets`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, secrets }),
  });
  expect(res.status).toBe(200);
}

export interface ReceivedHook {
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: the event as the receiver parsed it.
  body: any;
  raw: string;
  verified: Record<string, boolean>;
}

export async function receivedHooks(key: string): Promise<ReceivedHook[]> {
  const res = await fetch(`${fakeUrl()}/_control/requests?service=receiver&key=${encodeURIComponent(key)}`);
  return ((await res.json()) as { requests: ReceivedHook[] }).requests;
}

/** What the fake resolver (scripts/fake-providers.ts, /dns-query) answers for `name`. */
export async function scriptDns(name: string, answer: { A?: string[]; AAAA?: string[]; nxdomain?: boolean; status?: number }) {
  const res = await fetch(`${fakeUrl()}/_control/dns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, ...answer }),
  });
  expect(res.status).toBe(200);
}

/** A host name of its own for a test (the fake resolver answers a public address until scripted). */
export const uniqueHost = () => `${uniqueName("h")}.hooks.test`;

export const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

/** An endpoint of the tenant pointing at a fresh receiver that verifies with its secret. */
export async function receiverEndpoint(tenant: SeededTenant, events: string[], extra: Record<string, unknown> = {}) {
  const { key, url } = receiverKey();
  const res = await tenant.api.post<DataWithMessage<WebhookEndpointWithSecret>>("/webhook-endpoints", { url, events, ...extra });
  expect(res.status, res.text).toBe(201);
  await receiverSecrets(key, { current: res.body.data.secret });
  return { key, id: res.body.data.id };
}

import { expect } from "vitest";
import { env } from "../support/env";
import { uniqueName } from "../support/seed";

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

export const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

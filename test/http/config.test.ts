import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { readResponse, testRequest } from "../support/api";
import { env } from "../support/env";

/** console.error of this isolate (the app runs here through createApp().fetch), as lines. */
function captureErrors(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  return lines;
}

async function fetchWith(workerEnv: Env, path = "/api/v1/workspaces") {
  const ctx = createExecutionContext();
  const response = await createApp().fetch(testRequest("config-test", path), workerEnv, ctx);
  await waitOnExecutionContext(ctx);
  return readResponse<{ code: string; message: string }>(response);
}

const startupLines = (lines: string[]) => lines.filter((line) => line.includes("startup: invalid configuration"));

afterEach(() => vi.restoreAllMocks());

describe("configuration parsed once (src/env.ts)", () => {
  it("a missing JWT_SECRET: 500 internal_error with the request's reference, the startup error logged once", async () => {
    const lines = captureErrors();
    const broken = { ...env, JWT_SECRET: undefined } as unknown as Env;
    const first = await fetchWith(broken);
    expect(first.status).toBe(500);
    const reference = first.headers.get("x-request-id");
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.body).toEqual({ code: "internal_error", message: `Server error. Reference: ${reference}` });
    // Health too: a Worker without its secrets is not healthy.
    const health = await fetchWith(broken, "/health");
    expect(health.status).toBe(500);
    expect(health.body.code).toBe("internal_error");

    const startup = startupLines(lines);
    expect(startup).toHaveLength(1);
    expect(JSON.parse(startup[0]!)).toMatchObject({ level: "error", problems: ["JWT_SECRET is required"] });
    // The request's own line carries its reference.
    expect(lines.some((line) => line.includes(reference!) && line.includes("ConfigError"))).toBe(true);
  });

  it("a malformed number var is a startup error too, never a NaN limit", async () => {
    const lines = captureErrors();
    const response = await fetchWith({ ...env, RATE_LIMIT_ANONYMOUS_PER_MINUTE: "ten" });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: "internal_error", message: `Server error. Reference: ${response.headers.get("x-request-id")}` });
    const startup = startupLines(lines);
    expect(startup).toHaveLength(1);
    const problems: string[] = JSON.parse(startup[0]!).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^RATE_LIMIT_ANONYMOUS_PER_MINUTE /);
    // Names the setting, never the values of the secrets.
    expect(startup[0]).not.toContain(env.JWT_SECRET);
    expect(startup[0]).not.toContain(env.DATABASE_URL);
  });

  it("a short JWT_SECRET and a key that is not 32 bytes are refused together, by name", async () => {
    const lines = captureErrors();
    const response = await fetchWith({ ...env, JWT_SECRET: "short", APP_ENCRYPTION_KEY: btoa("sixteen-byte-key") });
    expect(response.status).toBe(500);
    expect(JSON.parse(startupLines(lines)[0]!).problems).toEqual(["JWT_SECRET must be at least 32 characters", "APP_ENCRYPTION_KEY must be 32 bytes (base64)"]);
  });

  it("a blank var takes its default: the anonymous limit stays 10 a minute", async () => {
    const response = await fetchWith({ ...env, RATE_LIMIT_ANONYMOUS_PER_MINUTE: "", RATE_LIMIT_NAMESPACE: `config-${crypto.randomUUID()}` });
    expect(response.headers.get("x-ratelimit-limit")).toBe("10");
  });

  it("with a missing DATABASE_URL a cron does nothing and a queue batch is retried whole, logged once", async () => {
    const lines = captureErrors();
    const broken = { ...env, DATABASE_URL: undefined } as unknown as Env;
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: new Date() }), broken, ctx);
    await waitOnExecutionContext(ctx);
    const batch = createMessageBatch("outbox", [{ id: "m-1", timestamp: new Date(), attempts: 1, body: { tenant_id: 1, outbox_id: 1 } }]);
    const queueCtx = createExecutionContext();
    await (worker as ExportedHandler<Env>).queue!(batch as MessageBatch<unknown>, broken, queueCtx);
    const result = await getQueueResult(batch, queueCtx);
    expect(result.retryBatch.retry).toBe(true);
    expect(result.explicitAcks).toEqual([]);
    const startup = startupLines(lines);
    expect(startup).toHaveLength(1);
    expect(JSON.parse(startup[0]!).problems).toEqual(["DATABASE_URL must be a postgres:// connection string"]);
    expect(lines).toHaveLength(1); // nothing else failed: no connection was attempted
  });
});

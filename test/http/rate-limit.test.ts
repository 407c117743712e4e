import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call } from "../support/api";
import { env } from "../support/env";
import { seedTenant } from "../support/seed";

describe(`rate limits (${env.UPSTASH_REDIS_REST_URL ? "Redis through the Upstash relay" : "in-memory window"})`, () => {
  // The clock is injected: frozen mid-minute, so a window boundary never falls inside a test.
  beforeEach(() => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: minute + 30_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lets 60 authenticated requests a minute through and answers the 61st with 429", async () => {
    const tenant = await seedTenant();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof tenant.api.get>> | undefined;
    for (let i = 0; i < 60; i++) {
      last = await tenant.api.get("/me");
      statuses.push(last.status);
    }
    expect(statuses).toEqual(Array(60).fill(200));
    expect(last!.headers.get("x-ratelimit-limit")).toBe("60");
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");

    const limited = await tenant.api.get("/me");
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: "Too many requests.", code: "rate_limited" });
    expect(limited.headers.get("x-ratelimit-limit")).toBe("60");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    const retryAfter = Number(limited.headers.get("retry-after"));
    // Frozen at second 30 of the window: the window ends in 30 s.
    expect(retryAfter).toBe(30);
  });

  it("lets 10 anonymous requests a minute from one IP through and answers the 11th with 429", async () => {
    const tenant = await seedTenant();
    const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const body = { email: "nobody@x.do", password: "wrong-password" };
    for (let i = 0; i < 10; i++) {
      const res = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body, ip });
      expect(res.status).toBe(401);
      expect(res.headers.get("x-ratelimit-limit")).toBe("10");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(9 - i));
    }
    const limited = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body, ip });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    // Another IP is not affected.
    const elsewhere = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body });
    expect(elsewhere.status).toBe(401);
  });
});

describe("rate limits of platform webhooks", () => {
  it("webhooks have their own bucket per endpoint, not the 10-per-IP anonymous one", async () => {
    const tenant = await seedTenant();
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    for (let i = 0; i < 12; i++) {
      const res = await call(tenant.subdomain, "/webhooks/messaging-bots/999999", { method: "POST", body: { update_id: i }, ip });
      expect(res.status).toBe(403);
      expect(res.headers.get("x-ratelimit-limit")).toBe("600");
    }
    const anonymous = await call(tenant.subdomain, "/api/v1/me", { ip });
    expect(anonymous.headers.get("x-ratelimit-limit")).toBe("10");
    expect(anonymous.headers.get("x-ratelimit-remaining")).toBe("9");
  });
});

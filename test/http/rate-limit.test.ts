import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RequestTransaction } from "../../src/db/client";
import { quotationSetup } from "../quotations/helpers";
import { appCall, NO_LIMIT } from "../security/world";
import { call } from "../support/api";
import { env } from "../support/env";
import { forgedToken } from "../support/forged";
import { requestOpenings } from "../support/openings";
import { DEFAULT_PASSWORD, seedTenant, seedUser, uniqueName } from "../support/seed";

/** A Postgres URL whose port refuses connections: any database work answers 503. */
const DATABASE_DOWN = "postgres://sucursal_app@127.0.0.1:1/x";
/** The end of the current fixed 15-minute window of login failures. */
const loginWindowEnd = (now: number) => (Math.floor(now / 900_000) + 1) * 900_000;

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

  it("runs a user's read while the limiter decides: over the limit, the read's answer and its headers give way to the same 429, and their next read waits for the limiter", async () => {
    const { tenant, create } = await quotationSetup();
    const quotation = await create();
    // A user who has made no request yet, allowed 2 a minute; their quotation's PDF has headers of its own.
    const carla = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const env = { RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "2" };
    const pdf = () => appCall(tenant.subdomain, `/quotations/${quotation.id}/pdf`, { token: carla.token, env });
    const first = await pdf();
    expect(first.status).toBe(200);
    expect(first.headers.get("content-disposition")).toBe('attachment; filename="COT00000001.pdf"');
    expect((await pdf()).headers.get("x-ratelimit-remaining")).toBe("0");
    const later = vi.spyOn(RequestTransaction.prototype, "openLater");
    try {
      const over = await pdf();
      // The read ran alongside the limiter (its transaction opened), and nothing of it is shown.
      expect(requestOpenings(later, tenant.tenantId)).toBe(1);
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ message: "Too many requests.", code: "rate_limited" });
      expect(over.headers.get("content-type")).toMatch(/^application\/json/);
      expect(over.headers.get("content-disposition")).toBeNull();
      expect(over.headers.get("x-ratelimit-limit")).toBe("2");
      expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(over.headers.get("retry-after")).toBe("30");
      expect(over.headers.get("x-request-id")).toMatch(/\S/);
      // Refused in this isolate: the next read is judged before any database work.
      later.mockClear();
      const again = await pdf();
      expect(again.status).toBe(429);
      expect(again.body).toEqual({ message: "Too many requests.", code: "rate_limited" });
      expect(requestOpenings(later, tenant.tenantId)).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("lets 10 anonymous requests a minute from one IP through and answers the 11th with 429", async () => {
    const tenant = await seedTenant();
    const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    // A different email each time: ten failures for one account would trip the per-account limit too.
    const body = (i: number) => ({ email: `nobody${i}@x.do`, password: "wrong-password" });
    for (let i = 0; i < 10; i++) {
      const res = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: body(i), ip });
      expect(res.status).toBe(401);
      expect(res.headers.get("x-ratelimit-limit")).toBe("10");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(9 - i));
    }
    const limited = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: body(10), ip });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    // Another IP is not affected.
    const elsewhere = await call(tenant.subdomain, "/api/v1/auth/tokens", { method: "POST", body: body(11) });
    expect(elsewhere.status).toBe(401);
  });

  it("counts a request with a forged token in the anonymous per-IP bucket: 10 × 401, then 429", async () => {
    // The token is verified once (bearerToken); one that fails verification is no caller, so its
    // requests share the IP's anonymous bucket instead of a per-user one.
    const tenant = await seedTenant();
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const forged = await forgedToken(tenant.tenantId, tenant.admin.id);
    for (let i = 0; i < 10; i++) {
      const res = await call(tenant.subdomain, "/api/v1/me", { token: forged, ip });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated" });
      expect(res.headers.get("x-ratelimit-limit")).toBe("10");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(9 - i));
    }
    const limited = await call(tenant.subdomain, "/api/v1/me", { token: forged, ip });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: "Too many requests.", code: "rate_limited" });
    // The real token of the same user, from the same IP, has its own per-user bucket.
    const real = await call(tenant.subdomain, "/api/v1/me", { token: tenant.admin.token, ip });
    expect(real.status).toBe(200);
    expect(real.headers.get("x-ratelimit-limit")).toBe("60");
  });
});

describe(`rate limits before any database work (${env.UPSTASH_REDIS_REST_URL ? "Redis" : "in-memory"})`, () => {
  beforeEach(() => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: minute + 30_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers anonymous requests over the per-IP limit with 429 even when the database is down", async () => {
    // A host never looked up: without the limit, each request would try the tenant lookup (503).
    const subdomain = uniqueName("cold");
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const options = { ip, env: { DATABASE_URL: DATABASE_DOWN, RATE_LIMIT_ANONYMOUS_PER_MINUTE: "3" } };
    for (let i = 0; i < 3; i++) {
      const res = await appCall(subdomain, "/auth/tokens", { ...options, method: "POST", body: { email: "a@b.do", password: "x" } });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe("service_unavailable");
    }
    const limited = await appCall(subdomain, "/auth/tokens", { ...options, method: "POST", body: { email: "a@b.do", password: "x" } });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: "Too many requests.", code: "rate_limited" });
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3");
    // The bucket is the IP on this host: the same IP on another host starts afresh.
    const otherHost = await appCall(uniqueName("cold"), "/me", options);
    expect(otherHost.status).toBe(503);
  });

  it("remembers an unknown subdomain for a minute: repeated requests answer 404 without opening a database connection", async () => {
    const subdomain = uniqueName("nosuch");
    const first = await appCall(subdomain, "/me", { env: NO_LIMIT });
    expect(first.status).toBe(404);
    expect(first.body).toEqual({ message: "Unknown tenant.", code: "tenant_not_found" });
    // With the database unreachable, only a lookup that never touches it can still say 404.
    const down = { ...NO_LIMIT, DATABASE_URL: DATABASE_DOWN };
    for (const path of ["/me", "/auth/tokens", "/invoices", "/nope"]) {
      const res = await appCall(subdomain, path, { env: down });
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ message: "Unknown tenant.", code: "tenant_not_found" });
    }
    // The override does reach the database: a host not remembered answers 503.
    const unseen = await appCall(uniqueName("nosuch"), "/me", { env: down });
    expect(unseen.status).toBe(503);
    // 61 s later the entry has expired: the next request looks again (and finds the database down).
    vi.setSystemTime(Date.now() + 61_000);
    const expired = await appCall(subdomain, "/me", { env: down });
    expect(expired.status).toBe(503);
  });
});

describe(`per-account login limit (${env.UPSTASH_REDIS_REST_URL ? "Redis" : "in-memory"})`, () => {
  beforeEach(() => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: minute + 30_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  // Each call from its own random IP: the per-IP limit never applies here.
  const login = (subdomain: string, email: string, password: string) => call(subdomain, "/api/v1/auth/tokens", { method: "POST", body: { email, password } });

  it("after 10 failures for one account from 10 IPs refuses its 11th login, right password included, with Retry-After; other accounts are unaffected", async () => {
    const tenant = await seedTenant();
    const colleague = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    for (let i = 0; i < 10; i++) {
      // The account is the lowercased email: case differences are the same account.
      const res = await login(tenant.subdomain, i % 2 ? tenant.admin.email.toUpperCase() : tenant.admin.email, `wrong-${i}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("invalid_credentials");
    }
    const blocked = await login(tenant.subdomain, tenant.admin.email, DEFAULT_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ message: "Too many failed logins for this account; try again later.", code: "rate_limited" });
    expect(Number(blocked.headers.get("retry-after"))).toBe(Math.ceil((loginWindowEnd(Date.now()) - Date.now()) / 1000));
    expect(blocked.headers.get("x-ratelimit-limit")).toBe("10");
    expect(blocked.headers.get("x-ratelimit-remaining")).toBe("0");
    // Another account of the tenant logs in; the same email on another tenant is another account.
    expect((await login(tenant.subdomain, colleague.email, DEFAULT_PASSWORD)).status).toBe(201);
    const elsewhere = await seedTenant();
    await seedUser(elsewhere, { role: "admin", workspaceIds: [elsewhere.workspaceId], email: tenant.admin.email });
    expect((await login(elsewhere.subdomain, tenant.admin.email, DEFAULT_PASSWORD)).status).toBe(201);
    // Tokens already issued keep working: only logins are refused.
    expect((await tenant.api.get("/me")).status).toBe(200);
    // When the window ends, the account logs in again.
    vi.setSystemTime(loginWindowEnd(Date.now()) + 1_000);
    expect((await login(tenant.subdomain, tenant.admin.email, DEFAULT_PASSWORD)).status).toBe(201);
  });

  it("answers an unknown email exactly as a known one: 10 × 401, then 429 with the same body and Retry-After", async () => {
    const tenant = await seedTenant();
    const ghost = `ghost-${uniqueName("g")}@nowhere.do`;
    for (let i = 0; i < 10; i++) {
      const res = await login(tenant.subdomain, ghost, "whatever");
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "These credentials do not match our records.", code: "invalid_credentials" });
    }
    const known = tenant.admin.email;
    for (let i = 0; i < 10; i++) expect((await login(tenant.subdomain, known, "whatever")).status).toBe(401);
    const [ghostLimited, knownLimited] = [await login(tenant.subdomain, ghost, "whatever"), await login(tenant.subdomain, known, "whatever")];
    expect(ghostLimited.status).toBe(429);
    expect(knownLimited.status).toBe(429);
    expect(ghostLimited.body).toEqual(knownLimited.body);
    expect(ghostLimited.headers.get("retry-after")).toBe(knownLimited.headers.get("retry-after"));
  });

  it("does not reset an account's failures on a successful login", async () => {
    const tenant = await seedTenant();
    for (let i = 0; i < 9; i++) expect((await login(tenant.subdomain, tenant.admin.email, "wrong")).status).toBe(401);
    expect((await login(tenant.subdomain, tenant.admin.email, DEFAULT_PASSWORD)).status).toBe(201);
    expect((await login(tenant.subdomain, tenant.admin.email, "wrong")).status).toBe(401); // the 10th failure
    expect((await login(tenant.subdomain, tenant.admin.email, DEFAULT_PASSWORD)).status).toBe(429);
  });

  it("counts wrong current passwords of POST /me/password as failed logins: a stolen token cannot guess the password", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const change = (current: string) => user.api.post("/me/password", { current_password: current, new_password: "una contraseña nueva y larga" });
    for (let i = 0; i < 10; i++) {
      const res = await change(`guess-${i}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["current_password"]);
    }
    // The right password now gets 429, by password change and by login, and nothing changed.
    const blocked = await change(DEFAULT_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ message: "Too many failed logins for this account; try again later.", code: "rate_limited" });
    expect((await login(tenant.subdomain, user.email, DEFAULT_PASSWORD)).status).toBe(429);
    vi.setSystemTime(loginWindowEnd(Date.now()) + 1_000);
    expect((await login(tenant.subdomain, user.email, DEFAULT_PASSWORD)).status).toBe(201);
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

  it("keys an endpoint's bucket by its parsed id: /01, /0x1, /+1, /1.0 and / 1 are 404 and never a bucket of their own", async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: minute + 30_000 });
    try {
      const tenant = await seedTenant();
      const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
      const env = { RATE_LIMIT_WEBHOOK_PER_MINUTE: "3" };
      const hit = (id: string) => appCall(tenant.subdomain, `/webhooks/messaging-bots/${id}`, { method: "POST", body: { update_id: 1 }, env, ip });
      const first = await hit("1");
      expect(first.status).toBe(403);
      expect(first.body.code).toBe("webhook_verification_failed");
      expect(first.headers.get("x-ratelimit-limit")).toBe("3");
      expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
      for (const spelling of ["01", "0x1", "+1", "1.0", "%201", "1e0", "2147483648"]) {
        const res = await hit(spelling);
        expect(res.status, spelling).toBe(404);
        expect(res.body, spelling).toEqual({ message: "Route not found.", code: "route_not_found" });
        // Counted in the IP's anonymous bucket, not in a webhook bucket per spelling.
        expect(res.headers.get("x-ratelimit-limit"), spelling).toBe("10");
      }
      const verify = await appCall(tenant.subdomain, "/webhooks/chat-accounts/01?hub.mode=subscribe&hub.verify_token=x&hub.challenge=y", { env, ip });
      expect(verify.status).toBe(404);
      expect((await hit("1")).headers.get("x-ratelimit-remaining")).toBe("1");
      expect((await hit("1")).headers.get("x-ratelimit-remaining")).toBe("0");
      const limited = await hit("1");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("30");
    } finally {
      vi.useRealTimers();
    }
  });
});

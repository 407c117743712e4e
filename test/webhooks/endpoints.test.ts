import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";
import type { WebhookEndpoint, WebhookEndpointWithSecret } from "../../src/modules/webhooks/schemas";
import { type DataWithMessage, type Page, readResponse, testRequest } from "../support/api";
import { env } from "../support/env";
import { ownerRow, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { receiverKey, scriptDns, uniqueHost } from "./helpers";

const endpointBody = (url = receiverKey().url) => ({ url, events: ["invoice.created"], description: "ERP" });

describe("webhook endpoints", () => {
  it("create shows the whsec_ secret once; GET, list and PATCH never show it; it is stored encrypted", async () => {
    const tenant = await seedTenant();
    const { url } = receiverKey();
    const created = await tenant.api.post<DataWithMessage<WebhookEndpointWithSecret>>("/webhook-endpoints", {
      url,
      events: ["invoice.created", "payment.received"],
      description: "ERP",
      workspace_ids: [tenant.workspaceId],
    });
    expect(created.status, created.text).toBe(201);
    const secret = created.body.data.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.data).toMatchObject({
      url,
      events: ["invoice.created", "payment.received"],
      description: "ERP",
      workspace_ids: [tenant.workspaceId],
      enabled: true,
      previous_secret_expires_at: null,
    });
    const id = created.body.data.id;

    const got = await tenant.api.get(`/webhook-endpoints/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).not.toHaveProperty("secret");
    expect(got.text).not.toContain("whsec_");
    const list = await tenant.api.get<Page<WebhookEndpoint>>("/webhook-endpoints");
    expect(list.body.data.map((e) => e.id)).toEqual([id]);
    expect(list.text).not.toContain("whsec_");

    const patched = await tenant.api.patch(`/webhook-endpoints/${id}`, { enabled: false, events: ["*"], workspace_ids: null });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ enabled: false, events: ["*"], workspace_ids: null, url, description: "ERP" });
    expect(patched.text).not.toContain("whsec_");

    const stored = await ownerRow<{ secret_encrypted: string }>(sql`SELECT secret_encrypted FROM webhook_endpoints WHERE id = ${id}`);
    expect(stored.secret_encrypted).toMatch(/^v1\./);
    expect(stored.secret_encrypted).not.toContain(secret.slice(6, 20));

    expect((await tenant.api.delete(`/webhook-endpoints/${id}`)).status).toBe(200);
    expect((await tenant.api.get(`/webhook-endpoints/${id}`)).status).toBe(404);
  });

  it("rotate-secret returns a new secret and keeps the previous one signing for 24 hours", async () => {
    const tenant = await seedTenant();
    const created = await tenant.api.post("/webhook-endpoints", endpointBody());
    const before = Date.now();
    const rotated = await tenant.api.post<DataWithMessage<WebhookEndpointWithSecret>>(`/webhook-endpoints/${created.body.data.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
    const expires = Date.parse(rotated.body.data.previous_secret_expires_at!);
    expect(Math.abs(expires - (before + 24 * 3600 * 1000))).toBeLessThan(60_000);
    expect((await tenant.api.get(`/webhook-endpoints/${created.body.data.id}`)).body.data.previous_secret_expires_at).toBe(
      rotated.body.data.previous_secret_expires_at,
    );
  });

  it('validates the body: events known or ["*"] alone, workspace_ids of the tenant', async () => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    const bad = await tenant.api.post("/webhook-endpoints", { url: receiverKey().url, events: ["invoice.exploded"] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["events.0"]);
    const star = await tenant.api.post("/webhook-endpoints", { url: receiverKey().url, events: ["*", "invoice.created"] });
    expect(star.status).toBe(422);
    expect(star.body.errors.events[0]).toContain('["*"]');
    const empty = await tenant.api.post("/webhook-endpoints", { url: receiverKey().url, events: [] });
    expect(empty.status).toBe(422);
    const foreign = await tenant.api.post("/webhook-endpoints", { ...endpointBody(), workspace_ids: [other.workspaceId] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.workspace_ids[0]).toBe(`No such workspace: ${other.workspaceId}.`);
    const second = await seedWorkspace(tenant);
    expect((await tenant.api.post("/webhook-endpoints", { ...endpointBody(), workspace_ids: [second] })).status).toBe(201);
  });

  it("SSRF: refuses private, link-local, reserved and non-https URLs with 422 on url", async () => {
    const tenant = await seedTenant();
    const refused = [
      "http://example.com/hook",
      "ftp://example.com/hook",
      "https://10.0.0.5/hook",
      "https://172.16.3.4/hook",
      "https://192.168.1.10/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://[fd00::1]/",
      "https://[fe80::1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://0x0a000001/",
      "https://user:pass@example.com/",
      "not a url",
    ];
    for (const url of refused) {
      const res = await tenant.api.post("/webhook-endpoints", { url, events: ["*"] });
      expect(res.status, url).toBe(422);
      expect(Object.keys(res.body.errors), url).toEqual(["url"]);
    }
    const created = await tenant.api.post("/webhook-endpoints", endpointBody("https://hooks.example.com/sucursal"));
    expect(created.status).toBe(201);
    const patched = await tenant.api.patch(`/webhook-endpoints/${created.body.data.id}`, { url: "https://192.168.0.1/x" });
    expect(patched.status).toBe(422);
    expect(patched.body.errors.url).toEqual(["Must not point at a private, link-local or reserved address."]);
  });

  /**
   * Addresses outside the common private ranges that lead nowhere public: site-local, discard,
   * documentation, 6to4 and Teredo wrapping a private, link-local or documentation IPv4 address,
   * IPv4-compatible and NAT64 forms (IANA's special-purpose registries, as ipaddr.js keeps them).
   */
  const reserved: [string, string][] = [
    ["[fec0::1]", "fec0::1"],
    ["[2002:c0a8:101::1]", "2002:c0a8:101::1"], // 6to4 of 192.168.1.1
    ["[2002:a9fe:a9fe::1]", "2002:a9fe:a9fe::1"], // 6to4 of 169.254.169.254
    ["[2002:a00:1::]", "2002:a00:1::"], // 6to4 of 10.0.0.1
    ["[2001::1]", "2001::1"], // Teredo, server 0.0.0.0
    ["[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "2001:0:4136:e378:8000:63bf:3fff:fdd2"], // Teredo, client 192.0.2.45
    ["[100::1]", "100::1"],
    ["192.0.2.1", "192.0.2.1"],
    ["198.51.100.7", "198.51.100.7"],
    ["203.0.113.9", "203.0.113.9"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["[::102:304]", "::1.2.3.4"],
    ["[64:ff9b::a00:1]", "64:ff9b::a00:1"],
    ["255.255.255.255", "255.255.255.255"],
  ];

  it("SSRF: refuses the reserved, documentation and tunnelled addresses too, as literals and as DNS answers; public ones pass", async () => {
    const tenant = await seedTenant();
    const create = (host: string) => tenant.api.post("/webhook-endpoints", { url: `https://${host}/hook`, events: ["*"] });
    for (const [literal, address] of reserved) {
      const res = await create(literal);
      expect(res.status, literal).toBe(422);
      expect(res.body.errors, literal).toEqual({ url: ["Must not point at a private, link-local or reserved address."] });
      const name = uniqueHost();
      await scriptDns(name, address.includes(":") ? { A: [], AAAA: [address] } : { A: [address] });
      const resolved = await create(name);
      expect(resolved.status, address).toBe(422);
      expect(resolved.body.errors, address).toEqual({ url: [`The host ${name} resolves to ${address}, a private, loopback, link-local or reserved address.`] });
    }
    // Public unicast, and a 6to4 address of a public IPv4 one (8.8.8.8), still pass.
    for (const literal of ["8.8.8.8", "[2606:4700:4700::1111]", "[2002:808:808::1]"]) {
      const res = await create(literal);
      expect(res.status, literal).toBe(201);
    }
    const publicName = uniqueHost();
    await scriptDns(publicName, { A: ["93.184.215.14"], AAAA: ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"] });
    expect((await create(publicName)).status).toBe(201);
  });

  it("SSRF in production (WEBHOOKS_ALLOW_HTTP_LOOPBACK off): loopback and localhost refused, over https too", async () => {
    const tenant = await seedTenant();
    const production = { ...env, WEBHOOKS_ALLOW_HTTP_LOOPBACK: "false" } as unknown as Env;
    const post = async (url: string) => {
      const ctx = createExecutionContext();
      const response = await createApp().fetch(
        testRequest(tenant.subdomain, "/api/v1/webhook-endpoints", { method: "POST", token: tenant.admin.token, body: { url, events: ["*"] } }),
        production,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return readResponse(response);
    };
    for (const url of [
      receiverKey().url,
      "https://127.0.0.1/hook",
      "https://localhost/hook",
      "https://api.localhost/",
      "https://[::1]/",
      "https://2130706433/",
    ]) {
      const res = await post(url);
      expect(res.status, url).toBe(422);
      expect(res.body.errors.url, url).toEqual(["Must not point at localhost or a loopback address."]);
    }
    expect((await post("http://hooks.example.com/")).body.errors.url).toEqual(["Must be an https:// URL."]);
    const loopbackName = uniqueHost();
    await scriptDns(loopbackName, { A: ["127.0.0.1"] });
    expect((await post(`https://${loopbackName}/`)).body.errors.url).toEqual([
      `The host ${loopbackName} resolves to 127.0.0.1, a private, loopback, link-local or reserved address.`,
    ]);
    expect((await post("https://hooks.example.com/")).status).toBe(201);
  });

  it("SSRF by name: a host resolving (through DNS over HTTPS) to a private address or nowhere is refused; a resolver down does not refuse", async () => {
    const tenant = await seedTenant();
    const [privateV4, privateV6, mixed, missing, loopback, down, fine] = [
      uniqueHost(),
      uniqueHost(),
      uniqueHost(),
      uniqueHost(),
      uniqueHost(),
      uniqueHost(),
      uniqueHost(),
    ];
    await scriptDns(privateV4, { A: ["10.1.2.3"] });
    await scriptDns(privateV6, { A: [], AAAA: ["fd12:3456::1"] });
    await scriptDns(mixed, { A: ["93.184.215.14", "169.254.169.254"] });
    await scriptDns(missing, { nxdomain: true });
    await scriptDns(loopback, { A: ["127.0.0.1"] });
    await scriptDns(down, { status: 500 });
    const create = (host: string) => tenant.api.post("/webhook-endpoints", { url: `https://${host}/hook`, events: ["*"] });
    const refusals: [string, string][] = [
      [privateV4, "10.1.2.3"],
      [privateV6, "fd12:3456::1"],
      [mixed, "169.254.169.254"],
    ];
    for (const [host, address] of refusals) {
      const res = await create(host);
      expect(res.status, host).toBe(422);
      expect(res.body.errors.url).toEqual([`The host ${host} resolves to ${address}, a private, loopback, link-local or reserved address.`]);
    }
    const nx = await create(missing);
    expect(nx.status).toBe(422);
    expect(nx.body.errors.url).toEqual([`The host ${missing} does not resolve.`]);
    // Loopback by name: allowed only where loopback is (these tests' WEBHOOKS_ALLOW_HTTP_LOOPBACK).
    expect((await create(loopback)).status).toBe(201);
    // The resolver down: saved (each delivery resolves again, and sends nothing while it cannot).
    expect((await create(down)).status).toBe(201);
    const created = await create(fine);
    expect(created.status, created.text).toBe(201);
    const moved = await tenant.api.patch(`/webhook-endpoints/${created.body.data.id}`, { url: `https://${privateV4}/other` });
    expect(moved.status).toBe(422);
    expect(moved.body.errors.url[0]).toContain("resolves to 10.1.2.3");
  });

  it("without APP_ENCRYPTION_KEY: 422 webhooks_not_configured, nothing stored", async () => {
    const tenant = await seedTenant();
    const ctx = createExecutionContext();
    const response = await createApp().fetch(
      testRequest(tenant.subdomain, "/api/v1/webhook-endpoints", { method: "POST", token: tenant.admin.token, body: endpointBody() }),
      { ...env, APP_ENCRYPTION_KEY: undefined } as unknown as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const res = await readResponse(response);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: "webhooks_not_configured", message: "The server has no APP_ENCRYPTION_KEY: webhook signing secrets cannot be stored." });
    expect((await tenant.api.get<Page<WebhookEndpoint>>("/webhook-endpoints")).body.data).toEqual([]);
  });

  it("needs webhooks:manage at company level (403 company_forbidden for branch roles); another tenant's endpoints are invisible", async () => {
    const tenant = await seedTenant();
    const created = await tenant.api.post("/webhook-endpoints", endpointBody());
    const id = created.body.data.id;
    for (const role of ["member", "viewer"]) {
      const user = await seedUser(tenant, { role, workspaceIds: [tenant.workspaceId] });
      for (const res of [
        await user.api.get("/webhook-endpoints"),
        await user.api.post("/webhook-endpoints", endpointBody()),
        await user.api.get(`/webhook-endpoints/${id}`),
        await user.api.patch(`/webhook-endpoints/${id}`, { enabled: false }),
        await user.api.post(`/webhook-endpoints/${id}/rotate-secret`),
        await user.api.get(`/webhook-endpoints/${id}/deliveries`),
        await user.api.delete(`/webhook-endpoints/${id}`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe("company_forbidden");
      }
    }
    const other = await seedTenant();
    expect((await other.api.get<Page<WebhookEndpoint>>("/webhook-endpoints")).body.data).toEqual([]);
    for (const res of [
      await other.api.get(`/webhook-endpoints/${id}`),
      await other.api.patch(`/webhook-endpoints/${id}`, { enabled: false }),
      await other.api.post(`/webhook-endpoints/${id}/rotate-secret`),
      await other.api.get(`/webhook-endpoints/${id}/deliveries`),
      await other.api.delete(`/webhook-endpoints/${id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect((await tenant.api.get(`/webhook-endpoints/${id}`)).body.data.enabled).toBe(true);
  });
});

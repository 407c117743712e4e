import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createClient, RequestTransaction } from "../../src/db/client";
import { appCall, control, NO_LIMIT, securityEnv } from "../security/world";
import { requestOpenings } from "../support/openings";
import { asOwner, ownerRow, seedTenant, seedUser, sql, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * A read whose statements all leave in its opening batch is sent over Neon's SQL-over-HTTP protocol
 * (db/http.ts): one fetch, one transaction at the endpoint. These tests send it to the fault
 * endpoint of the test control server (scripts/lib/sql-http.ts), whose requests they count, and
 * hold its answers to those of the same read over the WebSocket (DB_HTTP_ENDPOINT=off).
 */
const OVER_HTTP = { ...NO_LIMIT, DB_HTTP_ENDPOINT: securityEnv.TEST_FAULT_HTTP_ENDPOINT };
const OVER_SOCKET = { ...NO_LIMIT, DB_HTTP_ENDPOINT: "off" };

interface Batch {
  text: string;
  params: unknown[];
}
async function httpStats(): Promise<{ requests: number; statements: Batch[][] }> {
  return (await fetch(`${securityEnv.TEST_CONTROL_URL}/db/http-stats`)).json();
}

describe("a read over the SQL-over-HTTP endpoint", () => {
  beforeEach(async () => {
    await control("/db/http-stats/reset");
  });
  afterEach(async () => {
    await control("/db/http-fault");
  });

  it("answers as over the WebSocket, in one HTTP request: the context query and the handler's statement in one transaction", async () => {
    const tenant = await seedTenant();
    const product = await createProduct(tenant.api, { name: "Por HTTP", workspace_id: null });
    const call = (path: string, env: Record<string, unknown>) => appCall(tenant.subdomain, path, { token: tenant.admin.token, env });
    // The first request of a user reads its context first (no prediction), over the WebSocket.
    expect((await call("/products", OVER_HTTP)).status).toBe(200);
    await control("/db/http-stats/reset");
    for (const path of [`/products/${product.id}`, "/products?sort=name", "/me", "/company/members"]) {
      const socket = await call(path, OVER_SOCKET);
      const before = (await httpStats()).requests;
      const http = await call(path, OVER_HTTP);
      expect(http.status, `${path}: ${http.text}`).toBe(200);
      expect(http.body, path).toEqual(socket.body);
      expect((await httpStats()).requests, path).toBe(before + 1);
    }
    // The tenant (and the role, where the login role is privileged), the context query, then the handler's statement.
    const texts = (await httpStats()).statements[0]!.map((b) => b.text);
    const context = texts.findIndex((text) => text.includes("request_context("));
    expect(texts[context - 1]).toBe(`SELECT set_config('app.tenant_id', '${tenant.tenantId}', true)`);
    // The handler's statements run read-only: the batch commits there, whatever the answer.
    expect(texts[context + 1]).toBe("SET LOCAL transaction_read_only = on");
    expect(texts).toHaveLength(context + 3);
  });

  it("reads the context of a user no isolate has seen alone over HTTP, then the statements as predicted from it: two HTTP requests, no BEGIN over the WebSocket; a revoked token is 401 after the first", async () => {
    const tenant = await seedTenant();
    await createProduct(tenant.api, { name: "Primera", workspace_id: null });
    const carla = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const call = (token: string) => appCall(tenant.subdomain, "/products", { token, env: OVER_HTTP });
    const begin = vi.spyOn(RequestTransaction.prototype, "begin");
    try {
      const first = await call(carla.token);
      expect(first.status, first.text).toBe(200);
      expect(first.body.data.map((p: { name: string }) => p.name)).toContain("Primera");
      const batches = (await httpStats()).statements.map((batch) => batch.map((b) => b.text));
      expect(batches).toHaveLength(2);
      // The tenant and the context query alone, then the same with the handler's statement, read-only.
      expect(batches[0]).toHaveLength(2);
      expect(batches[0]![0]).toBe(`SELECT set_config('app.tenant_id', '${tenant.tenantId}', true)`);
      expect(batches[0]![1]).toContain("request_context(");
      expect(batches[1]!.slice(0, 3)).toEqual([...batches[0]!, "SET LOCAL transaction_read_only = on"]);
      expect(batches[1]).toHaveLength(4);
      expect(requestOpenings(begin, tenant.tenantId)).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    // Another user, their token revoked before their first request: refused after the context alone.
    const gone = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    await asOwner((db) => db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE user_id = ${gone.id}`));
    await control("/db/http-stats/reset");
    const refused = await call(gone.token);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated" });
    const stats = await httpStats();
    expect(stats.requests).toBe(1);
    expect(stats.statements[0]).toHaveLength(2);
  });

  it("keeps RLS: another tenant's product is 404", async () => {
    const [mine, theirs] = [await seedTenant(), await seedTenant()];
    const foreign = await createProduct(theirs.api, { name: "Ajeno", workspace_id: null });
    const call = () => appCall(mine.subdomain, `/products/${foreign.id}`, { token: mine.admin.token, env: OVER_HTTP });
    await call();
    await control("/db/http-stats/reset");
    const res = await call();
    expect(res.status).toBe(404);
    expect((await httpStats()).requests).toBe(1);
  });

  it("refuses a token revoked since the last request with 401, its statement having read nothing", async () => {
    const tenant = await seedTenant();
    await createProduct(tenant.api, { name: "Secreto", workspace_id: null });
    const call = () => appCall(tenant.subdomain, "/products", { token: tenant.admin.token, env: OVER_HTTP });
    expect((await call()).status).toBe(200);
    await asOwner((db) => db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE user_id = ${tenant.admin.id}`));
    await control("/db/http-stats/reset");
    const res = await call();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated" });
    // The batch the Worker sent, run again: the context query set the tenant to none, so the
    // handler's statement that rode with it read no row — the list's one row of an empty page
    // (db/queries.ts pageOfQuery): a total of 0, no product column.
    const [batch] = (await httpStats()).statements;
    const answer = await fetch(securityEnv.TEST_FAULT_HTTP_ENDPOINT, {
      method: "POST",
      headers: { "Neon-Connection-String": securityEnv.DATABASE_URL, "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true" },
      body: JSON.stringify({ queries: batch!.map((b) => ({ query: b.text, params: b.params })) }),
    });
    expect(answer.status).toBe(200);
    const { results } = (await answer.json()) as { results: { rows: unknown[][] }[] };
    expect(results.at(-1)!.rows).toHaveLength(1);
    expect(results.at(-1)!.rows[0]!.filter((value) => value !== null)).toEqual(["0"]);
  });

  it("runs a read again, context first, when the context its batch returns is not the one predicted; 403 once the permission is gone", async () => {
    const tenant = await seedTenant();
    const role = `r${tenant.tenantId}`;
    const permissions = (list: string) =>
      asOwner((db) => db.execute(sql`UPDATE roles SET permissions = ${list}::text[] WHERE tenant_id = ${tenant.tenantId} AND name = ${role}`));
    await asOwner((db) =>
      db.execute(sql`INSERT INTO roles (tenant_id, name, display_name, permissions) VALUES (${tenant.tenantId}, ${role}, ${role}, '{products:view}'::text[])`),
    );
    const user = await seedUser(tenant, { role, workspaceIds: [tenant.workspaceId] });
    const call = () => appCall(tenant.subdomain, "/products", { token: user.token, env: OVER_HTTP });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    // Another permission: the context differs, the HTTP batch's rows are never shown, and the
    // request runs again with the context read first (begin, over the WebSocket).
    await permissions("{products:view,products:create}");
    await control("/db/http-stats/reset");
    const begin = vi.spyOn(RequestTransaction.prototype, "begin");
    try {
      const again = await call();
      expect(again.status).toBe(200);
      expect((await httpStats()).requests).toBe(1);
      expect(requestOpenings(begin, tenant.tenantId)).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
    await permissions("{}");
    const refused = await call();
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
  });

  it("runs a statement issued after the opening batch in a transaction opened again, context checked, and reads that route over the WebSocket from then on", async () => {
    const tenant = await seedTenant();
    const call = (env: Record<string, unknown>) => appCall(tenant.subdomain, "/reports/607?period=202611", { token: tenant.admin.token, env });
    // The user's first request: its context read over HTTP alone (no isolate has seen them), then
    // its checks' batch over HTTP; its cursor then opened a transaction on the WebSocket.
    const first = await call(OVER_HTTP);
    expect(first.status, first.text).toBe(200);
    const counted = (await httpStats()).requests;
    expect(counted).toBe(2);
    const socket = await call(OVER_SOCKET);
    expect(first.text).toBe(socket.text);
    const second = await call(OVER_HTTP);
    expect(second.text).toBe(socket.text);
    // Learned: the report's cursor needs the WebSocket, so its opening no longer goes over HTTP.
    expect((await httpStats()).requests).toBe(counted);
  });

  it("answers 503 with Retry-After when the endpoint fails; a statement's refusal sends the read over the WebSocket", async () => {
    const tenant = await seedTenant();
    const call = (path: string) => appCall(tenant.subdomain, path, { token: tenant.admin.token, env: OVER_HTTP });
    expect((await call("/products")).status).toBe(200);
    await control(`/db/http-fault?status=500&body=${encodeURIComponent("Couldn't connect to compute node")}`);
    const failed = await call("/products");
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe("service_unavailable");
    expect(failed.headers.get("retry-after")).toBe("5");
    // A statement's refusal (400 with Postgres's fields, as Neon answers it): the batch is sent again
    // over the WebSocket, context first, and its answer is the request's (here the statement passes).
    await control(`/db/http-fault?status=400&body=${encodeURIComponent(JSON.stringify({ message: "value out of range", code: "22003" }))}`);
    const socket = await appCall(tenant.subdomain, "/products", { token: tenant.admin.token, env: OVER_SOCKET });
    const http = await call("/products");
    expect(http.status).toBe(200);
    expect(http.body).toEqual(socket.body);
  });

  it("answers a read from its HTTP batch without ever building the WebSocket driver's Client", async () => {
    const tenant = await seedTenant();
    await control("/db/http-stats/reset");
    let clients = 0;
    const tx = new RequestTransaction(() => {
      clients++;
      return createClient(securityEnv);
    }, securityEnv);
    const http = { endpoint: securityEnv.TEST_FAULT_HTTP_ENDPOINT, connectionString: securityEnv.DATABASE_URL };
    tx.openLater(tenant.tenantId, undefined, undefined, http);
    try {
      const result = await tx.db.execute(sql`SELECT current_setting('app.tenant_id') AS tenant`);
      await tx.confirm();
      await tx.commit();
      // Answered inside the batch's transaction, the tenant set by its opening.
      expect(result.rows).toEqual([{ tenant: String(tenant.tenantId) }]);
      expect((await httpStats()).requests).toBe(1);
    } finally {
      await tx.close();
    }
    expect(clients).toBe(0);
  });

  it("sends a read's statement that writes over the WebSocket, where it commits only with the transaction, and learns the route", async () => {
    const tenant = await seedTenant();
    for (const end of ["rollback", "commit"] as const) {
      await control("/db/http-stats/reset");
      let learned = 0;
      let clients = 0;
      const tx = new RequestTransaction(() => {
        clients++;
        return createClient(securityEnv);
      }, securityEnv);
      const http = { endpoint: securityEnv.TEST_FAULT_HTTP_ENDPOINT, connectionString: securityEnv.DATABASE_URL, onLateStatement: () => learned++ };
      tx.openLater(tenant.tenantId, undefined, undefined, http);
      const role = uniqueName("role");
      try {
        await tx.db.execute(sql`INSERT INTO roles (tenant_id, name, display_name, permissions) VALUES (${tenant.tenantId}, ${role}, ${role}, '{}'::text[])`);
        await tx.confirm();
        // The HTTP batch was tried and refused the write (read-only after the context), nothing kept.
        expect((await httpStats()).requests).toBe(1);
        expect(learned).toBe(1);
        // The WebSocket's Client, made once, when the write needed the connection.
        expect(clients).toBe(1);
        await tx[end]();
      } finally {
        await tx.close();
      }
      const { count } = await ownerRow<{ count: number }>(
        sql`SELECT count(*)::int AS count FROM roles WHERE tenant_id = ${tenant.tenantId} AND name = ${role}`,
      );
      expect(count, end).toBe(end === "commit" ? 1 : 0);
    }
  });
});

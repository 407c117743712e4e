import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { withTenantTransaction } from "../../src/db/client";
import { rowsOf } from "../../src/db/rows";
import { readResponse, testRequest } from "../support/api";
import { env } from "../support/env";
import { asOwner, ownerRows, seedTenant, sql, uniqueName } from "../support/seed";

/**
 * The application role's statement and idle-in-transaction timeouts (migration 0048,
 * docs/reliability.md). They are settings of the role's login: the local server's runs log in as
 * sucursal_app (trust authentication), the other kinds log in as the owner and SET ROLE.
 */
describe.skipIf(env.TEST_DATABASE_KIND !== "local")("database timeouts of the application role", () => {
  it("are in force for the application's sessions: statements 30 s, idle in a transaction 2 min", async () => {
    const shown = await withTenantTransaction(env, null, async (db) =>
      rowsOf<{ statement: string; idle: string; user: string }>(
        await db.execute(
          sql`SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle, current_user AS user`,
        ),
      ),
    );
    expect(shown).toEqual([{ statement: "30s", idle: "2min", user: "sucursal_app" }]);
  });

  it("a statement past the timeout is cut: 503 service_unavailable saying so, Retry-After, nothing changed", async () => {
    const tenant = await seedTenant();
    // A login of our own with a 1 s timeout, acting as sucursal_app (SET ROLE, DB_SET_ROLE), so the
    // cut comes in a second rather than in 30.
    const role = uniqueName("short_timeout_");
    await ownerRows(sql.raw(`CREATE ROLE ${role} LOGIN`));
    try {
      await ownerRows(sql.raw(`GRANT sucursal_app TO ${role}`));
      await ownerRows(sql.raw(`ALTER ROLE ${role} SET statement_timeout = '1s'`));
      const url = new URL(env.DATABASE_URL);
      url.username = role;
      const shortEnv = { ...env, DATABASE_URL: url.toString(), DB_SET_ROLE: "sucursal_app" };
      const patch = async (legalName: string) => {
        const ctx = createExecutionContext();
        const response = await createApp().fetch(
          testRequest(tenant.subdomain, "/api/v1/company", { method: "PATCH", token: tenant.admin.token, body: { legal_name: legalName } }),
          shortEnv,
          ctx,
        );
        await waitOnExecutionContext(ctx);
        return readResponse(response);
      };
      // The owner holds the company's row: the request's UPDATE waits for it until the timeout.
      const blocked = await asOwner(async (db) => {
        await db.execute(sql`SELECT 1 FROM company_profiles WHERE tenant_id = ${tenant.tenantId} FOR UPDATE`);
        return patch("Bloqueada SRL");
      });
      expect(blocked.status, blocked.text).toBe(503);
      expect(blocked.body).toEqual({
        code: "service_unavailable",
        message: "The database stopped the request: it took longer than the statement timeout allows. Nothing was changed; retry it later.",
      });
      expect(blocked.headers.get("retry-after")).toBe("30");
      const [company] = await ownerRows<{ legal_name: string }>(sql`SELECT legal_name FROM company_profiles WHERE tenant_id = ${tenant.tenantId}`);
      expect(company!.legal_name).not.toBe("Bloqueada SRL");
      // Unblocked, the same request goes through.
      expect((await patch("Libre SRL")).status).toBe(200);
    } finally {
      await ownerRows(sql.raw(`DROP OWNED BY ${role}`));
      await ownerRows(sql.raw(`DROP ROLE ${role}`));
    }
  });
});

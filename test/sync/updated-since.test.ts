import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { serviceInvoice } from "../support/sales";
import { ownerRow, ownerRows, seedTenant, sql } from "../support/seed";
import { mark } from "./helpers";

/** Every list of the API: a GET whose query takes `sort` (listQuerySchema). */
function listRoutes(): { path: string; parameters: { name: string; schema?: { enum?: string[] } }[] }[] {
  const doc = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal", version: "1" } });
  return Object.entries(doc.paths ?? {})
    .map(([path, item]) => ({ path, parameters: (item?.get?.parameters ?? []) as { name: string; schema?: { enum?: string[] } }[] }))
    .filter((route) => route.parameters.some((p) => p.name === "sort"));
}

/**
 * An instant between two transactions, with microseconds: a row committed before this call has an
 * earlier updated_at (its transaction started earlier), a row written after it a later one.
 */
const since = (instant: string, sort = "updated_at") => `filter%5Bupdated_since%5D=${encodeURIComponent(instant)}&sort=${sort}`;

describe("incremental sync: filter[updated_since] and sort=updated_at on every list", () => {
  it("every list declares filter[updated_since] and sort=updated_at|-updated_at", () => {
    const lists = listRoutes();
    expect(lists.length).toBeGreaterThanOrEqual(26);
    for (const route of lists) {
      const names = route.parameters.map((p) => p.name);
      expect(names, route.path).toContain("filter[updated_since]");
      const sort = route.parameters.find((p) => p.name === "sort")!;
      expect(sort.schema?.enum, route.path).toEqual(expect.arrayContaining(["updated_at", "-updated_at"]));
    }
  });

  it("every list answers a future instant with no rows and a malformed one with 422 on the field", async () => {
    const t = await seedTenant();
    const endpoint = await t.api.post("/webhook-endpoints", { url: "https://hooks.example.com/sucursal", events: ["invoice.created"] });
    const lists = listRoutes().filter((route) => route.path.startsWith("/api/v1/"));
    expect(lists.length).toBeGreaterThanOrEqual(24);
    // Year 0 and month 00 used to reach the database (a 422 under `body`); days outside 1900-2199 as other dates.
    const malformed = [
      "yesterday",
      "2026-13-01T00:00:00Z",
      "2026-01-31T12:00:00",
      "2026-01-31",
      "0000-04-04T00:29Z",
      "0000-00-00T00:00Z",
      "2200-01-01T00:00Z",
      "2026-02-30T00:00Z",
    ];
    for (const [i, route] of lists.entries()) {
      // The deliveries of an endpoint need the endpoint (or a 404 that says nothing of the filter).
      const path = route.path.replace("{id}", String(endpoint.status === 201 ? endpoint.body.data.id : 0));
      if (path.includes("{")) throw new Error(`no fixture for ${route.path}`);
      if (path.includes("/webhook-endpoints/") && endpoint.status !== 201) continue;
      const future = await t.api.get(`${path}?${since("2199-12-31T00:00:00Z")}`);
      expect(future.status, `${route.path} ${future.text}`).toBe(200);
      expect(future.body.data, route.path).toEqual([]);
      expect(future.body.meta.total, route.path).toBe(0);
      // One malformed value per list (the per-token rate limit), each kind met by several lists.
      const bad = malformed[i % malformed.length]!;
      const res = await t.api.get(`${path}?filter%5Bupdated_since%5D=${encodeURIComponent(bad)}`);
      expect(res.status, `${route.path} ${bad}`).toBe(422);
      expect(res.body.code).toBe("validation_failed");
      expect(Object.keys(res.body.errors), route.path).toEqual(["filter[updated_since]"]);
    }
  });

  it("contacts: only rows changed since the instant, in updated_at order with an id tiebreak; an update moves a row into the window", async () => {
    const t = await seedTenant();
    const other = await seedTenant();
    const before = await t.api.post("/contacts", { name: "Antes" });
    expect(before.status).toBe(201);
    const instant = await mark();
    const after = await t.api.post("/contacts", { name: "Después" });
    expect(after.status).toBe(201);
    const foreign = await other.api.post("/contacts", { name: "Otro inquilino" });
    expect(foreign.status).toBe(201);

    const first = await t.api.get(`/contacts?${since(instant)}`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: { id: number }) => c.id)).toEqual([after.body.data.id]);
    expect(first.body.meta.total).toBe(1);

    // Updating the older contact brings it into the window, after the newer one in updated_at order.
    const edited = await t.api.patch(`/contacts/${before.body.data.id}`, { name: "Antes (editado)" });
    expect(edited.status, edited.text).toBe(200);
    const ascending = await t.api.get(`/contacts?${since(instant)}`);
    expect(ascending.body.data.map((c: { id: number }) => c.id)).toEqual([after.body.data.id, before.body.data.id]);
    const descending = await t.api.get(`/contacts?${since(instant, "-updated_at")}`);
    expect(descending.body.data.map((c: { id: number }) => c.id)).toEqual([before.body.data.id, after.body.data.id]);

    // Rows changed in one transaction share updated_at: the id breaks the tie, so pages are stable.
    const tied = await ownerRow<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${t.tenantId} AND updated_at >= ${instant}::timestamptz`,
    );
    expect(tied.n).toBe(2);
  });

  it("an UPDATE by any path sets updated_at to the transaction's time (the trigger), whatever the statement wrote", async () => {
    const t = await seedTenant();
    const created = await t.api.post("/contacts", { name: "Sin servicio" });
    const row = await ownerRow<{ moved: boolean }>(sql`
      WITH u AS (UPDATE contacts SET notes = 'x', updated_at = '2000-01-01T00:00:00Z' WHERE id = ${created.body.data.id} RETURNING updated_at)
      SELECT (SELECT updated_at FROM u) = now() AS moved`);
    expect(row.moved).toBe(true);
  });

  it("invoices (the list written as SQL): the filter, the total and the order", async () => {
    const { tenant, id: older } = await serviceInvoice("100.00");
    const instant = await mark();
    const second = await tenant.api.post(`/invoices/${older}/payments`, { amount: "40.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(second.status, second.text).toBe(201);
    const res = await tenant.api.get(`/invoices?${since(instant)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((i: { id: number; amount_paid: string }) => [i.id, i.amount_paid])).toEqual([[older, "40.00"]]);
    expect(res.body.meta.total).toBe(1);
    const none = await tenant.api.get(`/invoices?${since("2199-12-31T00:00:00.000001+00:00")}`);
    expect(none.body.meta.total).toBe(0);
  });

  it("roles, workspaces and members (lists joined by hand) filter on their own updated_at", async () => {
    const t = await seedTenant();
    const instant = await mark();
    const role = await t.api.post("/roles", { name: "cajero_sync", display_name: "Cajero", permissions: ["contacts:view"] });
    expect(role.status, role.text).toBe(201);
    const roles = await t.api.get(`/roles?${since(instant)}`);
    expect(roles.body.data.map((r: { id: number }) => r.id)).toEqual([role.body.data.id]);
    const workspaces = await t.api.get(`/workspaces?${since(instant)}`);
    expect(workspaces.body.data).toEqual([]);
    const members = await t.api.get(`/workspace/members?${since(instant)}`);
    expect(members.body.data).toEqual([]);
    const allMembers = await t.api.get(`/workspace/members?${since("2000-01-01T00:00:00Z")}`);
    expect(allMembers.body.data.map((m: { id: number }) => m.id)).toEqual([t.admin.id]);
  });

  it("DELETE of a contact or a product records its .deleted event in the delete's transaction", async () => {
    const t = await seedTenant();
    const endpoint = await t.api.post("/webhook-endpoints", { url: "https://hooks.example.com/sync", events: ["contact.deleted", "product.deleted"] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const contact = await t.api.post("/contacts", { name: "Se va" });
    const product = await t.api.post("/products", { name: "Se va también", product_type: "service", price: "10.00", track_inventory: false });
    expect(product.status, product.text).toBe(201);
    expect((await t.api.delete(`/contacts/${contact.body.data.id}`)).status).toBe(200);
    expect((await t.api.delete(`/products/${product.body.data.id}`)).status).toBe(200);
    const events = await ownerRows<{ type: string; workspace_id: number | null; data: { id: number; workspace_id: number | null; deleted_at: string } }>(
      sql`SELECT type, workspace_id, data FROM webhook_events WHERE tenant_id = ${t.tenantId} ORDER BY id`,
    );
    expect(events.map((e) => [e.type, e.workspace_id, e.data.id, e.data.workspace_id])).toEqual([
      ["contact.deleted", t.workspaceId, contact.body.data.id, t.workspaceId],
      ["product.deleted", product.body.data.workspace_id, product.body.data.id, product.body.data.workspace_id],
    ]);
    for (const e of events) expect(Number.isNaN(Date.parse(e.data.deleted_at))).toBe(false);
    // A refused delete (the contact no longer exists) records nothing.
    expect((await t.api.delete(`/contacts/${contact.body.data.id}`)).status).toBe(404);
    expect((await ownerRows(sql`SELECT 1 FROM webhook_events WHERE tenant_id = ${t.tenantId}`)).length).toBe(2);
  });
});

import { describe, expect, it, vi } from "vitest";
import { RequestTransaction } from "../../src/db/client";
import { appCall, NO_LIMIT } from "../security/world";
import { env } from "../support/env";
import { seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";
import { receiverKey } from "../webhooks/helpers";

/**
 * A list reads its page and its total in one statement (db/queries.ts pageOfQuery), past the end
 * too: the total of an empty page used to be counted by a second statement sent once the page had
 * answered — a second round trip, over a WebSocket connection opened for it (db/client.ts reopen),
 * and the isolate then read that list over the WebSocket (issue 46). The reads go to an HTTP
 * endpoint key of this file's own, so what other files' requests taught the shared isolate does not
 * count here.
 */
const OWN_ENDPOINT = { ...NO_LIMIT, DB_HTTP_ENDPOINT: `${env.DB_HTTP_ENDPOINT}?for=page-total` };

describe("a list's page and its total (issue 46)", () => {
  it("answers a page past the end with the list's total and no row, in its one statement: no WebSocket connection", async () => {
    const tenant = await seedTenant();
    const branch = await seedWorkspace(tenant, "Santiago");
    const a = await createProduct(tenant.api, { name: "Arroz", workspace_id: null });
    const b = await createProduct(tenant.api, { name: "Habichuelas", workspace_id: null });
    await initialStock(tenant.api, [
      { product_id: a.id, quantity: "10", cost: "5" },
      { product_id: b.id, quantity: "10", cost: "5" },
    ]);
    for (const [product, quantity] of [
      [a, "1"],
      [a, "2"],
      [a, "3"],
      [b, "1"],
    ] as const) {
      expect((await tenant.api.post("/stock-transfers", { product_id: product.id, to_workspace_id: branch, quantity })).status).toBe(201);
    }
    await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId, branch] });
    for (const name of ["Colmado Yaneris", "Ferretería Ochoa"]) expect((await tenant.api.post("/contacts", { name })).status).toBe(201);
    for (const quantity of ["1", "-2", "3"]) {
      const adjusted = await tenant.api.post("/inventory-adjustments", { items: [{ product_id: a.id, quantity_adjustment: quantity, reason: "found" }] });
      expect(adjusted.status, adjusted.text).toBe(201);
    }
    const endpoint = await tenant.api.post("/webhook-endpoints", { url: receiverKey().url, events: ["invoice.created"] });
    expect(endpoint.status, endpoint.text).toBe(201);

    const call = (path: string) => appCall(tenant.subdomain, path, { token: tenant.admin.token, env: OWN_ENDPOINT });
    // This tenant's request transactions (a queue consumer's has no reopenWith).
    const tenantSet = `'app.tenant_id', '${tenant.tenantId}'`;
    const ours = (tx: unknown) => ((tx as { reopenWith: { statements: string[] } | null }).reopenWith?.statements ?? []).some((s) => s.includes(tenantSet));
    const connect = vi.spyOn(RequestTransaction.prototype, "connect");
    const connections = () => connect.mock.contexts.filter(ours).length;
    try {
      // The user's first request in the isolate reads the context alone first (no prediction).
      expect((await call("/me")).status).toBe(200);
      const totals: Record<string, number> = {
        // One table (pageOf).
        "/products": 2,
        // Folded in: the registry's record of each contact, each user's workspaces, our approval.
        "/contacts": 2,
        "/users": 2,
        "/received-ecf": 0,
        // Joined tables: members (users and roles), workspaces (owners), transfers (products):
        // the total of the filtered list, not of every transfer.
        "/workspace/members": 2,
        "/workspaces": 2,
        "/stock-transfers": 4,
        [`/stock-transfers?filter[product_id]=${a.id}`]: 3,
        [`/stock-transfers?filter[product_id]=${b.id}`]: 1,
        // Each row's own rows gathered as JSON in the page's statement: an adjustment's items, a delivery's attempts.
        "/inventory-adjustments": 3,
        [`/webhook-endpoints/${endpoint.body.data.id}/deliveries`]: 0,
      };
      for (const [list, total] of Object.entries(totals)) {
        const join = list.includes("?") ? "&" : "?";
        const first = await call(`${list}${join}per_page=100`);
        expect(first.status, `${list}: ${first.text}`).toBe(200);
        expect(first.body.data, list).toHaveLength(total);
        const before = connections();
        const past = await call(`${list}${join}page=99&per_page=1`);
        expect(past.status, `${list}: ${past.text}`).toBe(200);
        expect(past.body.data, list).toEqual([]);
        expect(past.body.meta, list).toMatchObject({ current_page: 99, per_page: 1, total, last_page: Math.max(1, total) });
        expect(connections(), `${list}: a statement after the page's`).toBe(before);
        // A page of one row among several: the row, and the total.
        if (total > 1) expect((await call(`${list}${join}page=2&per_page=1`)).body, list).toMatchObject({ data: [first.body.data[1]], meta: { total } });
      }
      // The movements report (workspace 1's: 2 initial stock entries, 4 transfers out, 3 adjustments).
      const report = await call(`/inventory/movements?workspace_id=${tenant.workspaceId}&page=99&per_page=1`);
      expect(report.status, report.text).toBe(200);
      expect(report.body).toMatchObject({ data: [], meta: { total: 9 } });
    } finally {
      connect.mockRestore();
    }
  });
});

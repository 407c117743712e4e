import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, type SeededTenant, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock, levelOf } from "../support/stock";

/**
 * Writes across branches (workspaces). A permission is held per workspace: a write is authorized in
 * the workspace that owns the row, and view_all_locations only makes other workspaces visible.
 *
 * The cast: W1 ("Principal") and W2 of one tenant; the tenant's admin is an admin member of both.
 * `supervisor` is an admin member of W1 only: its role holds view_all_locations, so it sees W2 and
 * W2's rows, and holds every permission — in W1 only. `clerk` is a member of W1 only (no
 * view_all_locations: W2's rows are invisible to it).
 */
async function world() {
  const tenant = await seedTenant();
  const w1 = tenant.workspaceId;
  const w2 = await seedWorkspace(tenant);
  const supervisor = await seedUser(tenant, { role: "admin", workspaceIds: [w1] });
  const clerk = await seedUser(tenant, { role: "member", workspaceIds: [w1] });
  const inW2 = { headers: { "X-Workspace-ID": String(w2) } };
  return { tenant, w1, w2, supervisor, clerk, inW2 };
}

async function productRow(id: number) {
  const [row] = await asOwner((db) => db.select().from(schema.products).where(eq(schema.products.id, id)));
  return row!;
}

async function contactRow(id: number) {
  const [row] = await asOwner((db) => db.select().from(schema.contacts).where(eq(schema.contacts.id, id)));
  return row ?? null;
}

async function invoicesOf(tenant: SeededTenant) {
  return asOwner((db) =>
    db
      .select({ id: schema.invoices.id, workspaceId: schema.invoices.workspaceId })
      .from(schema.invoices)
      .where(and(eq(schema.invoices.tenantId, tenant.tenantId)))
      .orderBy(schema.invoices.id),
  );
}

/** A quotation issued in W2 to `contact` with one line of `product`: from then on W2 uses both. */
async function quoteInW2(tenant: SeededTenant, inW2: { headers: Record<string, string> }, contact: { id: number }, product: { id: number }) {
  const ids = await catalogIds(tenant.api);
  const quotation = await tenant.api.post(
    "/quotations",
    {
      contact_id: contact.id,
      document_subtype_id: ids.cot,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "10.00" }],
    },
    inW2,
  );
  expect(quotation.status, JSON.stringify(quotation.body)).toBe(201);
}

describe("view_all_locations grants visibility, never writes", () => {
  it("in a workspace reached only through view_all_locations, reads work and writes are 403 forbidden", async () => {
    const { tenant, w2, supervisor, inW2 } = await world();
    const own = await tenant.api.post("/products", { name: "De W2", workspace_id: w2 }, inW2);
    expect(own.status).toBe(201);

    // The supervisor sees W2 …
    const me = await supervisor.api.get("/me", inW2);
    expect(me.status).toBe(200);
    expect(me.body.data.current_workspace.id).toBe(w2);
    const permissions: string[] = me.body.data.permissions;
    expect(permissions).toContain("products:view");
    expect(permissions).toContain("invoices:view");
    expect(permissions).toContain("view_all_locations");
    expect(permissions.filter((p) => !p.endsWith(":view") && p !== "view_all_locations")).toEqual([]);
    const list = await supervisor.api.get("/products", inW2);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: number }) => p.id)).toContain(own.body.data.id);

    // … and writes nothing there, whatever its role grants in W1.
    const created = await supervisor.api.post("/products", { name: "Intruso" }, inW2);
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ message: "This action requires the products:create permission.", code: "forbidden" });
    const edited = await supervisor.api.patch(`/products/${own.body.data.id}`, { name: "Cambiado" }, inW2);
    expect(edited.status).toBe(403);
    expect(edited.body.code).toBe("forbidden");
    const contact = await supervisor.api.post("/contacts", { name: "Intruso" }, inW2);
    expect(contact.status).toBe(403);
    expect(contact.body.code).toBe("forbidden");
    const role = await supervisor.api.post("/roles", { name: "desde_w2", display_name: "x", permissions: [] }, inW2);
    expect(role.status).toBe(403);
    expect(role.body.code).toBe("forbidden");
    // Documents and integrations of W2 are scoped to the request's workspace: refused the same way.
    const invoice = await supervisor.api.post("/invoices", {}, inW2);
    expect(invoice.status).toBe(403);
    expect(invoice.body).toEqual({ message: "This action requires the invoices:create permission.", code: "forbidden" });
    const bot = await supervisor.api.post("/api/messaging-bots", { name: "Bot", token: "123:abc" }, inW2);
    expect(bot.status).toBe(403);
    expect(bot.body).toEqual({ message: "This action requires the integrations:manage permission.", code: "forbidden" });
    expect((await productRow(own.body.data.id)).name).toBe("De W2");
    const names = (await tenant.api.get("/products", inW2)).body.data.map((p: { name: string }) => p.name);
    expect(names).not.toContain("Intruso");
  });
});

describe("writes by id are authorized in the workspace that owns the row", () => {
  it("a product of W2, visible from W1 through view_all_locations, is not editable or deletable with rights in W1 only", async () => {
    const { tenant, w2, supervisor, clerk, inW2 } = await world();
    const created = await tenant.api.post("/products", { name: "Ron de W2", sku: "W2-RON", price: "500.00", workspace_id: w2 }, inW2);
    expect(created.status).toBe(201);
    const id = created.body.data.id;

    expect((await supervisor.api.get(`/products/${id}`)).status).toBe(200);
    const edit = await supervisor.api.patch(`/products/${id}`, { name: "Ron barato", price: "1.00" });
    expect(edit.status).toBe(403);
    expect(edit.body.code).toBe("forbidden");
    expect(edit.body.message).toContain(`products:edit in workspace ${w2}`);
    const remove = await supervisor.api.delete(`/products/${id}`);
    expect(remove.status).toBe(403);
    expect(remove.body.code).toBe("forbidden");
    expect(remove.body.message).toContain(`products:delete in workspace ${w2}`);
    const row = await productRow(id);
    expect(row).toMatchObject({ name: "Ron de W2", price: "500.00", workspaceId: w2 });

    // Invisible rows stay 404 for a caller without view_all_locations.
    expect((await clerk.api.patch(`/products/${id}`, { name: "x" })).status).toBe(404);

    // With products:edit held in W2 (the tenant's admin is an admin member there) it works from W1.
    const allowed = await tenant.api.patch(`/products/${id}`, { name: "Ron añejo" });
    expect(allowed.status).toBe(200);
    expect((await productRow(id)).name).toBe("Ron añejo");
  });

  it("a contact of W2 is not editable or deletable with rights in W1 only", async () => {
    const { tenant, w2, supervisor, inW2 } = await world();
    const contact = await createContact(tenant.api.as(tenant.admin.token, inW2), { name: "Ferretería Santiago" });
    expect(contact).toMatchObject({ name: "Ferretería Santiago" });
    const edit = await supervisor.api.patch(`/contacts/${contact.id}`, { name: "Otro nombre", email: "x@x.do" });
    expect(edit.status).toBe(403);
    expect(edit.body.code).toBe("forbidden");
    expect(edit.body.message).toContain(`contacts:edit in workspace ${w2}`);
    const remove = await supervisor.api.delete(`/contacts/${contact.id}`);
    expect(remove.status).toBe(403);
    expect(remove.body.code).toBe("forbidden");
    expect(await contactRow(contact.id)).toMatchObject({ name: "Ferretería Santiago", email: contact.email, workspaceId: w2 });
    // Moving it out of W2 into W1 is a write on W2's row as well.
    const move = await supervisor.api.patch(`/contacts/${contact.id}`, { workspace_id: null });
    expect(move.status).toBe(403);
    expect((await contactRow(contact.id))!.workspaceId).toBe(w2);
  });

  it("creating a row assigned to another workspace needs the create permission there", async () => {
    const { tenant, w1, w2, supervisor, clerk } = await world();
    const product = await supervisor.api.post("/products", { name: "Para W2", workspace_id: w2 });
    expect(product.status).toBe(403);
    expect(product.body.code).toBe("forbidden");
    expect(product.body.message).toContain(`products:create in workspace ${w2}`);
    const contact = await supervisor.api.post("/contacts", { name: "Para W2", workspace_id: w2 });
    expect(contact.status).toBe(403);
    expect(contact.body.message).toContain(`contacts:create in workspace ${w2}`);
    const all = (await tenant.api.get("/products?filter[workspace_id]=all")).body.data.map((p: { name: string }) => p.name);
    expect(all).not.toContain("Para W2");
    // Its own workspace and shared rows are fine; a workspace it cannot see stays a 422.
    expect((await supervisor.api.post("/products", { name: "Para W1", workspace_id: w1 })).status).toBe(201);
    expect((await supervisor.api.post("/contacts", { name: "Compartido", workspace_id: null })).status).toBe(201);
    const hidden = await clerk.api.post("/products", { name: "Para W2", workspace_id: w2 });
    expect(hidden.status).toBe(422);
    expect(Object.keys(hidden.body.errors)).toEqual(["workspace_id"]);
    // The admin of both workspaces may.
    expect((await tenant.api.post("/products", { name: "Para W2", workspace_id: w2 })).status).toBe(201);
  });
});

describe("stock of another workspace", () => {
  it("a transfer needs inventory:transfer in the destination, and W2's product cannot be adjusted from W1", async () => {
    const { tenant, w1, w2, supervisor, inW2 } = await world();
    const shared = await createProduct(tenant.api);
    await initialStock(tenant.api, [{ product_id: shared.id, quantity: "10" }]);

    // Reaching W2 through view_all_locations does not make its stock writable.
    const transfer = await supervisor.api.post("/stock-transfers", { product_id: shared.id, to_workspace_id: w2, quantity: "4" });
    expect(transfer.status).toBe(403);
    expect(transfer.body.code).toBe("forbidden");
    expect(transfer.body.message).toContain("inventory:transfer");
    expect(await levelOf(shared.id, w1)).toBe("10.00");
    expect(await levelOf(shared.id, w2)).toBe("0.00");
    // The admin of both may.
    expect((await tenant.api.post("/stock-transfers", { product_id: shared.id, to_workspace_id: w2, quantity: "4" })).status).toBe(201);
    expect(await levelOf(shared.id, w2)).toBe("4.00");

    // A product owned by W2, adjusted or given initial stock in W1 by someone without rights in W2.
    const ofW2 = await createProduct(tenant.api.as(tenant.admin.token, inW2), { workspace_id: w2 });
    const adjust = await supervisor.api.post("/inventory-adjustments", { items: [{ product_id: ofW2.id, quantity_adjustment: "5", reason: "found" }] });
    expect(adjust.status).toBe(403);
    expect(adjust.body.code).toBe("forbidden");
    const initial = await supervisor.api.post("/inventory/initial-stock", { items: [{ product_id: ofW2.id, quantity: "5" }] });
    expect(initial.status).toBe(403);
    const moveOut = await supervisor.api.post("/stock-transfers", { product_id: ofW2.id, to_workspace_id: w2, quantity: "1" });
    expect(moveOut.status).toBe(403);
    expect(await levelOf(ofW2.id, w1)).toBe("0.00");

    // A minimum is the named workspace's stock row.
    const minimum = await supervisor.api.put(`/products/${shared.id}/stock/minimum`, { workspace_id: w2, minimum_quantity: "3" });
    expect(minimum.status).toBe(403);
    expect(minimum.body.code).toBe("forbidden");
    expect((await supervisor.api.put(`/products/${shared.id}/stock/minimum`, { workspace_id: w1, minimum_quantity: "3" })).status).toBe(200);
    const levels = await asOwner((db) =>
      db
        .select({ workspaceId: schema.stockLevels.workspaceId, minimum: schema.stockLevels.minimumQuantity })
        .from(schema.stockLevels)
        .where(eq(schema.stockLevels.productId, shared.id)),
    );
    expect(levels.sort((a, b) => a.workspaceId - b.workspaceId)).toEqual([
      { workspaceId: w1, minimum: "3.00" },
      { workspaceId: w2, minimum: "0.00" },
    ]);
    await expectStockInvariant(tenant.tenantId);
  });
});

describe("shared catalog rows (workspace_id null)", () => {
  it("moving a shared product into a workspace needs products:edit in every workspace that uses it", async () => {
    const { tenant, w1, w2, supervisor, clerk, inW2 } = await world();
    const product = await createProduct(tenant.api);
    // W2 uses it: it has stock there.
    await initialStock(tenant.api, [{ product_id: product.id, quantity: "7" }], inW2.headers);

    const bySupervisor = await supervisor.api.patch(`/products/${product.id}`, { workspace_id: w1 });
    expect(bySupervisor.status).toBe(403);
    expect(bySupervisor.body.code).toBe("forbidden");
    expect(bySupervisor.body.message).toContain(`products:edit in workspace ${w2}`);
    // A caller who cannot see W2 is refused without being told which workspace.
    const byClerk = await clerk.api.patch(`/products/${product.id}`, { workspace_id: w1 });
    expect(byClerk.status).toBe(403);
    expect(byClerk.body.code).toBe("forbidden");
    expect(byClerk.body.message).not.toContain(String(w2));
    expect((await productRow(product.id)).workspaceId).toBeNull();

    // Other edits of a shared row stay open to products:edit in the request's workspace.
    expect((await clerk.api.patch(`/products/${product.id}`, { name: "Renombrado", workspace_id: null })).status).toBe(200);

    const byAdmin = await tenant.api.patch(`/products/${product.id}`, { workspace_id: w1 });
    expect(byAdmin.status).toBe(200);
    expect((await productRow(product.id)).workspaceId).toBe(w1);
  });

  it("changing allow_negative_stock or track_inventory needs products:edit in every using workspace", async () => {
    const { tenant, w2, supervisor, clerk, inW2 } = await world();
    const product = await createProduct(tenant.api);
    // W2 uses it through a quotation line only.
    await quoteInW2(tenant, inW2, await createContact(tenant.api, { workspace_id: null }), product);

    for (const change of [{ allow_negative_stock: true }, { track_inventory: false }, { product_type: "service" }]) {
      const res = await supervisor.api.patch(`/products/${product.id}`, change);
      expect(res.status, JSON.stringify(change)).toBe(403);
      expect(res.body.code).toBe("forbidden");
      expect(res.body.message).toContain(`products:edit in workspace ${w2}`);
      expect((await clerk.api.patch(`/products/${product.id}`, change)).status).toBe(403);
    }
    expect(await productRow(product.id)).toMatchObject({ allowNegativeStock: false, trackInventory: true, productType: "product" });
    // Sending the current values back changes nothing and is allowed.
    expect((await clerk.api.patch(`/products/${product.id}`, { allow_negative_stock: false, track_inventory: true })).status).toBe(200);
    // A shared product nobody else uses is the request workspace's business.
    const unused = await createProduct(tenant.api);
    expect((await clerk.api.patch(`/products/${unused.id}`, { allow_negative_stock: true })).status).toBe(200);

    const byAdmin = await tenant.api.patch(`/products/${product.id}`, { allow_negative_stock: true });
    expect(byAdmin.status).toBe(200);
    expect((await productRow(product.id)).allowNegativeStock).toBe(true);
  });

  it("moving a shared contact into a workspace needs contacts:edit where documents were issued to it", async () => {
    const { tenant, w1, w2, supervisor, inW2 } = await world();
    const contact = await createContact(tenant.api, { workspace_id: null });
    await quoteInW2(tenant, inW2, contact, await createProduct(tenant.api, { track_inventory: false, product_type: "service" }));
    const move = await supervisor.api.patch(`/contacts/${contact.id}`, { workspace_id: w1 });
    expect(move.status).toBe(403);
    expect(move.body.code).toBe("forbidden");
    expect(move.body.message).toContain(`contacts:edit in workspace ${w2}`);
    expect((await contactRow(contact.id))!.workspaceId).toBeNull();
    expect((await tenant.api.patch(`/contacts/${contact.id}`, { workspace_id: w1 })).status).toBe(200);
    expect((await contactRow(contact.id))!.workspaceId).toBe(w1);
  });
});

describe("uniqueness errors never reveal rows the caller cannot see", () => {
  it("a clash with another branch's contact answers 422 without its id or name", async () => {
    const { tenant, clerk, supervisor, inW2 } = await world();
    const theirs = await createContact(tenant.api.as(tenant.admin.token, inW2), {
      name: "Distribuidora Secreta del Cibao",
      identification_type: "rnc",
      identification: "131246796",
    });
    // A shared contact clashes with every contact of the tenant, W2's included.
    const res = await clerk.api.post("/contacts", { name: "Compartido", workspace_id: null, identification_type: "rnc", identification: "131246796" });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.errors)).toEqual(["identification"]);
    expect(res.body.errors.identification).toEqual(["This identification is already used by another contact in this company."]);
    expect(res.text).not.toContain(String(theirs.id));
    expect(res.text).not.toContain("Distribuidora");
    expect(res.text).not.toContain("Secreta");

    // Moving a W1 contact to shared hits the same rule.
    const mine = await createContact(clerk.api, { name: "Mío", identification_type: "rnc", identification: "131246796" });
    const share = await clerk.api.patch(`/contacts/${mine.id}`, { workspace_id: null });
    expect(share.status).toBe(422);
    expect(share.text).not.toContain("Distribuidora");

    // A caller who can see W2's contact (view_all_locations) is told which one it is.
    const seen = await supervisor.api.post("/contacts", { name: "Compartido", workspace_id: null, identification_type: "rnc", identification: "131246796" });
    expect(seen.status).toBe(422);
    expect(seen.body.errors.identification[0]).toContain(`contact ${theirs.id}, Distribuidora Secreta del Cibao`);
  });
});

describe("idempotency keys are scoped by tenant, user, workspace and endpoint", () => {
  it("the same key and body sent to W1 then W2 creates one invoice in each", async () => {
    const { tenant, w1, w2, inW2 } = await world();
    const ids = await catalogIds(tenant.api);
    const contact = await createContact(tenant.api, { workspace_id: null });
    const product = await createProduct(tenant.api, { allow_negative_stock: true });
    const body = {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "100.00" }],
    };
    const key = { "Idempotency-Key": "misma-llave-1" };

    const first = await tenant.api.post("/invoices", body, { headers: key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data.workspace_id).toBe(w1);
    const second = await tenant.api.post("/invoices", body, { headers: { ...key, ...inW2.headers } });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.data.workspace_id).toBe(w2);
    expect(second.body.data.id).not.toBe(first.body.data.id);
    expect(second.body.data.document_number).not.toBe(first.body.data.document_number);

    // Each workspace replays its own.
    const replayW2 = await tenant.api.post("/invoices", body, { headers: { ...key, ...inW2.headers } });
    expect(replayW2.headers.get("idempotent-replayed")).toBe("true");
    expect(replayW2.body).toEqual(second.body);
    const replayW1 = await tenant.api.post("/invoices", body, { headers: key });
    expect(replayW1.body).toEqual(first.body);
    expect(await invoicesOf(tenant)).toEqual([
      { id: first.body.data.id, workspaceId: w1 },
      { id: second.body.data.id, workspaceId: w2 },
    ]);

    // The same key on another endpoint runs there: not a replay, not a reuse error.
    const payment = await tenant.api.post(
      `/invoices/${first.body.data.id}/payments`,
      { amount: "10.00", payment_method: "cash", payment_date: "2026-11-20" },
      { headers: key },
    );
    expect(payment.status, JSON.stringify(payment.body)).toBe(201);
    expect(payment.headers.get("idempotent-replayed")).toBeNull();
    expect(payment.body.data.payment.amount).toBe("10.00");
    const quotation = await tenant.api.post("/quotations", { ...body, document_subtype_id: ids.cot }, { headers: key });
    expect(quotation.status, JSON.stringify(quotation.body)).toBe(201);
    expect(quotation.headers.get("idempotent-replayed")).toBeNull();
    expect(quotation.body.data.document_number).toMatch(/^COT/);
    expect(await invoicesOf(tenant)).toHaveLength(2);

    // The stored scopes name the workspace and the endpoint.
    const scopes = await asOwner((db) =>
      db.select({ scope: schema.idempotencyKeys.scope }).from(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.tenantId, tenant.tenantId)),
    );
    expect(scopes.map((s) => s.scope).sort()).toEqual(
      [
        `POST /api/v1/invoices @workspace ${w1}`,
        `POST /api/v1/invoices @workspace ${w2}`,
        `POST /api/v1/invoices/:id/payments {"id":"${first.body.data.id}"} @workspace ${w1}`,
        `POST /api/v1/quotations @workspace ${w1}`,
      ].sort(),
    );
  });
});

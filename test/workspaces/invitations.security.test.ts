import { describe, expect, it, vi } from "vitest";
import { deliverOutboxMessage, REDACTED } from "../../src/jobs/outbox";
import { sha256Hex } from "../../src/lib/crypto";
import { acceptUrl, newInvitationToken } from "../../src/modules/invitations/service";
import { enqueueEmail } from "../../src/modules/outbox/service";
import { failNext, received } from "../integrations/helpers";
import { client } from "../support/api";
import { env } from "../support/env";
import { asOwner, DEFAULT_PASSWORD, seedTenant, seedUser, seedWorkspace, uniqueName } from "../support/seed";
import { addMembership, createRole, invitationRow, outboxEmails, rowsAsText } from "./helpers";

/** Delivers the tenant's only email (or waits for the queue consumer, which may be at it) until it is final. */
async function deliverTheEmail(tenantId: number, status: "sent" | "failed") {
  const [row] = await outboxEmails(tenantId);
  await deliverOutboxMessage(env, { tenant_id: tenantId, outbox_id: row!.id });
  await vi.waitFor(async () => expect((await outboxEmails(tenantId))[0]!.status).toBe(status), { timeout: 15_000, interval: 100 });
  return (await outboxEmails(tenantId))[0]!;
}

describe("invitations: security", () => {
  it("refuses a viewer's writes with 403 naming the permission", async () => {
    const tenant = await seedTenant();
    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const invited = await tenant.api.post("/workspace/invitations", { email: "x@example.com" });
    expect((await viewer.api.get("/workspace/invitations")).status).toBe(200);
    const create = await viewer.api.post("/workspace/invitations", { email: "y@example.com" });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: "forbidden", message: expect.stringContaining("invitations:create") });
    const revoke = await viewer.api.delete(`/workspace/invitations/${invited.body.data.id}`);
    expect(revoke.status).toBe(403);
    expect(revoke.body.message).toContain("invitations:delete");
    expect((await tenant.api.get("/workspace/invitations")).body.data[0].status).toBe("pending");
  });

  it("stores only the token's SHA-256 and never lists it", async () => {
    const tenant = await seedTenant();
    const invited = await tenant.api.post("/workspace/invitations", { email: "x@example.com" });
    const row = await invitationRow(invited.body.data.id);
    expect(row.tokenHash).toBe(await sha256Hex(invited.body.data.token));
    expect(row.tokenHash).not.toContain(invited.body.data.token);
    const list = await tenant.api.get("/workspace/invitations");
    expect(list.body.data[0]).not.toHaveProperty("token");
  });

  it("refuses a bearer token of someone else (403) and an invalid bearer token (401)", async () => {
    const tenant = await seedTenant();
    const intruder = await seedUser(tenant, { role: "viewer", workspaceIds: [] });
    const invited = await tenant.api.post("/workspace/invitations", { email: "destino@example.com", role: "admin" });
    const path = `/invitations/${invited.body.data.token}/accept`;
    const wrong = await intruder.api.post(path);
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe("forbidden");
    const invalid = await client(tenant.subdomain, "not-a-jwt").post(path, { name: "X", password: DEFAULT_PASSWORD });
    expect(invalid.status).toBe(401);
    expect((await intruder.api.get("/me")).body.data.workspaces).toEqual([]);
    expect((await tenant.api.get("/workspace/invitations")).body.data[0].status).toBe("pending");
  });

  it("refuses to invite with a role carrying permissions the inviter does not hold", async () => {
    const tenant = await seedTenant();
    await tenant.api.post("/roles", { name: "recruiter", display_name: "Recruiter", permissions: ["invitations:view", "invitations:create", "products:view"] });
    const recruiter = await seedUser(tenant, { role: "recruiter", workspaceIds: [tenant.workspaceId] });
    const admin = await recruiter.api.post("/workspace/invitations", { email: "amigo@example.com", role: "admin" });
    expect(admin.status).toBe(403);
    expect(admin.body.code).toBe("forbidden");
    expect((await recruiter.api.post("/workspace/invitations", { email: "amigo@example.com", role: "recruiter" })).status).toBe(201);
  });

  it("invites into the request's workspace only; X-Workspace-ID of another workspace needs membership", async () => {
    const tenant = await seedTenant();
    const other = await seedWorkspace(tenant, "Santiago");
    const manager = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    const otherManager = await seedUser(tenant, { role: "member", workspaceIds: [other] });
    const res = await otherManager.api.post(
      "/workspace/invitations",
      { email: "z@example.com" },
      { headers: { "X-Workspace-ID": String(tenant.workspaceId) } },
    );
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("workspace_forbidden");
    const invited = await manager.api.post("/workspace/invitations", { email: "z@example.com" });
    expect(invited.body.data.workspace_id).toBe(tenant.workspaceId);
    // An invitation of another workspace cannot be revoked from this one.
    expect((await tenant.api.delete(`/workspace/invitations/${invited.body.data.id}`, { headers: { "X-Workspace-ID": String(other) } })).status).toBe(404);
  });

  it("keeps tenant B away from tenant A's invitations (401 on A's host, 404 on B's)", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const invited = await a.api.post("/workspace/invitations", { email: "x@example.com" });
    const { id, token } = invited.body.data;
    const bOnA = client(a.subdomain, b.admin.token);
    expect((await bOnA.get("/workspace/invitations")).status).toBe(401);
    expect((await bOnA.delete(`/workspace/invitations/${id}`)).status).toBe(401);
    expect((await b.api.get("/workspace/invitations")).body.data).toEqual([]);
    expect((await b.api.delete(`/workspace/invitations/${id}`)).status).toBe(404);
    // A's token presented on B's host finds nothing.
    const accept = await client(b.subdomain).post(`/invitations/${token}/accept`, { name: "X", password: DEFAULT_PASSWORD });
    expect(accept.status).toBe(404);
    // B's token on A's host cannot accept A's invitation either.
    expect((await bOnA.post(`/invitations/${token}/accept`)).status).toBe(401);
    expect((await a.api.get("/workspace/invitations")).body.data[0].status).toBe("pending");
  });

  it("lets an invitation be used once even when accepted twice at the same time", async () => {
    const tenant = await seedTenant();
    const invited = await tenant.api.post("/workspace/invitations", { email: "doble@example.com" });
    const path = `/invitations/${invited.body.data.token}/accept`;
    const body = { name: "Doble", password: DEFAULT_PASSWORD };
    const results = await Promise.all([client(tenant.subdomain).post(path, body), client(tenant.subdomain).post(path, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 410]);
    expect(results.find((r) => r.status === 410)!.body.code).toBe("invitation_not_usable");
    const members = await tenant.api.get("/workspace/members?filter[role]=member");
    expect(members.body.data.map((m: { email: string }) => m.email)).toEqual(["doble@example.com"]);
  });
  it("refuses to invite with a role the inviter does not hold in the invitation's workspace (reached through view_all_locations)", async () => {
    const tenant = await seedTenant();
    const branch = await seedWorkspace(tenant, "Santiago");
    // Member of Principal only; view_all_locations lets them see Santiago, where they hold only the
    // :view permissions (visibility, never writes): the route's own guard refuses the invitation.
    const regional = await createRole(tenant, ["view_all_locations", "invitations:view", "invitations:create", "products:view", "workspaces:view"]);
    const reader = await createRole(tenant, ["products:view"]);
    const inviter = await seedUser(tenant, { role: regional.name, workspaceIds: [tenant.workspaceId] });
    const inBranch = { headers: { "X-Workspace-ID": String(branch) } };
    const refused = await inviter.api.post("/workspace/invitations", { email: "lejos@example.com", role: reader.name }, inBranch);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
    expect(refused.body.message).toBe("This action requires the invitations:create permission.");
    expect((await tenant.api.get("/workspace/invitations", inBranch)).body.data).toEqual([]);

    // Admin in Principal, a weak role in Santiago: a role they hold only in Principal is refused in Santiago.
    const weak = await createRole(tenant, ["invitations:view", "invitations:create"]);
    const admin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
    await addMembership(tenant, admin.id, branch, weak.name);
    const inSantiago = await admin.api.post("/workspace/invitations", { email: "otro@example.com", role: "member" }, inBranch);
    expect(inSantiago.status).toBe(403);
    expect(inSantiago.body.code).toBe("forbidden");
    expect(inSantiago.body.message).toContain(`workspace ${branch}`);
    // In the inviter's own workspace the same role is fine.
    const here = await inviter.api.post(
      "/workspace/invitations",
      { email: "cerca@example.com", role: reader.name },
      { headers: { "X-Workspace-ID": String(tenant.workspaceId) } },
    );
    expect(here.status).toBe(201);
    expect(here.body.data.workspace_id).toBe(tenant.workspaceId);
  });

  it("keeps only the token's SHA-256 once the email is delivered: no column of outbox_messages or invitations holds the token", async () => {
    const tenant = await seedTenant();
    const email = `${uniqueName("invitado")}@example.do`;
    const invited = await tenant.api.post("/workspace/invitations", { email, role: "member" });
    expect(invited.status).toBe(201);
    const token = invited.body.data.token as string;

    const row = await deliverTheEmail(tenant.tenantId, "sent");
    // The person got the link with the token...
    const got = await received("resend", email);
    expect(got.deliveries).toHaveLength(1);
    expect(got.deliveries[0]!.body.text).toContain(`/invitations/${token}/accept`);
    // ...and the stored copy no longer has it.
    expect(row.payload.text).toContain(`https://app.sucursal.test/invitations/${REDACTED}/accept?tenant=${tenant.subdomain}`);
    const stored = [...(await rowsAsText("outbox_messages", tenant.tenantId)), ...(await rowsAsText("invitations", tenant.tenantId))];
    expect(stored).toHaveLength(2);
    for (const text of stored) expect(text).not.toContain(token);
    expect(stored.join("\n")).toContain(await sha256Hex(token));
    // The token still works: only its hash was ever needed.
    const accepted = await client(tenant.subdomain).post(`/invitations/${token}/accept`, { name: "Invitado", password: DEFAULT_PASSWORD });
    expect(accepted.status).toBe(201);
  });

  it("scrubs the token from an email that failed for good too", async () => {
    const tenant = await seedTenant();
    const email = `${uniqueName("rechazado")}@example.do`;
    await failNext("resend", email, { times: 1, status: 422, description: "Invalid `to` field" });
    const invited = await tenant.api.post("/workspace/invitations", { email, role: "viewer" });
    expect(invited.status).toBe(201);
    const token = invited.body.data.token as string;
    const row = await deliverTheEmail(tenant.tenantId, "failed");
    expect(row.payload.text).toContain(`/invitations/${REDACTED}/accept`);
    const stored = [...(await rowsAsText("outbox_messages", tenant.tenantId)), ...(await rowsAsText("invitations", tenant.tenantId))];
    expect(stored).toHaveLength(2);
    for (const text of stored) expect(text).not.toContain(token);
  });
  it("scrubs the token from an email skipped for want of a provider (written without the queue, so nothing else delivers it)", async () => {
    const tenant = await seedTenant();
    const token = newInvitationToken();
    const link = acceptUrl("https://app.sucursal.test", tenant.subdomain, token);
    const id = await asOwner((db) =>
      enqueueEmail(db, tenant.tenantId, { to: "x@example.com", subject: "Invitación", template: "invitation", text: `Acepta aquí: ${link}\n` }),
    );
    expect(await deliverOutboxMessage({ ...env, RESEND_API_KEY: undefined }, { tenant_id: tenant.tenantId, outbox_id: id })).toEqual({ outcome: "skipped" });
    const [row] = await outboxEmails(tenant.tenantId);
    expect(row).toMatchObject({ status: "skipped" });
    expect(row!.payload.text).toBe(`Acepta aquí: https://app.sucursal.test/invitations/${REDACTED}/accept?tenant=${tenant.subdomain}\n`);
    for (const text of await rowsAsText("outbox_messages", tenant.tenantId)) expect(text).not.toContain(token);
  });
});

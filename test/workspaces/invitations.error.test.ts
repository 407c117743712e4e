import { describe, expect, it } from "vitest";
import { client } from "../support/api";
import { DEFAULT_PASSWORD, seedTenant, seedUser } from "../support/seed";
import { ageInvitation, outboxEmails, SEVEN_DAYS } from "./helpers";

const newUser = { name: "Invitada", password: DEFAULT_PASSWORD };

describe("invitations: refusals", () => {
  it("refuses an invitation once 7 days have passed (410 invitation_not_usable)", async () => {
    const tenant = await seedTenant();
    const invited = await tenant.api.post("/workspace/invitations", { email: "tarde@example.com" });
    await ageInvitation(invited.body.data.id, SEVEN_DAYS);
    const res = await client(tenant.subdomain).post(`/invitations/${invited.body.data.token}/accept`, newUser);
    expect(res.status).toBe(410);
    expect(res.body.code).toBe("invitation_not_usable");
    expect(res.body.message).toMatch(/expired/);
    const list = await tenant.api.get("/workspace/invitations");
    expect(list.body.data[0].status).toBe("expired");
    expect((await client(tenant.subdomain).post("/auth/tokens", { email: "tarde@example.com", password: DEFAULT_PASSWORD })).status).toBe(401);
  });

  it("refuses a revoked invitation and a used one (410)", async () => {
    const tenant = await seedTenant();
    const anonymous = client(tenant.subdomain);
    const revoked = await tenant.api.post("/workspace/invitations", { email: "revocada@example.com" });
    await tenant.api.delete(`/workspace/invitations/${revoked.body.data.id}`);
    const r1 = await anonymous.post(`/invitations/${revoked.body.data.token}/accept`, newUser);
    expect(r1.status).toBe(410);
    expect(r1.body.code).toBe("invitation_not_usable");

    const used = await tenant.api.post("/workspace/invitations", { email: "usada@example.com" });
    expect((await anonymous.post(`/invitations/${used.body.data.token}/accept`, newUser)).status).toBe(201);
    const again = await anonymous.post(`/invitations/${used.body.data.token}/accept`, newUser);
    expect(again.status).toBe(410);
    expect(again.body.code).toBe("invitation_not_usable");
  });

  it("answers 404 for an unknown token", async () => {
    const tenant = await seedTenant();
    const res = await client(tenant.subdomain).post("/invitations/not-a-real-token/accept", newUser);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  it("requires name and password from a new user (422 naming both)", async () => {
    const tenant = await seedTenant();
    const invited = await tenant.api.post("/workspace/invitations", { email: "sin@example.com" });
    const anonymous = client(tenant.subdomain);
    const none = await anonymous.post(`/invitations/${invited.body.data.token}/accept`);
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.errors).sort()).toEqual(["name", "password"]);
    const short = await anonymous.post(`/invitations/${invited.body.data.token}/accept`, { name: "X", password: "corta" });
    expect(short.status).toBe(422);
    expect(Object.keys(short.body.errors)).toEqual(["password"]);
    // Still usable afterwards.
    expect((await anonymous.post(`/invitations/${invited.body.data.token}/accept`, newUser)).status).toBe(201);
  });

  it("asks an existing user to authenticate (401) rather than creating a second account", async () => {
    const tenant = await seedTenant();
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [] });
    const invited = await tenant.api.post("/workspace/invitations", { email: user.email });
    const res = await client(tenant.subdomain).post(`/invitations/${invited.body.data.token}/accept`, newUser);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthenticated");
    expect((await tenant.api.get("/workspace/invitations")).body.data[0].status).toBe("pending");
  });

  it("refuses to invite someone already a member (422 on email)", async () => {
    const tenant = await seedTenant();
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    const res = await tenant.api.post("/workspace/invitations", { email: member.email.toUpperCase() });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ email: ["This person is already a member of the workspace."] });
    expect(await outboxEmails(tenant.tenantId)).toEqual([]);
  });

  it("validates email and role (422)", async () => {
    const tenant = await seedTenant();
    const bad = await tenant.api.post("/workspace/invitations", { email: "not-an-email" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["email"]);
    const role = await tenant.api.post("/workspace/invitations", { email: "x@example.com", role: "jefe" });
    expect(role.status).toBe(422);
    expect(role.body.errors).toEqual({ role: ['There is no role named "jefe".'] });
    expect((await tenant.api.get("/workspace/invitations")).body.meta.total).toBe(0);
  });

  it("revoking: 404 for an unknown id, 410 for an accepted or already revoked invitation", async () => {
    const tenant = await seedTenant();
    expect((await tenant.api.delete("/workspace/invitations/99999999")).status).toBe(404);
    const used = await tenant.api.post("/workspace/invitations", { email: "usada@example.com" });
    await client(tenant.subdomain).post(`/invitations/${used.body.data.token}/accept`, newUser);
    const accepted = await tenant.api.delete(`/workspace/invitations/${used.body.data.id}`);
    expect(accepted.status).toBe(410);
    expect(accepted.body.code).toBe("invitation_not_usable");
    const other = await tenant.api.post("/workspace/invitations", { email: "otra@example.com" });
    expect((await tenant.api.delete(`/workspace/invitations/${other.body.data.id}`)).status).toBe(200);
    expect((await tenant.api.delete(`/workspace/invitations/${other.body.data.id}`)).status).toBe(410);
  });
});

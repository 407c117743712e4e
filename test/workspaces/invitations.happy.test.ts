import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/jobs/outbox";
import { received } from "../integrations/helpers";
import { client } from "../support/api";
import { DEFAULT_PASSWORD, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { ageInvitation, invitationRow, outboxEmails, SEVEN_DAYS } from "./helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe("invitations: happy paths", () => {
  it("creates an invitation (role member by default, 7 days) and writes the email to the outbox", async () => {
    const tenant = await seedTenant();
    const res = await tenant.api.post("/workspace/invitations", { email: "  Ana@Example.COM " });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      workspace_id: tenant.workspaceId,
      email: "ana@example.com",
      role: "member",
      status: "pending",
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: expect.stringMatching(ISO),
      created_at: expect.stringMatching(ISO),
    });
    const { token, expires_at, created_at } = res.body.data;
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(SEVEN_DAYS * 1000);

    const emails = await outboxEmails(tenant.tenantId);
    expect(emails).toHaveLength(1);
    // Written in the invitation's transaction, then queued after its commit: the Worker's own
    // consumer may already have delivered it, so its status is either; it ends sent.
    expect(["pending", "sent"]).toContain(emails[0]!.status);
    await expect.poll(async () => (await outboxEmails(tenant.tenantId))[0]!.status, { timeout: 20_000 }).toBe("sent");
    // The link with the token is in what the email provider got; the stored copy no longer has the
    // token once sent (jobs/outbox.ts scrubbedPayload) — read before, it may already be sent.
    const link = `https://app.sucursal.test/invitations/${token}/accept?tenant=${tenant.subdomain}`;
    const delivered = (await received("resend", "ana@example.com")).deliveries.filter((d) => String(d.body.text).includes(link));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.body.subject).toContain("Principal");
    const [sent] = await outboxEmails(tenant.tenantId);
    expect(sent!.payload).toMatchObject({ to: "ana@example.com", template: "invitation", subject: expect.stringContaining("Principal") });
    expect(sent!.payload.text).toContain(`https://app.sucursal.test/invitations/${REDACTED}/accept?tenant=${tenant.subdomain}`);

    const list = await tenant.api.get("/workspace/invitations");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ ...res.body.data, token: undefined }].map(({ token: _t, ...rest }) => rest));
    expect(list.text).not.toContain(token);
  });

  it("lets a new user accept with name and password: account, membership with the role, a working token", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant, "Santiago");
    const invited = await tenant.api.post(
      "/workspace/invitations",
      { email: "nuevo@example.com", role: "viewer" },
      { headers: { "X-Workspace-ID": String(second) } },
    );
    expect(invited.status).toBe(201);
    const anonymous = client(tenant.subdomain);
    const accepted = await anonymous.post(`/invitations/${invited.body.data.token}/accept`, { name: "Nuevo Usuario", password: "una clave larga" });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data).toEqual({
      user: { id: expect.any(Number), name: "Nuevo Usuario", email: "nuevo@example.com" },
      workspace: { id: second, name: "Santiago" },
      role: "viewer",
      account_created: true,
      token: expect.any(String),
      token_expires_at: expect.stringMatching(ISO),
    });

    const me = await client(tenant.subdomain, accepted.body.data.token).get("/me");
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      email: "nuevo@example.com",
      current_workspace_id: second,
      workspaces: [{ id: second, name: "Santiago", role: "viewer" }],
    });
    // The password works too.
    const login = await anonymous.post("/auth/tokens", { email: "nuevo@example.com", password: "una clave larga" });
    expect(login.status).toBe(201);

    const list = await tenant.api.get("/workspace/invitations", { headers: { "X-Workspace-ID": String(second) } });
    expect(list.body.data[0].status).toBe("accepted");
    expect((await invitationRow(invited.body.data.id)).acceptedAt).not.toBeNull();
  });

  it("lets an existing user of the tenant accept with their bearer token", async () => {
    const tenant = await seedTenant();
    const second = await seedWorkspace(tenant, "Santiago");
    const user = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    const invited = await tenant.api.post(
      "/workspace/invitations",
      { email: user.email.toUpperCase(), role: "member" },
      { headers: { "X-Workspace-ID": String(second) } },
    );
    expect(invited.status).toBe(201);

    const accepted = await user.api.post(`/invitations/${invited.body.data.token}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toEqual({
      user: { id: user.id, name: expect.any(String), email: user.email },
      workspace: { id: second, name: "Santiago" },
      role: "member",
      account_created: false,
      token: null,
      token_expires_at: null,
    });
    const me = await user.api.get("/me");
    // Their current workspace does not move; they gain the new one with the invited role.
    expect(me.body.data.current_workspace_id).toBe(tenant.workspaceId);
    expect(me.body.data.workspaces).toEqual([
      { id: tenant.workspaceId, name: "Principal", role: "viewer" },
      { id: second, name: "Santiago", role: "member" },
    ]);
  });

  it("accepts until the 7 days are over", async () => {
    const tenant = await seedTenant();
    const invited = await tenant.api.post("/workspace/invitations", { email: "casi@example.com" });
    await ageInvitation(invited.body.data.id, SEVEN_DAYS - 60);
    const listed = await tenant.api.get("/workspace/invitations?filter[status]=pending");
    expect(listed.body.data.map((i: { id: number }) => i.id)).toEqual([invited.body.data.id]);
    const accepted = await client(tenant.subdomain).post(`/invitations/${invited.body.data.token}/accept`, { name: "Casi", password: DEFAULT_PASSWORD });
    expect(accepted.status).toBe(201);
  });

  it("revokes an invitation, and re-inviting the same address replaces the pending one", async () => {
    const tenant = await seedTenant();
    const first = await tenant.api.post("/workspace/invitations", { email: "otra@example.com" });
    const second = await tenant.api.post("/workspace/invitations", { email: "otra@example.com", role: "viewer" });
    expect(second.status).toBe(201);
    const byStatus = async (status: string) =>
      (await tenant.api.get(`/workspace/invitations?filter[status]=${status}`)).body.data.map((i: { id: number }) => i.id);
    expect(await byStatus("revoked")).toEqual([first.body.data.id]);
    expect(await byStatus("pending")).toEqual([second.body.data.id]);

    const revoked = await tenant.api.delete(`/workspace/invitations/${second.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.message).toEqual(expect.any(String));
    expect(await byStatus("pending")).toEqual([]);
    expect((await invitationRow(second.body.data.id)).revokedAt).not.toBeNull();
    expect(await outboxEmails(tenant.tenantId)).toHaveLength(2);
  });
});

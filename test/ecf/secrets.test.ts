import { describe, expect, it, vi } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import { unlimited } from "../security/world";
import { makeCertificate } from "../support/certificates";
import { today } from "../support/dates";
import { env } from "../support/env";
import { catalogIds, createContact, freshRnc } from "../support/sales";
import { ownerRow, seedTenant, seedUser, seedWorkspace, sql, uniqueName } from "../support/seed";
import { ecfTenant, fakeDgii, script } from "./helpers";

/**
 * e-CF secrets (issue 18): the PKCS#12, its password, its private key and DGII's tokens appear in
 * no response body and no log line, over setup, issuing, sending (accepted and DGII down) and
 * reads. The Worker runs in this isolate (createApp().fetch) and the queue step is called here,
 * so console.* is the spied one. Then who may read and retry an e-CF.
 */
describe("e-CF secrets and access", () => {
  it("never shows the certificate file, its password, its key nor DGII's token", async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level).mockImplementation(capture));
    try {
      const tenant = await seedTenant();
      // No ECF_QUEUE: the steps below are this test's, in this isolate.
      const api = unlimited(tenant.subdomain, tenant.admin.token, { ECF_QUEUE: undefined });
      const bodies: string[] = [];
      const keep = async (res: Promise<{ text: string; status: number }>, status = 200) => {
        const r = await res;
        expect(r.status, r.text).toBe(status);
        bodies.push(r.text);
        return r;
      };
      const signer = uniqueName("SECRETO ");
      const rnc = freshRnc();
      const cert = await makeCertificate({ commonName: signer, holderId: rnc, password: `clave-${uniqueName("p")}` });
      await keep(api.patch("/company", { rnc }));
      await keep(api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password }));
      await keep(api.put("/ecf/settings", { enabled: true }));
      await keep(api.get("/ecf/certificate"));
      await keep(api.get("/ecf/settings"));
      const ids = await catalogIds(tenant.api);
      const contact = await createContact(tenant.api);
      const product = (await tenant.api.post("/products", { name: uniqueName("Servicio "), product_type: "service", price: "100", track_inventory: false }))
        .body.data;
      const subtype = (await keep(
        api.post("/document-subtypes", { name: "e-CF", type: "invoice", prefix: "E31", end_number: 10, valid_until: "2027-12-31" }),
        201,
      )) as unknown as { body: { data: { id: number } } };
      const issue = () =>
        keep(
          api.post("/invoices", {
            contact_id: contact.id,
            document_subtype_id: subtype.body.data.id,
            issue_date: today(),
            items: [{ product_id: product.id, quantity: "1", unit_price: "100", tax_ids: [ids.itbis18] }],
          }),
          201,
        ) as Promise<{ text: string; status: number; body: { data: { id: number } } }>;
      const first = await issue();
      const row = await ownerRow<{ id: number }>(sql`SELECT id FROM ecf_documents WHERE invoice_id = ${first.body.data.id}`);
      const ref = { tenant_id: tenant.tenantId, ecf_id: row.id };
      expect(await stepEcfDocument(env, ref)).toMatchObject({ outcome: "in_process" });
      expect(await stepEcfDocument(env, ref, { now: new Date(Date.now() + 3000) })).toMatchObject({ outcome: "final", status: "accepted" });
      // DGII down: the failure is logged (warn), without the token.
      await script(signer, { down: 1 });
      const second = await issue();
      const other = await ownerRow<{ id: number }>(sql`SELECT id FROM ecf_documents WHERE invoice_id = ${second.body.data.id}`);
      expect(await stepEcfDocument(env, { tenant_id: tenant.tenantId, ecf_id: other.id })).toMatchObject({ outcome: "retry" });
      await keep(api.get(`/invoices/${first.body.data.id}/ecf`));
      await keep(api.get(`/invoices/${first.body.data.id}/ecf.xml`));
      await keep(api.get("/ecf/submissions"));

      const tokens = ((await (await fetch(`${fakeDgii}/_control/tokens`)).json()) as { token: string; signer: string }[]).filter((t) => t.signer === signer);
      expect(tokens.length).toBeGreaterThanOrEqual(1);
      const keyBody = cert.privateKeyPem.replace(/-----[^-]+-----|\s+/g, "");
      const secrets: Record<string, string> = {
        "the PKCS#12": cert.p12Base64.slice(200, 260),
        "its password": cert.password,
        // From the key's end (its primes and CRT coefficients): its start encodes the modulus, which
        // is public and rightly appears in every signed e-CF's certificate.
        "the private key": keyBody.slice(-160, -100),
        ...Object.fromEntries(tokens.map((t, i) => [`DGII token ${i + 1}`, t.token])),
      };
      expect(lines.some((line) => line.includes("ecf: DGII unreachable"))).toBe(true);
      for (const [what, secret] of Object.entries(secrets)) {
        expect(
          bodies.filter((b) => b.includes(secret)),
          `${what} in a response`,
        ).toEqual([]);
        expect(
          lines.filter((l) => l.includes(secret)),
          `${what} in a log line`,
        ).toEqual([]);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("a viewer reads an e-CF but cannot retry it; another branch and another tenant get 404", async () => {
    const t = await ecfTenant();
    const { tenant } = t;
    const subtype = { id: await t.subtype("E31") };
    const invoice = await tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: subtype.id,
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(invoice.status, invoice.text).toBe(201);
    const id = invoice.body.data.id;

    const viewer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
    expect((await viewer.api.get(`/invoices/${id}/ecf`)).status).toBe(200);
    expect((await viewer.api.get(`/invoices/${id}/ecf.xml`)).status).toBe(200);
    expect((await viewer.api.post(`/invoices/${id}/ecf/retry`)).status).toBe(403);
    expect((await viewer.api.post("/ecf/annulments", { document_subtype_id: subtype.id, from: 5, to: 6 })).status).toBe(403);

    const w2 = await seedWorkspace(tenant);
    const elsewhere = await seedUser(tenant, { role: "admin", workspaceIds: [w2] });
    for (const path of [`/invoices/${id}/ecf`, `/invoices/${id}/ecf.xml`]) expect((await elsewhere.api.get(path)).status, path).toBe(404);
    expect((await elsewhere.api.post(`/invoices/${id}/ecf/retry`)).status).toBe(404);

    const stranger = await seedTenant();
    for (const path of [`/invoices/${id}/ecf`, `/invoices/${id}/ecf.xml`]) expect((await stranger.api.get(path)).status, path).toBe(404);
    expect((await stranger.api.post(`/invoices/${id}/ecf/retry`)).status).toBe(404);
  });
});

import { describe, expect, it } from "vitest";
import { makeCertificate } from "../support/certificates";
import { ownerRow, seedTenant, seedUser, sql } from "../support/seed";

/**
 * e-CF setup per tenant (issue 18, "Setup per tenant"): the signing certificate (PKCS#12 parsed
 * with node-forge, stored encrypted, never returned) and DGII's environment.
 */
describe("e-CF certificate and settings", () => {
  it("stores a valid PKCS#12 encrypted and shows only what identifies it", async () => {
    const tenant = await seedTenant();
    expect((await tenant.api.get("/ecf/certificate")).status).toBe(404);
    // A person's certificate for tax procedures: the holder's cédula, IDCDO- (docs/security.md, "Who a certificate names").
    const cert = await makeCertificate({ password: "s3creta-de-prueba", holderId: "00113918205" });
    const put = await tenant.api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password });
    expect(put.status, put.text).toBe(200);
    expect(put.body.message).toBe("Certificate stored.");
    const data = put.body.data;
    expect(data).toMatchObject({
      subject: "CN=EMISOR DE PRUEBA SRL, SERIALNUMBER=IDCDO-00113918205, O=Sucursal Pruebas, C=DO",
      serial_number: "IDCDO-00113918205",
      // Issued by the run's test certification authority (test/global-setup.ts), as a real one is by an accredited CA.
      issuer: "CN=AUTORIDAD DE CERTIFICACION DE PRUEBA, O=Sucursal Pruebas, C=DO",
      warnings: [],
    });
    expect(data.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect((await tenant.api.get("/ecf/certificate")).body.data).toEqual(data);

    // Neither the file nor its password is stored or answered in the clear.
    const stored = await ownerRow<{ row: string }>(sql`SELECT row_to_json(s)::text AS row FROM ecf_settings s WHERE tenant_id = ${tenant.tenantId}`);
    expect(stored.row).not.toContain(cert.password);
    expect(stored.row).not.toContain(cert.p12Base64.slice(0, 40));
    expect(put.text).not.toContain(cert.password);

    expect((await tenant.api.delete("/ecf/certificate")).status).toBe(200);
    expect((await tenant.api.get("/ecf/certificate")).status).toBe(404);
    expect((await tenant.api.delete("/ecf/certificate")).status).toBe(404);
  });

  it("refuses what cannot sign, naming the field: wrong password, not base64, not a PKCS#12, no key, expired, not yet valid", async () => {
    const tenant = await seedTenant();
    const cert = await makeCertificate();
    const put = (body: Record<string, unknown>) => tenant.api.put("/ecf/certificate", body);
    const field = async (body: Record<string, unknown>) => {
      const res = await put(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      return Object.keys(res.body.errors);
    };
    expect(await field({ p12_base64: cert.p12Base64, password: "otra" })).toEqual(["password"]);
    expect(await field({ p12_base64: "no es base64!", password: "x" })).toEqual(["p12_base64"]);
    expect(await field({ p12_base64: btoa("hola, no soy un certificado"), password: "x" })).toEqual(["p12_base64"]);
    const keyless = await makeCertificate({ withKey: false });
    expect(await field({ p12_base64: keyless.p12Base64, password: keyless.password })).toEqual(["p12_base64"]);
    const expired = await makeCertificate({ notBefore: new Date("2020-01-01"), notAfter: new Date("2021-01-01") });
    const res = await put({ p12_base64: expired.p12Base64, password: expired.password });
    expect(res.body.errors).toEqual({ p12_base64: ["The certificate expired on 2021-01-01T00:00:00.000Z."] });
    const future = await makeCertificate({ notBefore: new Date(Date.now() + 10 * 86_400_000) });
    expect(await field({ p12_base64: future.p12Base64, password: future.password })).toEqual(["p12_base64"]);
    expect(await field({ password: "x" })).toEqual(["p12_base64"]);
    expect((await tenant.api.get("/ecf/certificate")).status).toBe(404);
  });

  it("refuses a certificate that names no RNC nor cédula: a passport, another prefix, a bare number, a wrong check digit; takes a company's VATDO-", async () => {
    const tenant = await seedTenant();
    const put = async (options: Parameters<typeof makeCertificate>[0]) => {
      const cert = await makeCertificate(options);
      return tenant.api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password });
    };
    // A passport of nine digits is not RNC 131000002 (issue 41).
    const passport = await put({ holderId: "PASDO-131000002" });
    expect(passport.status).toBe(422);
    expect(passport.body.errors).toEqual({
      p12_base64: [
        "The certificate names no RNC nor cédula: The certificate's serialNumber PASDO-131000002 is a passport, not an RNC nor a cédula: an accredited authority writes a cédula as serialNumber IDCDO-…, an RNC as organizationIdentifier VATDO-….",
      ],
    });
    const badDigit = await put({ holderId: "IDCDO-00113918206" });
    expect(badDigit.body.errors).toEqual({
      p12_base64: ["The certificate names no RNC nor cédula: The certificate's serialNumber IDCDO-00113918206: This cédula has an invalid check digit."],
    });
    for (const options of [{ holderId: "TINDO-131000002" }, { serialNumber: "131000002", holderId: null }, { holderId: null }, { holderId: "131000003" }]) {
      const res = await put(options);
      expect([res.status, Object.keys(res.body.errors)], JSON.stringify(options)).toEqual([422, ["p12_base64"]]);
    }
    expect((await tenant.api.get("/ecf/certificate")).status).toBe(404);
    // A company's certificate: its RNC as organizationIdentifier.
    const company = await put({ holderId: "131000002" });
    expect(company.status, company.text).toBe(200);
    expect(company.body.data.subject).toBe("CN=EMISOR DE PRUEBA SRL, 2.5.4.97=VATDO-131000002, O=Sucursal Pruebas, C=DO");
  });

  it("warns within 30 days of expiry", async () => {
    const tenant = await seedTenant();
    const soon = await makeCertificate({ notAfter: new Date(Date.now() + 10 * 86_400_000 + 3_600_000) });
    const res = await tenant.api.put("/ecf/certificate", { p12_base64: soon.p12Base64, password: soon.password });
    expect(res.status).toBe(200);
    expect(res.body.data.warnings.map((w: { code: string }) => w.code)).toEqual(["certificate_expiring"]);
    expect(res.body.data.warnings[0].message).toMatch(/^The certificate expires in 10 day\(s\)/);
  });

  it("chooses the environment; e-CF turns on only with a certificate; admins only", async () => {
    const tenant = await seedTenant();
    const initial = await tenant.api.get("/ecf/settings");
    expect(initial.body.data).toEqual({
      environment: "testecf",
      enabled: false,
      has_certificate: false,
      ecf_base_url: expect.stringMatching(/\/testecf$/),
      fc_base_url: expect.stringMatching(/\/testecf$/),
      deferred_sending_authorization: null,
      receiver_url: null,
      updated_at: null,
    });
    const refused = await tenant.api.put("/ecf/settings", { enabled: true });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["enabled"]);
    expect((await tenant.api.put("/ecf/settings", { environment: "produccion" })).status).toBe(422);

    const cert = await makeCertificate();
    expect((await tenant.api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password })).status).toBe(200);
    const on = await tenant.api.put("/ecf/settings", { environment: "certecf", enabled: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body.data).toMatchObject({ environment: "certecf", enabled: true, has_certificate: true });
    expect(on.body.data.ecf_base_url).toMatch(/\/certecf$/);
    // Removing the certificate turns e-CF off.
    expect((await tenant.api.delete("/ecf/certificate")).status).toBe(200);
    expect((await tenant.api.get("/ecf/settings")).body.data).toMatchObject({ environment: "certecf", enabled: false, has_certificate: false });

    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    for (const res of [
      await member.api.get("/ecf/settings"),
      await member.api.get("/ecf/certificate"),
      await member.api.put("/ecf/certificate", { p12_base64: cert.p12Base64, password: cert.password }),
      await member.api.put("/ecf/settings", { enabled: false }),
    ]) {
      expect(res.status).toBe(403);
    }
    const other = await seedTenant();
    expect((await other.api.get("/ecf/settings")).body.data.has_certificate).toBe(false);
  });
});

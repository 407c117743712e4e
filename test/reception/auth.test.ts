import { describe, expect, it, vi } from "vitest";
import { ecfTenant } from "../ecf/helpers";
import { appCall } from "../security/world";
import { call, TEST_DOMAIN } from "../support/api";
import { seedTenant } from "../support/seed";
import { fe, receiverToken, signAs, supplierCertificate } from "./helpers";

/**
 * The receiver services' authentication (DGII, Descripción técnica, Estándar de comunicación
 * Emisor-Receptor: /fe/autenticacion/api/semilla and /validacioncertificado): a seed of ours,
 * signed by the sender, for a bearer token that reception and commercial approval require.
 */
describe("receiver authentication", () => {
  it("a seed signed by the sender's certificate gets a token for an hour, as JSON or XML; the paths ignore case", async () => {
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const seed = await fe(sub, "/FE/Autenticacion/API/Semilla");
    expect(seed.status, seed.text).toBe(200);
    expect(seed.headers.get("content-type")).toContain("application/xml");
    const value = /<SemillaModel[^>]*><valor>([^<]+)<\/valor><fecha>([^<]+)<\/fecha><\/SemillaModel>$/.exec(seed.text);
    expect(value, seed.text).not.toBeNull();
    expect(value![1]!.split(".")).toHaveLength(4);
    expect(Number.isNaN(Date.parse(value![2]!))).toBe(false);

    const supplier = await supplierCertificate();
    const json = await fe(sub, "/fe/autenticacion/api/validacioncertificado", { xml: signAs(supplier, seed.text) });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual({ token: expect.any(String), expira: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), expedido: expect.any(String) });
    expect(Date.parse(json.body.expira) - Date.parse(json.body.expedido)).toBe(3_600_000);

    const again = await fe(sub, "/fe/autenticacion/api/semilla");
    const xml = await fe(sub, "/fe/autenticacion/api/ValidacionCertificado", { xml: signAs(supplier, again.text), accept: "application/xml" });
    expect(xml.status, xml.text).toBe(200);
    expect(xml.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><RespuestaAutenticacion><token>[^<]+<\/token><expira>[^<]+<\/expira><expedido>[^<]+<\/expedido><\/RespuestaAutenticacion>$/,
    );
  });

  it("refuses a seed that is not ours, another tenant's, unsigned, altered after signing, or no file at all (400)", async () => {
    const t = await ecfTenant();
    const other = await ecfTenant();
    const sub = t.tenant.subdomain;
    const supplier = await supplierCertificate();
    const seed = (await fe(sub, "/fe/autenticacion/api/semilla")).text;
    const value = /<valor>([^<]+)<\/valor>/.exec(seed)![1]!;
    const forged = seed.replace(value, `${value.slice(0, -2)}AA`);
    const cases: [string, Awaited<ReturnType<typeof fe>>, string][] = [
      ["forged value", await fe(sub, "/fe/autenticacion/api/validacioncertificado", { xml: signAs(supplier, forged) }), "Semilla inválida o expirada."],
      [
        "another tenant's seed",
        await fe(sub, "/fe/autenticacion/api/validacioncertificado", {
          xml: signAs(supplier, (await fe(other.tenant.subdomain, "/fe/autenticacion/api/semilla")).text),
        }),
        "Semilla inválida o expirada.",
      ],
      [
        "unsigned",
        await fe(sub, "/fe/autenticacion/api/validacioncertificado", { xml: seed }),
        "La firma del archivo no es válida: The document is not signed.",
      ],
      [
        "altered after signing",
        await fe(sub, "/fe/autenticacion/api/validacioncertificado", { xml: signAs(supplier, seed).replace("<fecha>", "<fecha>1") }),
        "La firma del archivo no es válida: The signature does not match the document.",
      ],
      [
        "no file",
        await fe(sub, "/fe/autenticacion/api/validacioncertificado", { raw: "token=1", contentType: "application/x-www-form-urlencoded" }),
        "Tipo de archivo no válido, favor proveer un XML",
      ],
      ["not XML", await fe(sub, "/fe/autenticacion/api/validacioncertificado", { xml: "¿qué?" }), "El archivo XML no es válido: Not well-formed XML"],
    ];
    for (const [what, res, message] of cases) {
      expect(res.status, what).toBe(400);
      expect(res.text.startsWith(message), `${what}: ${res.text}`).toBe(true);
    }
  });

  it("reception and commercial approval need a receiver token of this tenant: none, an API token or another tenant's is 401", async () => {
    const t = await ecfTenant();
    const other = await ecfTenant();
    const supplier = await supplierCertificate();
    const foreign = await receiverToken(other.tenant.subdomain, supplier);
    for (const path of ["/fe/recepcion/api/ecf", "/fe/aprobacioncomercial/api/ecf"]) {
      for (const token of [undefined, t.tenant.admin.token, foreign, "abc"]) {
        const res = await fe(t.tenant.subdomain, path, { xml: "<ECF/>", token });
        expect(res.status, `${path} ${token}`).toBe(401);
        expect(res.body.code).toBe("unauthenticated");
        expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
      }
    }
    // The token is no API token either.
    const own = await receiverToken(t.tenant.subdomain, supplier);
    expect((await t.tenant.api.get("/invoices", { token: own })).status).toBe(401);
  });

  it("a company without an e-CF certificate receives nothing: 404 on every receiver service", async () => {
    const plain = await seedTenant();
    expect((await fe(plain.subdomain, "/fe/autenticacion/api/semilla")).status).toBe(404);
    expect((await fe(plain.subdomain, "/fe/autenticacion/api/validacioncertificado", { xml: "<SemillaModel/>" })).status).toBe(404);
  });

  it("the receiver services are limited as webhooks: one bucket per tenant at RATE_LIMIT_WEBHOOK_PER_MINUTE, whatever the path's case", async () => {
    // The limiter's windows are sliding minutes: the clock is held still, so that no request of the
    // test crosses a minute boundary (where the previous minute's weight changes what is left).
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: minute + 1_000 });
    try {
      const t = await ecfTenant();
      const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
      // More than the anonymous 10 per IP: the receiver's buckets apply, the IP's share (60) shown as the tighter one.
      for (let i = 0; i < 12; i++) {
        const res = await call(t.tenant.subdomain, "/fe/autenticacion/api/semilla", { ip });
        expect(res.status).toBe(200);
        expect([res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-remaining")]).toEqual(["60", String(59 - i)]);
      }
      vi.setSystemTime(minute + 30_000);
      const other = await ecfTenant();
      const url = (path: string) => `http://${other.tenant.subdomain}.${TEST_DOMAIN}${path}`;
      const limited = { RATE_LIMIT_WEBHOOK_PER_MINUTE: "3" };
      const paths = ["/fe/autenticacion/api/semilla", "/FE/Autenticacion/Api/Semilla", "/fe/recepcion/api/ecf"];
      const answers = [];
      for (const path of paths)
        answers.push(await appCall(other.tenant.subdomain, url(path), { env: limited, ip, method: path.includes("recepcion") ? "POST" : "GET" }));
      expect(answers.map((r) => [r.status, r.headers.get("x-ratelimit-remaining")])).toEqual([
        [200, "2"],
        [200, "1"],
        [401, "0"],
      ]);
      const refused = await appCall(other.tenant.subdomain, url("/fe/autenticacion/api/semilla"), { env: limited, ip: "203.0.113.9" });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("30");
    } finally {
      vi.useRealTimers();
    }
  });
});

import { describe, expect, it } from "vitest";
import type { ReceiverCheck } from "../../src/modules/certification/schemas";
import { inDirectory } from "../reception/helpers";
import type { Data } from "../support/api";
import { seedUser } from "../support/seed";
import { ecfTenant, fakeDgii } from "./helpers";

type Check = Data<import("zod").infer<typeof ReceiverCheck>>;

async function hostile(rnc: string, script: { seed?: string; answer?: string }): Promise<void> {
  const res = await fetch(`${fakeDgii}/_control/receiver-hostile`, { method: "POST", body: JSON.stringify({ rnc, ...script }) });
  expect(res.status).toBe(200);
}

/**
 * Certification steps 7-11 (issue 32): the admin checks the receiver it registers with DGII before
 * DGII calls it. Sucursal plays DGII against it — seed, certificate validation, an e-CF to
 * reception expecting a signed ARECF, an ACECF to commercial approval — and reports each answer.
 */
describe("certification: the receiver check", () => {
  it("the tenant's own receiver (its host, in-process) passes every step, files nothing, and leaves step 9 pending", async () => {
    const t = await ecfTenant();
    const res = await t.tenant.api.post<Check>("/ecf/certification/receiver-check", {});
    expect(res.status, res.text).toBe(200);
    const check = res.body.data;
    const base = `http://${t.tenant.subdomain}.sucursal.test`;
    expect(check).toMatchObject({ receiver_url: base, via: "in_process", ok: true });
    expect(check.steps.map((s) => [s.name, s.outcome, s.status, s.url])).toEqual([
      ["seed", "ok", 200, `${base}/fe/autenticacion/api/semilla`],
      ["certificate", "ok", 200, `${base}/fe/autenticacion/api/validacioncertificado`],
      ["reception", "ok", 200, `${base}/fe/recepcion/api/ecf`],
      ["commercial_approval", "ok", 400, `${base}/fe/aprobacioncomercial/api/ecf`],
    ]);
    expect(check.steps[0]!.answer).toContain("<SemillaModel");
    expect(check.steps[2]!.answer).toContain(
      `<RNCEmisor>${t.rnc}</RNCEmisor><RNCComprador>${t.rnc}</RNCComprador><eNCF>E319999999999</eNCF><Estado>1</Estado><CodigoMotivoNoRecibido>4</CodigoMotivoNoRecibido>`,
    );
    expect(check.steps[2]!.detail).toBe(
      "A signed ARECF, Estado 1 with CodigoMotivoNoRecibido 4: the signature and schema passed, and the check's buyer (DGII) is not the tenant.",
    );
    expect(JSON.parse(check.steps[3]!.answer!)).toMatchObject({ mensaje: ["No se encuentra un e-CF válido para esta aprobación comercial"] });
    expect(check.proves).toContain("It cannot prove DGII's own certificate is accepted");

    // Nothing filed: no received e-CF, step 9 still waits for DGII's own.
    expect((await t.tenant.api.get("/received-ecf")).body.data).toEqual([]);
    const steps = (await t.tenant.api.get("/ecf/certification")).body.data.steps;
    expect(steps[8]).toMatchObject({ state: "pending", evidence: { received_ecf: 0 } });

    const member = await seedUser(t.tenant, { role: "member", workspaceIds: [t.tenant.workspaceId] });
    expect((await member.api.post("/ecf/certification/receiver-check", {})).status).toBe(403);
  });

  it("a receiver_url of another taxpayer's receiver fails at reception: its ARECF is signed by a certificate that does not name the tenant", async () => {
    const t = await ecfTenant();
    const other = await ecfTenant();
    const set = await t.tenant.api.put("/ecf/settings", { receiver_url: `https://${other.tenant.subdomain}.sucursal.test/` });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.receiver_url).toBe(`https://${other.tenant.subdomain}.sucursal.test`);
    const check = (await t.tenant.api.post<Check>("/ecf/certification/receiver-check", {})).body.data;
    expect(check).toMatchObject({ via: "in_process", ok: false });
    expect(check.steps.map((s) => s.outcome)).toEqual(["ok", "ok", "failed", "ok"]);
    expect(check.steps[2]!.detail).toMatch(new RegExp(`^The ARECF is signed by .*, whose certificate does not name the tenant's RNC ${t.rnc}\\.$`));
  });

  it("a hostile receiver on the network: a wrong signer fails reception; an e-CF served as a seed is not signed and stops the check", async () => {
    const t = await ecfTenant();
    await inDirectory(t.rnc, "Receptor Hostil SRL");
    const receiver = `${fakeDgii}/testecf/receptor/${t.rnc}`;
    expect((await t.tenant.api.put("/ecf/settings", { receiver_url: receiver })).status).toBe(200);

    // A well-behaved receiver first (the fake playing the tenant's RNC): every step passes over the network; it takes the ACECF (200).
    let check = (await t.tenant.api.post<Check>("/ecf/certification/receiver-check", {})).body.data;
    expect(check).toMatchObject({ receiver_url: receiver, via: "network", ok: true });
    expect(check.steps.map((s) => [s.outcome, s.status])).toEqual([
      ["ok", 200],
      ["ok", 200],
      ["ok", 200],
      ["ok", 200],
    ]);

    await hostile(t.rnc, { answer: "wrong-signer" });
    check = (await t.tenant.api.post<Check>("/ecf/certification/receiver-check", {})).body.data;
    expect(check.ok).toBe(false);
    expect(check.steps[2]).toMatchObject({ name: "reception", outcome: "failed", status: 200 });
    expect(check.steps[2]!.detail).toMatch(/^The ARECF is signed by .*Proveedor Fake SRL.*, whose certificate does not name the tenant's RNC \d+\.$/);

    await hostile(t.rnc, { seed: "ecf" });
    const seeds = async () => (await (await fetch(`${fakeDgii}/_control/receiver-seeds?rnc=${t.rnc}`)).json()) as unknown[];
    const signedBefore = (await seeds()).length;
    check = (await t.tenant.api.post<Check>("/ecf/certification/receiver-check", {})).body.data;
    expect(check.steps.map((s) => s.outcome)).toEqual(["failed", "skipped", "skipped", "skipped"]);
    expect(check.steps[0]!.detail).toMatch(/^It did not serve a seed, so nothing was signed: /);
    expect(check.steps[1]).toMatchObject({ status: null, answer: null, detail: "Not tried: the seed failed." });
    expect((await seeds()).length).toBe(signedBefore);

    await hostile(t.rnc, { seed: "redirect" });
    check = (await t.tenant.api.post<Check>("/ecf/certification/receiver-check", {})).body.data;
    expect(check.steps[0]).toMatchObject({ outcome: "failed", status: 302 });
    expect(check.steps[0]!.detail).toMatch(
      /^It answered a redirect \(302\) to .*: DGII does not follow redirects\. DGII expects 200 with a seed \(SemillaModel\)\.$/,
    );
  });

  it("receiver_url takes the rules of a webhook endpoint: https to a public address, a base URL without /fe, query or fragment; null is the own host", async () => {
    const t = await ecfTenant();
    const cases: [string, string][] = [
      ["ftp://receptor.example.com", "Must be an https:// URL (http:// only to loopback)."],
      ["https://10.1.2.3", "Must not point at a private, link-local or reserved address."],
      ["https://user:pw@receptor.example.com", "Must not carry credentials."],
      ["https://receptor.example.com/fe", "The base URL, without /fe: /fe/recepcion/api/ecf and the other paths are appended to it."],
      ["https://receptor.example.com/?a=1", "Must not carry a query or a fragment."],
      ["nada", "Must be an absolute URL."],
    ];
    for (const [url, message] of cases) {
      const res = await t.tenant.api.put("/ecf/settings", { receiver_url: url });
      expect(res.status, url).toBe(422);
      expect(res.body.errors, url).toEqual({ receiver_url: [message] });
    }
    expect((await t.tenant.api.put("/ecf/settings", { receiver_url: "https://facturas.acme.com.do/dgii/" })).body.data.receiver_url).toBe(
      "https://facturas.acme.com.do/dgii",
    );
    // Other settings leave it alone; null returns to the tenant's own host.
    expect((await t.tenant.api.put("/ecf/settings", { enabled: true })).body.data.receiver_url).toBe("https://facturas.acme.com.do/dgii");
    expect((await t.tenant.api.put("/ecf/settings", { receiver_url: null })).body.data.receiver_url).toBeNull();
  });
});

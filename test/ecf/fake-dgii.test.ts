import { describe, expect, it } from "vitest";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { requestToken } from "../../src/modules/ecf/dgii";
import { ecfTenant, fakeDgii, waitForStatus } from "./helpers";

/**
 * The fake DGII's status query and directory (issue 18, "A fake DGII"), which the API does not
 * call itself: an operator (or DGII's certification set) asks them with the tenant's token.
 */
describe("fake DGII: status query and directory", () => {
  it("answers the state and amounts of an accepted e-CF by RNC and e-NCF, nothing for a wrong security code; lists the issuer in its directory", async () => {
    const t = await ecfTenant();
    const res = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: "2026-11-23",
      items: [{ product_id: t.service.id, quantity: "4", unit_price: "250", tax_ids: [t.ids.itbis18] }],
    });
    expect(res.status, res.text).toBe(201);
    const view = await waitForStatus(t, `/invoices/${res.body.data.id}`, "accepted");
    const { token } = await requestToken(`${fakeDgii}/testecf`, signingMaterial(t.cert.p12Base64, t.cert.password));
    const ask = async (path: string) => {
      const answer = await fetch(`${fakeDgii}/testecf/${path}`, { headers: { authorization: `Bearer ${token}`, accept: "application/json" } });
      expect(answer.status).toBe(200);
      return answer.json() as Promise<Record<string, unknown>>;
    };
    const code = encodeURIComponent(view.security_code);
    const state = await ask(`consultaestado/api/consultas/estado?rncemisor=${t.rnc}&ncfelectronico=E310000000001&codigoseguridad=${code}`);
    expect(state).toMatchObject({
      codigo: 1,
      estado: "Aceptado",
      rncEmisor: t.rnc,
      ncfElectronico: "E310000000001",
      montoTotal: 1180,
      totalITBIS: 180,
      fechaEmision: "23-11-2026",
      codigoSeguridad: view.security_code,
    });
    const wrong = await ask(`consultaestado/api/consultas/estado?rncemisor=${t.rnc}&ncfelectronico=E310000000001&codigoseguridad=zzzzzz`);
    expect(wrong).toMatchObject({ codigo: 0, estado: "No encontrado" });
    const unauthorized = await fetch(`${fakeDgii}/testecf/consultaestado/api/consultas/estado?rncemisor=${t.rnc}&ncfelectronico=E310000000001`);
    expect(unauthorized.status).toBe(401);

    const listed = (await ask("consultadirectorio/api/consultas/listado")) as unknown as { rnc: string; urlRecepcion: string }[];
    expect(listed.some((entry) => entry.rnc === t.rnc)).toBe(true);
    const one = (await ask(`consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${t.rnc}`)) as unknown as { rnc: string; urlRecepcion: string }[];
    expect(one).toEqual([expect.objectContaining({ rnc: t.rnc, urlRecepcion: `${fakeDgii}/testecf/receptor/${t.rnc}` })]);
  });
});

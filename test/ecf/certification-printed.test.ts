import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import type { Certification } from "../../src/modules/certification/schemas";
import type { DataWithMessage } from "../support/api";
import { today } from "../support/dates";
import { fetchBytes, pdfText } from "../support/pdf";
import { seedTenant, seedUser } from "../support/seed";
import { ecfTenant, issueE31, waitForStatus } from "./helpers";

type View = DataWithMessage<import("zod").infer<typeof Certification>>;

/**
 * Steps 4 and 5 of DGII's certification (issue 32, "Steps 4-6"): the simulation is the tenant's
 * normal invoicing in certecf, counted per type (an E32 under RD$250,000 as its RFCE), and the
 * printed representation of each of its e-CF is downloaded as one ZIP for the Oficina Virtual.
 */
describe("certification: the simulation and its printed representations", () => {
  it("zips the PDF of each e-CF accepted in certecf, named by e-NCF, each printing its e-NCF and security code; testecf e-CF are not part of it", async () => {
    const t = await ecfTenant();
    const zipPath = "/ecf/certification/printed-representations.zip";
    const none = await t.tenant.api.get(zipPath);
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({
      code: "conflict",
      message: "No e-CF of the tenant has been accepted in certecf yet: the simulation (step 4) comes first.",
    });

    // Practice in testecf: not the simulation.
    const practice = await issueE31(t);
    await waitForStatus(t, `/invoices/${practice.id}`, "accepted");
    expect((await t.tenant.api.put("/ecf/settings", { environment: "certecf", enabled: true })).status).toBe(200);

    const e31 = await issueE31(t, t.tenant.api, "2500");
    const e31View = await waitForStatus(t, `/invoices/${e31.id}`, "accepted");
    const anonymous = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
    const consumer = await t.tenant.api.post("/invoices", {
      contact_id: anonymous.id,
      document_subtype_id: await t.subtype("E32"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "3", unit_price: "150", tax_ids: [t.ids.itbis18] }],
    });
    expect(consumer.status, consumer.text).toBe(201);
    const e32View = await waitForStatus(t, `/invoices/${consumer.body.data.id}`, "accepted");
    expect(e32View.consumer_summary).toBe(true);

    const steps = (await t.tenant.api.get<View>("/ecf/certification")).body.data.steps;
    expect(steps[3]).toMatchObject({
      state: "done",
      evidence: { accepted_e31: 1, accepted_e32: 1, accepted_rfce: 1, types_required: 2, types_missing: 0 },
    });

    const res = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, zipPath);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="representaciones-impresas.zip"');
    const files = unzipSync(res.bytes);
    expect(e31.document_number).toBe("E310000000002");
    expect(Object.keys(files)).toEqual(["E310000000002.pdf", "E320000000001.pdf"]);
    const expected: Record<string, { code: string; total: string }> = {
      "E310000000002.pdf": { code: e31View.security_code, total: "Total: RD$2,950.00" },
      "E320000000001.pdf": { code: e32View.security_code, total: "Total: RD$531.00" },
    };
    for (const [name, bytes] of Object.entries(files)) {
      expect(new TextDecoder().decode(bytes.slice(0, 5)), name).toBe("%PDF-");
      expect(bytes.length, name).toBeLessThan(10 * 1024 * 1024);
      const text = await pdfText(bytes);
      expect(text, name).toContain(`e-NCF: ${name.replace(".pdf", "")}`);
      expect(text, name).toContain(`Código de Seguridad: ${expected[name]!.code}`);
      expect(text, name).toContain(expected[name]!.total);
    }
    // The E32's receipt sends the consumer to the tenant's lookup page.
    expect(await pdfText(files["E320000000001.pdf"]!)).toContain(`Consulte este comprobante en: http://${t.tenant.subdomain}.sucursal.test/consulta`);
    expect(await pdfText(files["E310000000002.pdf"]!)).not.toContain("Consulte este comprobante");

    // Another tenant's simulation is its own; a member may not download it.
    expect((await (await seedTenant()).api.get(zipPath)).status).toBe(409);
    const member = await seedUser(t.tenant, { role: "member", workspaceIds: [t.tenant.workspaceId] });
    expect((await member.api.get(zipPath)).status).toBe(403);
  });
});

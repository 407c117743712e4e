import { describe, expect, it } from "vitest";
import type { Certification } from "../../src/modules/certification/schemas";
import { buildAcecf } from "../../src/modules/ecf/receipts";
import { fe, receiveFromSupplier, signAsSupplier, supplierToken } from "../reception/helpers";
import type { DataWithMessage } from "../support/api";
import { today } from "../support/dates";
import { freshRnc } from "../support/sales";
import { seedTenant, seedUser } from "../support/seed";
import { ecfTenant, waitForStatus } from "./helpers";

type CertificationData = import("zod").infer<typeof Certification>;
type View = DataWithMessage<CertificationData>;

const SUCURSAL_STEPS = [2, 3, 4, 9, 11];
const PROVIDER_SKIPS = [2, 3, 7, 8, 9, 10, 11];

/**
 * DGII's certification as a resource (issue 32, "The certification of a tenant"): the 14 steps of
 * DGII's "Proceso de Certificación para ser Emisor Electrónico" with their state, what Sucursal did
 * and what the admin does in the Oficina Virtual; production stays closed until the steps
 * Sucursal runs are done.
 */
describe("DGII's certification of a tenant", () => {
  it("lists the 14 steps in order, all pending; admin steps are marked done with a note, Sucursal's are not markable", async () => {
    const tenant = await seedTenant();
    const first = await tenant.api.get<View>("/ecf/certification");
    expect(first.status, first.text).toBe(200);
    const view = first.body.data;
    expect(view).toMatchObject({ environment: "testecf", uses_certified_provider: false, blocking_step: 2 });
    expect(view.steps.map((s) => s.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(view.steps.filter((s) => s.run_by === "sucursal").map((s) => s.number)).toEqual(SUCURSAL_STEPS);
    expect(view.steps.map((s) => s.state)).toEqual(Array(14).fill("pending"));
    expect(view.steps[1]).toMatchObject({ name: "Pruebas de datos e-CF", run_by: "sucursal", evidence: { runs: 0 }, note: null });
    expect(view.steps[12]).toMatchObject({ number: 13, name: "Declaración jurada", run_by: "admin", evidence: {}, marked_at: null });

    const marked = await tenant.api.put<View>("/ecf/certification/steps/1", { note: "Registrado en la OFV el 20-11-2026, formulario FI-GDF-016." });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.message).toBe("Step 1 marked done.");
    expect(marked.body.data.steps[0]).toMatchObject({
      state: "done",
      note: "Registrado en la OFV el 20-11-2026, formulario FI-GDF-016.",
      marked_by: tenant.admin.id,
      marked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    // Marking every admin step does not open production: the steps Sucursal runs are what count.
    expect(marked.body.data.blocking_step).toBe(2);

    const observed = await tenant.api.put("/ecf/certification/steps/2", { note: "Ya lo hice" });
    expect(observed.status).toBe(409);
    expect(observed.body).toMatchObject({
      code: "certification_step_observed",
      message: "Step 2 (Pruebas de datos e-CF) is run by Sucursal: its state comes from what Sucursal did, not from a mark.",
    });
    for (const path of ["/ecf/certification/steps/0", "/ecf/certification/steps/15", "/ecf/certification/steps/1e0", "/ecf/certification/steps/x"]) {
      const res = await tenant.api.put(path, { note: "x" });
      expect(res.status, path).toBe(422);
      expect(res.body.errors, path).toEqual({ number: ["Must be one of DGII's step numbers, 1 to 14."] });
    }
    for (const body of [{}, { note: "   " }, { note: "x".repeat(501) }, { note: "ok", extra: 1 }]) {
      expect((await tenant.api.put("/ecf/certification/steps/13", body)).status, JSON.stringify(body).slice(0, 40)).toBe(422);
    }

    const unmarked = await tenant.api.delete<View>("/ecf/certification/steps/1");
    expect(unmarked.status).toBe(200);
    expect(unmarked.body.data.steps[0]).toMatchObject({ state: "pending", note: null, marked_by: null });
    const again = await tenant.api.delete("/ecf/certification/steps/1");
    expect(again.status).toBe(404);
    expect(again.body.message).toBe("Step 1 is not marked done.");

    // Another tenant sees none of it; a member may not see or mark it.
    const other = await seedTenant();
    await tenant.api.put("/ecf/certification/steps/6", { note: "Aprobada por DGII" });
    expect((await other.api.get<View>("/ecf/certification")).body.data.steps[5]!.state).toBe("pending");
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await member.api.get("/ecf/certification")).status).toBe(403);
    expect((await member.api.put("/ecf/certification/steps/6", { note: "x" })).status).toBe(403);
  });

  it("production (environment ecf) stays closed, naming the step, until the steps Sucursal runs are done or a certified provider issues", async () => {
    const t = await ecfTenant();
    const refused = await t.tenant.api.put("/ecf/settings", { environment: "ecf" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "certification_incomplete",
      message:
        "Step 2 of DGII's certification (Pruebas de datos e-CF) is not done: see GET /api/v1/ecf/certification. A tenant that issues through a certified provider says so with PUT /api/v1/ecf/certification.",
    });
    expect((await t.tenant.api.get("/ecf/settings")).body.data.environment).toBe("testecf");

    const provider = await t.tenant.api.put<View>("/ecf/certification", { uses_certified_provider: true });
    expect(provider.status, provider.text).toBe(200);
    expect(provider.body.data.uses_certified_provider).toBe(true);
    expect(provider.body.data.blocking_step).toBeNull();
    expect(provider.body.data.steps.filter((s) => s.state === "not_applicable").map((s) => s.number)).toEqual(PROVIDER_SKIPS);
    const opened = await t.tenant.api.put("/ecf/settings", { environment: "ecf" });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body.data.environment).toBe("ecf");
    // Once in production, other settings change freely.
    expect((await t.tenant.api.put("/ecf/settings", { environment: "ecf", enabled: true })).status).toBe(200);
    expect((await t.tenant.api.put("/ecf/certification", { uses_certified_provider: "yes" })).status).toBe(422);
  });

  it("simulation counts the e-CF accepted in certecf per electronic sequence; DGII's e-CF and ACECF reaching the receiver in certecf do steps 9 and 11", async () => {
    const t = await ecfTenant();
    expect((await t.tenant.api.put("/ecf/settings", { environment: "certecf", enabled: true })).status).toBe(200);
    const e32 = await t.subtype("E32");
    const buyerRnc = freshRnc();
    const contact = await t.tenant.api.post("/contacts", { name: "Comprador Electrónico SRL", identification_type: "rnc", identification: buyerRnc });
    expect(contact.status).toBe(201);
    const invoice = await t.tenant.api.post("/invoices", {
      contact_id: contact.body.data.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, description: "Asesoría", quantity: "2", unit_price: "1000", tax_ids: [t.ids.itbis18] }],
    });
    expect(invoice.status, invoice.text).toBe(201);
    await waitForStatus(t, `/invoices/${invoice.body.data.id}`, "accepted");

    let steps = (await t.tenant.api.get<View>("/ecf/certification")).body.data.steps;
    expect(steps[3]).toMatchObject({ state: "in_progress", evidence: { accepted_e31: 1, accepted_e32: 0, types_required: 2, types_missing: 1 } });
    expect(steps[8]).toMatchObject({ state: "pending", evidence: { received_ecf: 0 } });
    expect(steps[10]).toMatchObject({ state: "pending", evidence: { commercial_approvals_received: 0 } });

    // The E32 sequence retired: one accepted e-CF of each active electronic sequence is the simulation.
    expect((await t.tenant.api.patch(`/document-subtypes/${e32}`, { is_active: false })).status).toBe(200);
    steps = (await t.tenant.api.get<View>("/ecf/certification")).body.data.steps;
    expect(steps[3]).toMatchObject({ state: "done", evidence: { accepted_e31: 1, types_required: 1, types_missing: 0 } });

    // DGII, playing a taxpayer, sends an e-CF to the receiver and approves ours.
    await receiveFromSupplier(t, freshRnc());
    const token = await supplierToken(t.tenant.subdomain, buyerRnc);
    const approval = buildAcecf({
      issuerRnc: t.rnc,
      encf: invoice.body.data.document_number,
      issueDate: invoice.body.data.issue_date,
      totalAmount: "2360.00",
      buyerRnc,
      approved: true,
      at: new Date(),
    });
    const sent = await fe(t.tenant.subdomain, "/fe/aprobacioncomercial/api/ecf", { xml: await signAsSupplier(approval), token });
    expect(sent.status, sent.text).toBe(200);
    const view = (await t.tenant.api.get<View>("/ecf/certification")).body.data;
    expect(view.steps[8]).toMatchObject({ state: "done", evidence: { received_ecf: 1 } });
    expect(view.steps[10]).toMatchObject({ state: "done", evidence: { commercial_approvals_received: 1 } });
    // Steps 2 and 3 (DGII's test sets) still keep production closed.
    expect(view.blocking_step).toBe(2);
  });
});

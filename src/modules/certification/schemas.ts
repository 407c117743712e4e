import { z } from "@hono/zod-openapi";
import { idParam, idQuery } from "../../lib/bounds";
import { ECF_ENVIRONMENTS } from "../ecf/schemas";

export const CERTIFICATION_STEP_STATES = ["pending", "in_progress", "done", "failed", "not_applicable"] as const;

export const CertificationStepView = z
  .object({
    number: z.number().int().min(1).max(14).openapi({ description: "DGII's step number, 1-14" }),
    name: z.string().openapi({ description: "DGII's name of the step, as the Oficina Virtual shows it", example: "Pruebas de datos e-CF" }),
    run_by: z.enum(["sucursal", "admin"]).openapi({
      description:
        "sucursal: its state is read from what Sucursal did or received; admin: done in DGII's Oficina Virtual, marked done by the admin with a note",
    }),
    state: z.enum(CERTIFICATION_STEP_STATES),
    sucursal_does: z.string(),
    admin_does: z.string(),
    evidence: z.record(z.string(), z.union([z.number(), z.string(), z.null()])).openapi({
      description: "What Sucursal counted for the step (e.g. accepted_e31, received_ecf)",
      example: { accepted_e31: 1, types_required: 2, types_missing: 1 },
    }),
    note: z.string().nullable().openapi({ description: "The admin's note when marking the step done" }),
    marked_at: z.string().nullable(),
    marked_by: z.number().int().nullable().openapi({ description: "The user who marked it done" }),
  })
  .openapi("CertificationStep");

export const Certification = z
  .object({
    environment: z.enum(ECF_ENVIRONMENTS),
    uses_certified_provider: z
      .boolean()
      .openapi({ description: "The tenant issues through a certified provider: DGII's data and communication tests do not apply" }),
    blocking_step: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The first step Sucursal runs that is not done: the environment cannot switch to ecf (production) while there is one" }),
    steps: z.array(CertificationStepView),
  })
  .openapi("Certification");

export const PrintedRepresentationsQuery = z
  .object({
    workspace_id: idQuery().openapi({
      description:
        "Only this branch's e-CF: ecf:manage as a member of it (or at company level). Omitted: every branch's, an act on the whole company (ecf:manage at company level)",
    }),
  })
  .strict();

export const PutCertificationBody = z.object({ uses_certified_provider: z.boolean() }).strict().openapi("PutCertificationRequest");

export const MarkStepBody = z
  .object({ note: z.string().trim().min(1).max(500).openapi({ description: "What was done and when, e.g. DGII's approval date" }) })
  .strict()
  .openapi("MarkCertificationStepRequest");

export const StepParam = z.object({
  number: z
    .string()
    .regex(/^(?:[1-9]|1[0-4])$/, "Must be one of DGII's step numbers, 1 to 14.")
    .transform(Number)
    .openapi({ param: { name: "number", in: "path" }, type: "integer", minimum: 1, maximum: 14, example: 13 }),
});

// ---- DGII's test sets (steps 2 and 3): imported from DGII's .xlsx (test-set.ts)

export const TEST_SET_KINDS = ["ecf", "approval"] as const;
export const TEST_CASE_DOCUMENTS = ["ecf", "rfce", "acecf"] as const;
export const TEST_CASE_STATES = ["pending", "sent", "accepted", "accepted_conditional", "rejected"] as const;
export const TEST_RUN_STATES = ["running", "completed", "stopped"] as const;

export const TestSetSummary = z
  .object({
    id: z.number().int(),
    kind: z.enum(TEST_SET_KINDS).openapi({
      description: "ecf: DGII's e-CF set (sheets ECF and RFCE; step 2); approval: the commercial approvals (sheet ACEECF_Generadas; step 3)",
    }),
    file_name: z.string(),
    uploaded_by: z.number().int().nullable(),
    uploaded_at: z.string(),
    case_count: z.number().int(),
  })
  .openapi("CertificationTestSetSummary");

export const TestCaseView = z
  .object({
    position: z.number().int().openapi({
      description: "The case's place in the set, the order it is sent in: sheet ECF's rows, then summaries of sheet RFCE without their E32, or the approvals",
    }),
    sheet: z.string().openapi({ example: "ECF" }),
    row: z.number().int().openapi({ description: "The case's row in DGII's sheet" }),
    name: z.string().openapi({ description: "CasoPrueba (the e-NCF for an approval)", example: "101010101E310000000001" }),
    document: z
      .enum(TEST_CASE_DOCUMENTS)
      .openapi({ description: "What the case's row is: an e-CF (sheet ECF), a summary (RFCE) of sheet RFCE whose E32 the set does not carry, or an ACECF" }),
    sent_as: z.enum(TEST_CASE_DOCUMENTS).openapi({
      description:
        "What DGII receives of the case: the e-CF whole (ecf), its summary (rfce: an E32 under RD$250,000, which DGII's reception does not take; the whole E32 is signed and kept), or the ACECF",
    }),
    sent_to: z.enum(["recepcion", "recepcionfc", "aprobacioncomercial"]).openapi({ description: "DGII's service the run sends the case to" }),
    summary_row: z.number().int().nullable().openapi({
      description: "An E32 sent as its summary: the row of sheet RFCE giving the summary's values; null when they are taken from the E32's own row",
    }),
    type: z.string().openapi({ description: "TipoeCF", example: "31" }),
    encf: z.string().openapi({ example: "E310000000001" }),
    state: z.enum(TEST_CASE_STATES).openapi({
      description: "In the set's latest run: pending (not sent yet), sent (DGII has it, no final result yet), accepted, accepted_conditional or rejected",
    }),
    run_encf: z
      .string()
      .nullable()
      .openapi({ description: "The e-NCF the case carries in the latest run (a rerun takes new numbers)", example: "E310000000001" }),
    track_id: z.string().nullable().openapi({ description: "DGII's trackId of the e-CF sent (RFCE and ACECF are answered at once: none)" }),
    dgii_state: z.string().nullable().openapi({ description: "DGII's word for the case's state", example: "Aceptado" }),
    dgii_messages: z.array(z.object({ codigo: z.string(), valor: z.string() })).openapi({ description: "DGII's messages about the case" }),
    sent_at: z.string().nullable(),
    answered_at: z.string().nullable(),
    fields: z.array(z.object({ name: z.string(), value: z.string() })).openapi({
      description:
        "The row's XML elements in column order, as DGII gives them (`#e` and empty cells left out; `Campo[n]` of line n, `Campo[n][m]` entry m of its table)",
    }),
  })
  .openapi("CertificationTestCase");

export const TestSetRun = z
  .object({
    id: z.number().int(),
    number: z.number().int().openapi({ description: "1 for the set's first run, 2 for the next…" }),
    state: z
      .enum(TEST_RUN_STATES)
      .openapi({ description: "running; completed: every case accepted; stopped: a case was rejected (a new run starts the set over)" }),
    environment: z.string().openapi({ example: "certecf" }),
    started_by: z.number().int().nullable(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    stopped_at_case: z
      .object({ position: z.number().int(), name: z.string(), encf: z.string().nullable() })
      .nullable()
      .openapi({ description: "The case whose rejection stopped the run" }),
    stop_reason: z.string().nullable().openapi({ description: "Which case DGII rejected and why (its messages)" }),
    last_error: z.string().nullable().openapi({ description: "DGII could not be reached at the last attempt; the run tries again" }),
    progress: z.object({
      cases: z.number().int(),
      pending: z.number().int(),
      sent: z.number().int(),
      accepted: z.number().int(),
      rejected: z.number().int(),
    }),
  })
  .openapi("CertificationTestSetRun");

export const TestSet = TestSetSummary.extend({
  run: TestSetRun.nullable().openapi({ description: "The set's latest run, null before the first" }),
  cases: z.array(TestCaseView),
}).openapi("CertificationTestSet");

export const TestSetUpload = z
  .object({
    file: z
      .custom<File>((value) => value instanceof File && value.size > 0, "DGII's .xlsx is required in field `file`.")
      .openapi({ type: "string", format: "binary", description: "DGII's test set, the .xlsx as DGII gives it (at most 1 MiB)" }),
  })
  .openapi("CertificationTestSetUpload");

// ---- Steps 7-11: the receiver check (receiver-check.ts)

export const ReceiverCheckStep = z
  .object({
    name: z.enum(["seed", "certificate", "reception", "commercial_approval"]),
    url: z.string(),
    outcome: z.enum(["ok", "failed", "skipped"]),
    status: z.number().int().nullable().openapi({ description: "The HTTP status the receiver answered; null when not reached or skipped" }),
    answer: z.string().nullable().openapi({ description: "What the receiver answered (its first 2,000 characters)" }),
    detail: z.string().openapi({ description: "What was expected and why the step passed or failed" }),
  })
  .openapi("ReceiverCheckStep");

export const ReceiverCheck = z
  .object({
    receiver_url: z.string().openapi({ description: "The base URL checked (e-CF settings' receiver_url, else the tenant's own host)" }),
    via: z.enum(["in_process", "network"]).openapi({
      description: "in_process: a host of this deployment, called through the Worker's own handler (not over the Internet); network: any other host",
    }),
    ok: z.boolean(),
    steps: z.array(ReceiverCheckStep),
    proves: z.string().openapi({ description: "What a passing check shows, and what it cannot" }),
    checked_at: z.string(),
  })
  .openapi("ReceiverCheck");

export const CaseParams = z.object({ id: idParam("id", 7), position: idParam("position", 5) });

export const CaseXmlQuery = z.object({
  part: z.enum(["document", "summary"]).default("document").openapi({
    description: "document: the case's signed document (an E32 sent as its summary: the whole E32, for the OFV); summary: the signed RFCE sent for it",
  }),
});

import { z } from "@hono/zod-openapi";
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

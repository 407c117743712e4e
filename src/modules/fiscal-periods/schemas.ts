import { z } from "@hono/zod-openapi";
import { PERIOD_TEXT } from "../reports/schemas";

const period = (description: string) =>
  z.string().regex(PERIOD_TEXT, "Must be a period YYYYMM (for example 202610).").openapi({ example: "202610", description });

export const PeriodParam = z.object({ period: period("The month, YYYYMM") });

export const FiscalPeriodsQuery = z
  .object({
    from: period("The first month listed: on or before `to`, at most 35 months before it (default: 11 months before `to`)").optional(),
    to: period("The last month listed (default: the current month, Dominican time)").optional(),
  })
  .strict();
export type FiscalPeriodsQuery = z.output<typeof FiscalPeriodsQuery>;

export const ReopenBody = z
  .object({
    reason: z.string().trim().min(3).max(500).openapi({ description: "Why the filed month is re-opened (recorded with who and when)" }),
  })
  .strict();

export const SnapshotQuery = z
  .object({
    report: z
      .enum(["606", "607", "607-ecf", "608", "it1", "ir17"])
      .openapi({ description: "`607-ecf`: the 607 with include_ecf=true; it1 and ir17 in JSON only" }),
    format: z.enum(["txt", "json"]).default("txt"),
    version: z.coerce.number().int().min(1).max(10_000).optional().openapi({ description: "The close's version; default the latest" }),
  })
  .strict();
export type SnapshotQuery = z.output<typeof SnapshotQuery>;

const Person = z.object({ id: z.number().int(), name: z.string() }).openapi("FiscalPeriodPerson");

const Snapshot = z
  .object({
    report: z.string().openapi({ description: "606, 607, 607-ecf (include_ecf=true), 608" }),
    format: z.enum(["txt", "json"]),
    sha256: z.string().openapi({ description: "SHA-256 of the bytes kept, hex" }),
    bytes: z.number().int(),
  })
  .openapi("FiscalPeriodSnapshot");

const Close = z
  .object({
    version: z.number().int(),
    closed_at: z.string(),
    closed_by: Person,
    reopened_at: z.string().nullable(),
    reopened_by: Person.nullable(),
    reopen_reason: z.string().nullable(),
    snapshots: z.array(Snapshot),
  })
  .openapi("FiscalPeriodClose");

export const FiscalPeriod = z
  .object({
    period: z.string(),
    status: z.enum(["open", "closed"]),
    closed_at: z.string().nullable().openapi({ description: "When the standing close was made (null when open)" }),
    closed_by: Person.nullable(),
    deadlines: z
      .object({
        ir17: z.string().openapi({ description: "IR-17 and the ISR withheld: the 10th of the next month" }),
        formats_606_607_608: z.string().openapi({ description: "606, 607 and 608: the 15th of the next month (Norma General 07-2018)" }),
        it1: z.string().openapi({ description: "IT-1 with its Anexo A and the ITBIS withheld: the 20th of the next month" }),
        note: z.string(),
      })
      .openapi({ description: "DGII's due dates; when one falls on a weekend or holiday DGII moves it to the next business day: the accountant confirms" }),
    closes: z.array(Close).openapi({ description: "Every close of the month, the latest first, with what each one kept" }),
  })
  .openapi("FiscalPeriod");
export type FiscalPeriod = z.output<typeof FiscalPeriod>;

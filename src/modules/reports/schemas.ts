import { z } from "@hono/zod-openapi";
import { dateInput, idQuery } from "../../lib/bounds";
import { Big } from "../../lib/decimal";

/** YYYYMM, as DGII writes the period in the header of its formats ("Periodo", año/mes). */
export const PERIOD_TEXT = /^\d{4}(0[1-9]|1[0-2])$/;

/** A period from May 2018 (201805) on, as a pattern: the one the document states. */
const REPORT_PERIOD_PATTERN = "^(?:2018(?:0[5-9]|1[0-2])|(?:2019|20[2-9]\\d|2[1-9]\\d{2}|[3-9]\\d{3})(?:0[1-9]|1[0-2]))$";

export const ReportQuery = z
  .object({
    period: z.string().regex(PERIOD_TEXT, "Must be a period YYYYMM (for example 202610).").openapi({
      example: "202610",
      description: "The month reported, YYYYMM: a past month or the current one (Dominican time), from 201805 (Norma General 07-2018)",
      // The document states the lower bound the service checks (service.ts FIRST_PERIOD): 201805 or later.
      pattern: REPORT_PERIOD_PATTERN,
    }),
    format: z.enum(["txt", "json"]).default("txt").openapi({ description: "`txt`: DGII's file; `json`: the same rows, for spreadsheets and checks" }),
    workspace_id: idQuery().openapi({
      description: "Only this workspace's documents (one of this company's), to review a branch; DGII's file is always the whole company (omit it)",
    }),
  })
  .strict();
export type ReportQuery = z.output<typeof ReportQuery>;

/** The JSON of a report: the header's fields, and each row's fields as the TXT writes them. */
const reportJson = <T extends z.ZodRawShape, S extends z.ZodRawShape = Record<never, never>>(format: string, row: T, summary: S = {} as S) =>
  z
    .object({
      format: z.literal(format),
      rnc: z.string(),
      period: z.string(),
      count: z.number().int(),
      ...summary,
      rows: z.array(z.object(row)),
    })
    .openapi(`Report${format}`);

const text = z.string();

/** Formato 606's columns in DGII's order (docs/reports.md, "606"). Every value is the TXT's text. */
export const Row606 = {
  supplier_id: text,
  supplier_id_type: text,
  expense_type: text,
  ncf: text,
  modified_ncf: text,
  issue_date: text,
  payment_date: text,
  services_amount: text,
  goods_amount: text,
  total_amount: text,
  itbis_invoiced: text,
  itbis_withheld: text,
  itbis_proportionality: text,
  itbis_to_cost: text,
  itbis_to_advance: text,
  itbis_perceived: text,
  isr_withholding_type: text,
  isr_withheld: text,
  isr_perceived: text,
  isc: text,
  other_taxes: text,
  legal_tip: text,
  payment_form: text,
};
export type Row606 = { [K in keyof typeof Row606]: string };

/** Formato 608's columns in DGII's order. */
export const Row608 = { ncf: text, date: text, annulment_type: text };
export type Row608 = { [K in keyof typeof Row608]: string };

/** The 607's amounts by payment form (its last seven columns, and the consumer summary's). */
const paymentForms607 = {
  cash: text,
  bank: text,
  card: text,
  on_credit: text,
  gift_vouchers: text,
  barter: text,
  other_forms: text,
};

/** Formato 607's columns in DGII's order (docs/reports.md, "607"). Every value is the TXT's text. */
export const Row607 = {
  buyer_id: text,
  buyer_id_type: text,
  ncf: text,
  modified_ncf: text,
  income_type: text,
  issue_date: text,
  withholding_date: text,
  amount: text,
  itbis_invoiced: text,
  itbis_withheld: text,
  itbis_perceived: text,
  isr_withheld: text,
  isr_perceived: text,
  isc: text,
  other_taxes: text,
  legal_tip: text,
  ...paymentForms607,
};
export type Row607 = { [K in keyof typeof Row607]: string };

/** The 607's query: the reports' one, and whether e-CF are included (docs/reports.md, "include_ecf"). */
export const Report607Query = ReportQuery.extend({
  include_ecf: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true")
    .openapi({ description: "Include e-CF (E31, E32, …): DGII receives each one already; `false` by default" }),
}).strict();
export type Report607Query = z.output<typeof Report607Query>;

export const Report606 = reportJson("606", Row606);
/**
 * The 607's consumer invoices under RD$250,000 (B02; E32 with include_ecf), not rows of the file:
 * their number and totals in DOP, as the Oficina Virtual asks for them when the 607 is sent.
 */
export const ConsumerSummary607 = z
  .object({
    count: text,
    amount: text,
    itbis_invoiced: text,
    isc: text,
    other_taxes: text,
    legal_tip: text,
    ...paymentForms607,
  })
  .openapi("ConsumerSummary607");
export type ConsumerSummary607 = z.output<typeof ConsumerSummary607>;

export const Report607 = reportJson("607", Row607, { consumer_summary: ConsumerSummary607 });
export type Report607 = z.output<typeof Report607>;
export const Report608 = reportJson("608", Row608);
export type Report606 = z.output<typeof Report606>;
export type Report608 = z.output<typeof Report608>;

/** The longest range of one sales summary: a year and a day (a leap year from any day). */
export const SUMMARY_MAX_DAYS = 366;

export const SalesSummaryQuery = z
  .object({
    from: dateInput().openapi({ description: "First issue date included (YYYY-MM-DD)" }),
    to: dateInput().openapi({ description: `Last issue date included; at most ${SUMMARY_MAX_DAYS} days after from` }),
    group_by: z
      .enum(["workspace", "document_type", "day"])
      .openapi({ description: "One group per workspace, per NCF type (B01, E31, B04…) or per issue date" }),
    workspace_id: idQuery().openapi({
      description:
        "Only this workspace, one of this company's (422 otherwise). Without view_all_locations only the request's workspace may be summarized (its default)",
    }),
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.from > query.to) ctx.addIssue({ code: "custom", path: ["to"], message: "Must be on or after from." });
    else if ((Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 >= SUMMARY_MAX_DAYS)
      ctx.addIssue({ code: "custom", path: ["to"], message: `The range may span at most ${SUMMARY_MAX_DAYS} days.` });
  });
export type SalesSummaryQuery = z.output<typeof SalesSummaryQuery>;

const money = z.string().openapi({ description: "DOP, two decimals", example: "1180.00" });
const SummaryTotals = {
  count: z.number().int().openapi({ description: "Documents: invoices and notes" }),
  subtotal: money,
  discounts: money,
  itbis: z
    .array(z.object({ rate: z.string().openapi({ example: "18.00" }), base: money, amount: money }))
    .openapi({ description: "ITBIS by rate: the taxed base and the tax" }),
  exempt_base: money,
  isc: money,
  other_taxes: money,
  legal_tip: money,
  total: money,
  paid: money,
  due: money,
};
export const SalesSummary = z
  .object({
    from: z.string(),
    to: z.string(),
    group_by: z.enum(["workspace", "document_type", "day"]),
    currency: z.literal("DOP"),
    groups: z.array(
      z.object({
        key: z.string().openapi({ description: "The workspace id, the NCF type (B01, E31, B04…) or the day (YYYY-MM-DD)" }),
        label: z.string().openapi({ description: "The workspace's name, the NCF type's name, or the day" }),
        ...SummaryTotals,
      }),
    ),
    totals: z.object(SummaryTotals),
  })
  .openapi("SalesSummary");
export type SalesSummary = z.output<typeof SalesSummary>;

/** An amount the accountant gives (DOP, up to two decimals, not negative). */
const amountInput = (description: string) =>
  z
    .string()
    .regex(/^\d{1,12}(\.\d{1,2})?$/, "Must be an amount in DOP, such as 1500.00.")
    .optional()
    .openapi({ description: `${description}; 0.00 when not given` });

/** One of the IT-1's or the IR-17's unconfirmed readings: its values, and the default the code always had. */
const reading = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number], description: string) =>
  z.enum(values).default(fallback).openapi({ description });

/**
 * The IT-1's readings ../shared/MONTHLY-CLOSE.md §7 leaves unconfirmed, each a choice of the request
 * whose default is the reading Sucursal always applied (docs/reports.md, "Our readings"). Declared
 * once: the query's parameters, their check, the JSON's `readings` and the OpenAPI document.
 */
export const It1Readings = z
  .object({
    credit_notes_in_count: reading(
      ["subtract", "count"],
      "subtract",
      "Anexo A 11's count (MONTHLY-CLOSE §7 [S5][S4]): `subtract` (default), the credit notes (4) subtract from the count like from the amount; `count`, they count as documents (1+2+…+8, every document one)",
    ),
    credit_notes_in_income_types: reading(
      ["subtract", "leave_out"],
      "subtract",
      "Anexo A IV, 20-25 (MONTHLY-CLOSE §7 [S4][S5]): `subtract` (default), a credit note subtracts from its invoice's type of income, so 26 = 11 without 9 and 10; `leave_out`, notes are left out of IV (26 ≠ 11)",
    ),
    coefficient_rounding: reading(
      ["two_decimals", "unrounded"],
      "two_decimals",
      "Anexo A 54, the proportionality coefficient (MONTHLY-CLOSE §2, §7): `two_decimals` (default), a percentage half-up to two decimals before 55 = 53 × 54; `unrounded`, 55 from the unrounded ratio (54 shown to ten decimals); 55 half-up to the cent in both",
    ),
    state_withholding_casilla: reading(
      ["31", "29"],
      "31",
      "Anexo A V, the ITBIS withheld by State buyers (607 column 10 of 15/45 documents; MONTHLY-CLOSE §2, §7): `31` (default), crédito por retención de entidades del Estado; `29`, with every other buyer's withholding (otras retenciones)",
    ),
  })
  .openapi("It1Readings");
export type It1Readings = z.output<typeof It1Readings>;
/** The readings of a request that names none: those of an IT-1 a close keeps. */
export const IT1_READING_DEFAULTS: It1Readings = It1Readings.parse({});

/** The IT-1's query: the period, and what the books cannot know, each named by its casilla (docs/reports.md, "IT-1"). */
export const It1Query = z
  .object({
    period: ReportQuery.shape.period,
    format: z.enum(["json", "pdf"]).default("json").openapi({
      description: "`json`: every casilla with where it comes from; `pdf`: the IT-1 and its Anexo A laid out like DGII's form, to key into the Oficina Virtual",
    }),
    deductible_as: z.enum(["goods", "services", "exports"]).default("goods").openapi({
      description:
        "Where the deductible ITBIS paid goes in Anexo A IX, after what the company sells: 50 (bienes gravados), 51 (servicios gravados) or 49 (bienes exportados)",
    }),
    ...It1Readings.shape,
    anexo_a_9: amountInput("Anexo A 9, otras operaciones (positivas)"),
    anexo_a_10: amountInput("Anexo A 10, otras operaciones (negativas)"),
    anexo_a_27: amountInput("Anexo A 27, ITBIS withheld by the card processors (Norma 08-04), from the bank statements"),
    anexo_a_28: amountInput("Anexo A 28, pasajes aéreos (BSP-IATA)"),
    anexo_a_30: amountInput("Anexo A 30, paquetes de alojamiento"),
    anexo_a_34_invoiced: amountInput("Anexo A 34, dirección técnica (Norma 07-07): total facturado"),
    anexo_a_34_taxable: amountInput("Anexo A 34, dirección técnica: monto sujeto a ITBIS, at most anexo_a_34_invoiced"),
    anexo_a_35_invoiced: amountInput("Anexo A 35, contrato de administración (Norma 07-07): total facturado"),
    anexo_a_35_taxable: amountInput("Anexo A 35, contrato de administración: monto sujeto a ITBIS, at most anexo_a_35_invoiced"),
    anexo_a_36_taxable: amountInput(
      "Anexo A 36, asesorías / honorarios of a constructor: monto sujeto a ITBIS (the form has no total facturado for it); 34 + 35 + 36 at most 34 + 35 invoiced",
    ),
    anexo_a_39_invoiced: amountInput("Anexo A 39, ventas de bienes por comisión: total facturado"),
    anexo_a_39_taxable: amountInput("Anexo A 39, ventas de bienes por comisión: monto sujeto a ITBIS (the commission), at most anexo_a_39_invoiced"),
    anexo_a_40_invoiced: amountInput("Anexo A 40, ventas de servicios en nombre de terceros: total facturado"),
    anexo_a_40_taxable: amountInput("Anexo A 40, ventas de servicios en nombre de terceros: monto sujeto a ITBIS, at most anexo_a_40_invoiced"),
    anexo_a_56c: amountInput("Anexo A 56 C, ITBIS deductible paid on imports (the DUA)"),
    it1_28: amountInput("IT-1 28, saldos compensables autorizados y/o reembolsos"),
    it1_29: amountInput("IT-1 29, saldo a favor anterior (last month's casilla 34 as filed)"),
    it1_31: amountInput("IT-1 31, otros pagos computables a cuenta"),
    it1_32: amountInput("IT-1 32, compensaciones y/o reembolsos autorizados"),
    it1_35: amountInput("IT-1 35, recargos"),
    it1_36: amountInput("IT-1 36, interés indemnizatorio"),
    it1_37: amountInput("IT-1 37, sanciones"),
    it1_61: amountInput("IT-1 61, pagos computables a cuenta of the ITBIS withheld"),
    it1_64: amountInput("IT-1 64, recargos of the ITBIS withheld"),
    it1_65: amountInput("IT-1 65, interés indemnizatorio of the ITBIS withheld"),
    it1_66: amountInput("IT-1 66, sanciones of the ITBIS withheld"),
  })
  .strict()
  .superRefine((query, ctx) => {
    // Anexo A VI and VII: what is subject to ITBIS is part of what was invoiced (38 and 42, their difference, are not negative).
    const amount = (value: string | undefined) => new Big(value ?? "0");
    const over = (["34", "35", "39", "40"] as const).filter((casilla) =>
      amount(query[`anexo_a_${casilla}_taxable`]).gt(amount(query[`anexo_a_${casilla}_invoiced`])),
    );
    for (const casilla of over) {
      ctx.addIssue({ code: "custom", path: [`anexo_a_${casilla}_taxable`], message: `Must not exceed anexo_a_${casilla}_invoiced.` });
    }
    // 37 as a whole, once its parts are each within their invoiced amount: 36 has no total of its own.
    if (over.length) return;
    const taxable = amount(query.anexo_a_34_taxable).plus(amount(query.anexo_a_35_taxable)).plus(amount(query.anexo_a_36_taxable));
    if (taxable.gt(amount(query.anexo_a_34_invoiced).plus(amount(query.anexo_a_35_invoiced))))
      ctx.addIssue({
        code: "custom",
        path: ["anexo_a_36_taxable"],
        message: "Anexo A 37: the amounts subject to ITBIS (34 + 35 + 36) must not exceed the total invoiced (34 + 35).",
      });
  });
export type It1Query = z.output<typeof It1Query>;

const CasillaJson = z
  .object({
    casilla: z.string().openapi({ description: "DGII's number of the casilla" }),
    name: z.string().openapi({ description: "DGII's name of the casilla" }),
    total_invoiced: z.string().optional().openapi({
      description:
        "Anexo A VI and VII (34-35, 37, 39-41): the form's «total facturado» column, DOP, two decimals; `amount` is then its «monto» (sujeto a ITBIS)",
    }),
    amount: z.string().nullable().openapi({ description: "DOP, two decimals; null where Sucursal cannot compute the figure (`reason` says why)" }),
    count: z.number().int().optional().openapi({ description: "Documents, where the form counts them" }),
    from: z.enum(["books", "input", "formula", "accountant"]).openapi({
      description:
        "`books`: computed from the period's documents; `input`: given in the request; `formula`: the form's arithmetic; `accountant`: not known to Sucursal, null with its `reason`",
    }),
    reason: z.string().optional().openapi({ description: "Why `amount` is null: what Sucursal does not record, and where the figure is counted instead" }),
  })
  .openapi("Casilla");

export const It1Json = z
  .object({
    form: z.literal("IT-1"),
    edition: z.string(),
    rnc: z.string(),
    legal_name: z.string().nullable().optional().openapi({
      description:
        "Anexo A renglón I, razón social: the company profile's legal name when the IT-1 was computed (a closed period's: at its close); absent from an IT-1 kept by a close made before it was kept",
    }),
    period: z.string(),
    readings: It1Readings.optional().openapi({
      description:
        "The unconfirmed readings the IT-1 was computed with (the query's, or the defaults); absent from an IT-1 kept by a close made before they were parameters (the defaults then)",
    }),
    anexo_a: z.array(CasillaJson),
    itbis_paid: z.array(
      z.object({
        casilla: z.string(),
        name: z.string(),
        a: z.string().nullable().openapi({ description: "Column A, compras locales: DOP, two decimals; null where Sucursal cannot compute the figure" }),
        b: z.string().nullable().openapi({ description: "Column B, servicios" }),
        c: z.string().nullable().openapi({ description: "Column C, importaciones" }),
        d: z.string().nullable().openapi({ description: "Column D, total (A+B+C)" }),
        from: CasillaJson.shape.from,
        reason: CasillaJson.shape.reason,
      }),
    ),
    it1: z.array(CasillaJson),
    section_a: z.array(CasillaJson),
    checks: z.array(z.object({ rule: z.string(), expected: z.string(), actual: z.string(), difference: z.string() })),
    left_to_accountant: z.array(z.string()),
  })
  .openapi("It1");

/**
 * The IR-17's two unconfirmed readings (../shared/MONTHLY-CLOSE.md §5, §7), the accountant's to
 * choose; each default is the reading the report had before it was a choice (docs/reports.md, "IR-17").
 */
export const Ir17Readings = z
  .object({
    casilla_11_rate: reading(
      ["10", "5"],
      "10",
      "Rate of casilla 11 (intereses pagados por entidades no financieras a personas físicas residentes; 606 code 06), percent: `10` per the 2026 implementation [S8] (default), `5` per the 2025 one [S10]. Unconfirmed: MONTHLY-CLOSE §5, §7",
    ),
    code_03_casilla: reading(
      ["16", "17"],
      "16",
      "Casilla of 606 code 03 (otras rentas): `16`, Ley 11-92 Art. 309, at its rate (10 %, 15 % from July 2026) per [S8] (default); `17`, Decreto 139-98 Art. 70, at casilla 17's rate (2 %, 3 % from July 2026) as an older implementation [S4]. Unconfirmed: MONTHLY-CLOSE §5, §7",
    ),
  })
  .openapi("Ir17Readings");
export type Ir17Readings = z.output<typeof Ir17Readings>;
/** The readings when the request gives none: the IR-17 a close keeps, and serves again byte for byte. */
export const IR17_READING_DEFAULTS: Ir17Readings = Ir17Readings.parse({});

/** The IR-17's query: the period, what the books cannot know, and the readings (docs/reports.md, "IR-17"). */
export const Ir17Query = z
  .object({
    period: ReportQuery.shape.period,
    treaty_withholdings: amountInput("Retenciones por convenios (anexo R9C): casilla 26 (2026-07 layout) or 23 (2025)"),
    fringe_benefits: amountInput("Retribuciones complementarias: casilla 28 (2026-07), 25 (2025), 22 (before)"),
    compensable_balances: amountInput("Saldos compensables autorizados: casilla 30 (2026-07), 27 (2025), 24 (before)"),
    payments_on_account: amountInput("Pagos computables a cuenta: casilla 31 (2026-07), 28 (2025), 25 (before)"),
    previous_balance: amountInput("Saldo a favor anterior: casilla 32 (2026-07), 29 (2025), 26 (before)"),
    surcharges: amountInput("Recargos: casilla 35 (2026-07), 32 (2025), 29 (before)"),
    interest: amountInput("Interés indemnizatorio: casilla 36 (2026-07), 33 (2025), 30 (before)"),
    ...Ir17Readings.shape,
  })
  .strict();
export type Ir17Query = z.output<typeof Ir17Query>;

export const Ir17Json = z
  .object({
    form: z.literal("IR-17"),
    layout: z.string(),
    rnc: z.string(),
    legal_name: z.string().nullable().optional().openapi({
      description:
        "Razón social beside the RNC: the company profile's legal name when the IR-17 was computed (a closed period's: at its close, like `rnc`); absent from an IR-17 kept by a close made before it was kept",
    }),
    period: z.string(),
    readings: Ir17Readings.optional().openapi({
      description:
        "The unconfirmed readings this IR-17 was computed with (the query's, or their defaults); absent from an IR-17 kept by a close made before they were kept",
    }),
    concepts: z.array(
      z.object({
        casilla: z.string(),
        name: z.string(),
        rate: z.string().openapi({ description: "The rate in force for the period's payments, percent" }),
        base: z.string(),
        amount: z.string().openapi({ description: "The form's figure: base × rate, half-up to the cent (the form applies the rate)" }),
        withheld: z.string().optional().openapi({
          description:
            "ISR withheld: Σ 606 column 18 (the checks show its difference from `amount`); absent from an IR-17 kept by a close made before it was kept",
        }),
        count: z.number().int(),
        from: z.enum(["books", "accountant"]),
      }),
    ),
    liquidation: z.array(z.object({ casilla: z.string(), name: z.string(), amount: z.string(), from: z.enum(["books", "input", "formula"]) })),
    checks: z.array(z.object({ rule: z.string(), expected: z.string(), actual: z.string(), difference: z.string() })),
    out_of_scope: z.string(),
  })
  .openapi("Ir17");

import { and, asc, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import { addDays, dominicanToday } from "../../lib/dates";
import { timestamp } from "../../lib/format";
import { recordEvent } from "../events/service";
import { enqueueEmail } from "../outbox/service";
import { openContingencies } from "./contingency";
import { ECF_ALERT_KINDS, type EcfEnvironment } from "./schemas";

/**
 * Deadlines watched (issue 33, "Deadlines watched"): what puts a tenant's e-CF at risk, found by
 * the hourly sweep (jobs/ecf-alerts.ts) and raised ONCE per cause — a row of `ecf_alerts`, unique
 * per tenant, kind and subject — as an email to the tenant's admins and the webhook event
 * `ecf.alert`; open alerts show on GET /api/v1/ecf/dgii-status, and an alert is resolved
 * (`resolved_at`) when the sweep no longer finds its cause, and sent as `ecf.alert_resolved`.
 *
 * Each kind is one producer: a function that reads, in the tenant's transaction, the causes present
 * now. A new kind is one entry of ALERT_PRODUCERS, one name in ALERT_KINDS, and its Spanish words
 * for the email.
 */

export const ALERT_KINDS = ECF_ALERT_KINDS;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** What a producer finds: one cause at risk now. */
export interface AlertCause {
  kind: AlertKind;
  /** Names the cause itself (its document, certificate, range and end, outage and start): the same cause raises once. */
  subject: string;
  /** The API's words (GET /ecf/dgii-status, the event). */
  message: string;
  details: Record<string, string | number | null>;
  /** The deadline or expiry the alert is about, when it has one. */
  dueAt: Date | null;
  /** The branch the cause belongs to (a document's), for the event's workspace filter; null: the company's. */
  workspaceId: number | null;
  /** The admins' email, in Spanish as the other emails. */
  email: { subject: string; text: string };
}

export interface AlertThresholds {
  /** A deferred e-CF not yet accepted this close to its 24-hour limit (ALERT_DEFERRED_HOURS_LEFT). */
  deferredHoursLeft: number;
  /** DGII's reception reported down this long (ALERT_DGII_DOWN_HOURS). */
  dgiiDownHours: number;
  /** How long a contingency may last before its e-CF must have reached DGII (CONTINGENCY_LIMIT_HOURS). */
  contingencyLimitHours: number;
  /** A contingency still open this close to that limit (ALERT_CONTINGENCY_HOURS_LEFT). */
  contingencyHoursLeft: number;
}

export interface AlertContext {
  tenantId: number;
  now: Date;
  thresholds: AlertThresholds;
  settings: typeof schema.ecfSettings.$inferSelect | undefined;
}

export type AlertProducer = (db: AnyDb, context: AlertContext) => Promise<AlertCause[]>;

const HOUR_MS = 3_600_000;
/** A certificate this close to its end (DGII refuses documents signed with an expired one). */
export const CERTIFICATE_WARNING_DAYS = 30;
/** A range with less than this share of its numbers left, or expiring within SEQUENCE_WARNING_DAYS. */
const SEQUENCE_LOW_SHARE = 0.1;
const SEQUENCE_WARNING_DAYS = 30;
/** The services whose outage stops e-CF from reaching DGII (Descripción técnica, "Estatus Servicios"). */
const RECEPTION_SERVICES = ["Recepción", "Recepción FC"];
/** A service state older than this is not trusted to say DGII is still down (the status sweep stopped). */
const STATUS_FRESH_MS = HOUR_MS;

const santoDomingo = (date: Date) => `${new Date(date.getTime() - 4 * HOUR_MS).toISOString().slice(0, 16).replace("T", " ")} (hora de Santo Domingo)`;
const hoursBetween = (from: Date, to: Date) => Math.max(0, Math.floor((to.getTime() - from.getTime()) / HOUR_MS));

/**
 * A deferred e-CF (IndicadorEnvioDiferido 1) must reach DGII within 24 hours of the sale (DGII's help
 * answer CA5197): one still pending, in process or failed within `deferredHoursLeft` of its deadline
 * (or past it) is at risk. DGII's final answer (accepted, rejected) or its annulment clears it.
 */
const deferredDeadlines: AlertProducer = async (db, { tenantId, now, thresholds }) => {
  const e = schema.ecfDocuments;
  const limit = new Date(now.getTime() + thresholds.deferredHoursLeft * HOUR_MS);
  const rows = await db
    .select({ id: e.id, encf: e.encf, status: e.status, deadline: e.deferredDeadline, workspaceId: e.workspaceId, invoiceId: e.invoiceId })
    .from(e)
    .where(
      and(
        eq(e.tenantId, tenantId),
        sql`${e.deferredDeadline} IS NOT NULL AND ${e.deferredDeadline} <= ${limit.toISOString()}::timestamptz`,
        sql`${e.status} IN ('pending', 'in_process', 'failed')`,
      ),
    )
    .orderBy(asc(e.deferredDeadline), asc(e.id));
  return rows.map((row) => {
    const deadline = row.deadline!;
    const left = deadline.getTime() - now.getTime();
    const when = left > 0 ? `${hoursBetween(now, deadline)} h left, until ${timestamp(deadline)}` : `its deadline passed at ${timestamp(deadline)}`;
    const cuando = left > 0 ? `vence el ${santoDomingo(deadline)}` : `venció el ${santoDomingo(deadline)}`;
    return {
      kind: "deferred_deadline" as const,
      subject: `ecf_document:${row.id}`,
      message: `The deferred e-CF ${row.encf} must reach DGII within 24 hours of the sale and is still ${row.status}: ${when}.`,
      details: { ecf_id: row.id, encf: row.encf, status: row.status, invoice_id: row.invoiceId, deadline: timestamp(deadline) },
      dueAt: deadline,
      workspaceId: row.workspaceId,
      email: {
        subject: `Alerta e-CF: ${row.encf} debe llegar a la DGII antes de 24 horas`,
        text: `El e-CF ${row.encf}, emitido sin conexión (envío diferido), debe llegar a la DGII dentro de las 24 horas de la venta; el plazo ${cuando} y la DGII aún no lo ha aceptado (estado: ${row.status}).\n`,
      },
    };
  });
};

/** DGII's reception (for the tenant's environment) reported down for `dgiiDownHours` or more, by the status sweep's fresh word. */
const dgiiDown: AlertProducer = async (db, { now, thresholds, settings }) => {
  if (!settings?.enabled) return [];
  const s = schema.dgiiServiceStatus;
  const downBefore = new Date(now.getTime() - thresholds.dgiiDownHours * HOUR_MS);
  const checkedAfter = new Date(now.getTime() - STATUS_FRESH_MS);
  const rows = await db
    .select()
    .from(s)
    .where(
      and(
        eq(s.environment, settings.environment),
        eq(s.available, false),
        sql`${s.service} IN (${sql.join(
          RECEPTION_SERVICES.map((name) => sql`${name}`),
          sql`, `,
        )})`,
        sql`${s.downSince} <= ${downBefore.toISOString()}::timestamptz AND ${s.checkedAt} >= ${checkedAfter.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(s.service));
  return rows.map((row) => {
    const since = row.downSince!;
    return {
      kind: "dgii_down" as const,
      subject: `${row.environment}:${row.service}:${since.toISOString()}`,
      message: `DGII reports ${row.service} (${row.environment}) ${row.status} since ${timestamp(since)} (${hoursBetween(since, now)} h): e-CF wait to be sent until it is back.`,
      details: { environment: row.environment as EcfEnvironment, service: row.service, status: row.status, down_since: timestamp(since) },
      dueAt: null,
      workspaceId: null,
      email: {
        subject: `Alerta e-CF: el servicio ${row.service} de la DGII lleva ${hoursBetween(since, now)} horas sin servicio`,
        text: `La DGII informa el servicio ${row.service} (${row.environment}) como "${row.status}" desde el ${santoDomingo(since)}. Los e-CF se siguen emitiendo y esperan en cola hasta que vuelva.\n`,
      },
    };
  });
};

/** The signing certificate expiring within 30 days (or expired): nothing can be signed after it. */
const certificateExpiring: AlertProducer = async (_db, { now, settings }) => {
  const notAfter = settings?.certificateNotAfter;
  if (!settings?.certificateEncrypted || !notAfter || !settings.certificateFingerprint) return [];
  if (notAfter.getTime() - now.getTime() > CERTIFICATE_WARNING_DAYS * 24 * HOUR_MS) return [];
  const days = Math.floor((notAfter.getTime() - now.getTime()) / (24 * HOUR_MS));
  return [
    {
      kind: "certificate_expiring",
      subject: settings.certificateFingerprint,
      message:
        days < 0
          ? `The e-CF signing certificate expired on ${timestamp(notAfter)}: upload a new one (PUT /api/v1/ecf/certificate).`
          : `The e-CF signing certificate expires in ${days} day(s), on ${timestamp(notAfter)}: upload its renewal (PUT /api/v1/ecf/certificate).`,
      details: { fingerprint_sha256: settings.certificateFingerprint, subject: settings.certificateSubject, not_after: timestamp(notAfter) },
      dueAt: notAfter,
      workspaceId: null,
      email: {
        subject: days < 0 ? "Alerta e-CF: el certificado de firma venció" : `Alerta e-CF: el certificado de firma vence en ${days} días`,
        text: `El certificado digital con que se firman los e-CF (${settings.certificateSubject}) vence el ${santoDomingo(notAfter)}. Sin un certificado vigente no se pueden emitir e-CF: cargue el nuevo antes de esa fecha.\n`,
      },
    },
  ];
};

interface RangeRow {
  id: number;
  name: string;
  prefix: string;
  start_number: number;
  end_number: number;
  next_number: number;
  valid_until: string | null;
}

/** The tenant's active fiscal ranges (B and E series; not the demo ones) with what is left of them. */
async function fiscalRanges(db: AnyDb, tenantId: number): Promise<RangeRow[]> {
  const d = schema.documentSubtypes;
  return rowsOf<RangeRow>(
    await db.execute(sql`
      SELECT ${d.id} AS id, ${d.name} AS name, ${d.prefix} AS prefix, ${d.startNumber}::float8 AS start_number, ${d.endNumber}::float8 AS end_number,
        ${d.nextNumber}::float8 AS next_number, ${d.validUntil}::text AS valid_until
      FROM ${d}
      WHERE ${d.tenantId} = ${tenantId} AND ${d.isActive} AND NOT ${d.isDemo} AND ${d.prefix} ~ '^[BE][0-9]{2}$'
      ORDER BY ${d.id}`),
  ).map((row) => ({ ...row, start_number: Number(row.start_number), end_number: Number(row.end_number), next_number: Number(row.next_number) }));
}

const rangeDetails = (row: RangeRow, left: number, total: number) => ({
  document_subtype_id: row.id,
  name: row.name,
  prefix: row.prefix,
  numbers_left: left,
  numbers_total: total,
  valid_until: row.valid_until,
});

const numbersOf = (row: RangeRow) => ({ left: Math.max(0, row.end_number - row.next_number + 1), total: row.end_number - row.start_number + 1 });

/** A range (NCF sequence DGII authorized) with less than 10 % of its numbers left: ask DGII for the next one in time. */
const sequencesLow: AlertProducer = async (db, { tenantId }) =>
  (await fiscalRanges(db, tenantId)).flatMap((row) => {
    const { left, total } = numbersOf(row);
    if (left >= total * SEQUENCE_LOW_SHARE) return [];
    return [
      {
        kind: "sequence_low" as const,
        // The range's end: a range extended or replaced is a new cause.
        subject: `document_subtype:${row.id}:${row.end_number}`,
        message: `The ${row.prefix} range "${row.name}" has ${left} of its ${total} numbers left: request the next range from DGII.`,
        details: rangeDetails(row, left, total),
        dueAt: null,
        workspaceId: null,
        email: {
          subject: `Alerta e-CF: a la secuencia ${row.prefix} le quedan ${left} números`,
          text: `A la secuencia ${row.prefix} "${row.name}" le quedan ${left} de sus ${total} números. Solicite a la DGII la próxima secuencia antes de que se agote.\n`,
        },
      },
    ];
  });

/** A range whose valid_until (FechaVencimientoSecuencia) falls within 30 days, with numbers still left. */
const sequencesExpiring: AlertProducer = async (db, { tenantId, now }) => {
  const limit = addDays(dominicanToday(now), SEQUENCE_WARNING_DAYS);
  return (await fiscalRanges(db, tenantId)).flatMap((row) => {
    const { left, total } = numbersOf(row);
    if (!row.valid_until || row.valid_until > limit || left === 0) return [];
    const expired = row.valid_until < dominicanToday(now);
    return [
      {
        kind: "sequence_expiring" as const,
        subject: `document_subtype:${row.id}:${row.valid_until}`,
        message: expired
          ? `The ${row.prefix} range "${row.name}" expired on ${row.valid_until}: its ${left} numbers left can no longer be used.`
          : `The ${row.prefix} range "${row.name}" expires on ${row.valid_until} with ${left} numbers left: request the next range from DGII.`,
        details: rangeDetails(row, left, total),
        dueAt: new Date(`${row.valid_until}T23:59:59-04:00`),
        workspaceId: null,
        email: {
          subject: `Alerta e-CF: la secuencia ${row.prefix} vence el ${row.valid_until}`,
          text: `La secuencia ${row.prefix} "${row.name}" vence el ${row.valid_until} y le quedan ${left} números. Solicite a la DGII la próxima secuencia antes de esa fecha.\n`,
        },
      },
    ];
  });
};

/**
 * A contingency still open near its limit. DGII's own texts give no period within which a
 * contingency's e-CF must reach it; third-party summaries of DGII's Informe Técnico speak of 72
 * hours (CERTIFICATION.md, "Contingency": unconfirmed), so the limit is configuration
 * (CONTINGENCY_LIMIT_HOURS) and the alert comes `contingencyHoursLeft` before it. Closing the
 * contingency (DELETE, or DGII's reception back for a total one) clears it.
 */
const contingencyLimits: AlertProducer = async (db, { tenantId, now, thresholds }) => {
  const open = await openContingencies(db, tenantId);
  return open.flatMap((contingency) => {
    const deadline = new Date(contingency.openedAt.getTime() + thresholds.contingencyLimitHours * HOUR_MS);
    if (deadline.getTime() - now.getTime() > thresholds.contingencyHoursLeft * HOUR_MS) return [];
    const left = deadline.getTime() - now.getTime();
    const scope = contingency.workspaceIds ? `branches ${contingency.workspaceIds.join(", ")}` : "every branch";
    const alcance = contingency.workspaceIds ? `las sucursales ${contingency.workspaceIds.join(", ")}` : "todas las sucursales";
    const when =
      left > 0
        ? `${hoursBetween(now, deadline)} h left of its ${thresholds.contingencyLimitHours} h, until ${timestamp(deadline)}`
        : `its ${thresholds.contingencyLimitHours} h passed at ${timestamp(deadline)}`;
    return [
      {
        kind: "contingency_limit" as const,
        subject: `ecf_contingency:${contingency.id}`,
        message: `The contingency opened at ${timestamp(contingency.openedAt)} for ${scope} is still open: ${when}. Close it (DELETE /api/v1/ecf/contingency/${contingency.id}) once the branches are back, so their e-CF reach DGII.`,
        details: {
          contingency_id: contingency.id,
          workspace_ids: contingency.workspaceIds ? contingency.workspaceIds.join(",") : null,
          opened_at: timestamp(contingency.openedAt),
          deadline: timestamp(deadline),
        },
        dueAt: deadline,
        workspaceId: contingency.workspaceIds?.length === 1 ? contingency.workspaceIds[0]! : null,
        email: {
          subject: `Alerta e-CF: la contingencia abierta el ${santoDomingo(contingency.openedAt)} se acerca a su límite`,
          text: `La contingencia de ${alcance}, abierta el ${santoDomingo(contingency.openedAt)} (motivo: ${contingency.reason}), sigue abierta; su plazo de ${thresholds.contingencyLimitHours} horas ${left > 0 ? "vence" : "venció"} el ${santoDomingo(deadline)}. Ciérrela en cuanto las sucursales vuelvan a estar en línea, para que sus e-CF lleguen a la DGII.\n`,
        },
      },
    ];
  });
};

/** Every kind and its producer: a new kind of alert is one more entry. */
export const ALERT_PRODUCERS: Record<AlertKind, AlertProducer> = {
  deferred_deadline: deferredDeadlines,
  dgii_down: dgiiDown,
  certificate_expiring: certificateExpiring,
  sequence_low: sequencesLow,
  sequence_expiring: sequencesExpiring,
  contingency_limit: contingencyLimits,
};

const a = schema.ecfAlerts;
type AlertRow = typeof a.$inferSelect;

/** An alert as GET /ecf/dgii-status lists it and `ecf.alert` carries it. */
export function serializeAlert(row: AlertRow) {
  return {
    id: row.id,
    kind: row.kind as AlertKind,
    subject: row.subject,
    message: row.message,
    details: row.details as Record<string, string | number | null>,
    due_at: timestamp(row.dueAt),
    raised_at: timestamp(row.raisedAt),
    resolved_at: timestamp(row.resolvedAt),
  };
}

/** The tenant's admins: active users whose role in some branch manages e-CF (Administrador does). */
async function adminEmails(db: AnyDb, tenantId: number): Promise<{ name: string; email: string }[]> {
  return rowsOf<{ name: string; email: string }>(
    await db.execute(sql`
      SELECT DISTINCT ON (lower(u.email)) u.name, u.email
      FROM users u
      JOIN workspace_members m ON m.user_id = u.id AND m.tenant_id = u.tenant_id
      JOIN roles r ON r.id = m.role_id
      WHERE u.tenant_id = ${tenantId} AND u.deactivated_at IS NULL AND 'ecf:manage' = ANY(r.permissions)
      ORDER BY lower(u.email)`),
  );
}

export interface AlertSweepResult {
  raised: AlertRow[];
  resolved: number;
  outboxIds: number[];
  webhookDeliveryIds: number[];
}

/**
 * One tenant's sweep, in its transaction: every producer's causes now; a cause without its row is
 * raised (the unique key makes a second sweep, or a concurrent one, raise nothing), with an email to
 * each admin and the `ecf.alert` event; an open alert whose cause is gone is resolved. A cause
 * resolved once stays so (its row is kept): the same cause never raises twice.
 */
export async function sweepTenantAlerts(db: AnyDb, tenantId: number, now: Date, thresholds: AlertThresholds, appUrl: string): Promise<AlertSweepResult> {
  const [settings] = await db.select().from(schema.ecfSettings).where(eq(schema.ecfSettings.tenantId, tenantId));
  const context: AlertContext = { tenantId, now, thresholds, settings };
  const causes = (await Promise.all(ALERT_KINDS.map((kind) => ALERT_PRODUCERS[kind](db, context)))).flat();

  const raised: AlertRow[] = [];
  const outboxIds: number[] = [];
  const webhookDeliveryIds: number[] = [];
  let admins: { name: string; email: string }[] | undefined;
  for (const cause of causes) {
    const [row] = await db
      .insert(a)
      .values({ tenantId, kind: cause.kind, subject: cause.subject, message: cause.message, details: cause.details, dueAt: cause.dueAt, raisedAt: now })
      .onConflictDoNothing({ target: [a.tenantId, a.kind, a.subject] })
      .returning();
    if (!row) continue;
    raised.push(row);
    admins ??= await adminEmails(db, tenantId);
    for (const admin of admins) {
      outboxIds.push(
        await enqueueEmail(db, tenantId, {
          template: "ecf_alert",
          to: admin.email,
          subject: cause.email.subject,
          text: `Hola ${admin.name},\n\n${cause.email.text}\nVea las alertas abiertas en ${appUrl}/ecf/dgii-status\n`,
        }),
      );
    }
    const data = serializeAlert(row);
    webhookDeliveryIds.push(...(await recordEvent(db, tenantId, "ecf.alert", cause.workspaceId, async () => data)));
  }

  const present = new Set(causes.map((cause) => `${cause.kind}\u0000${cause.subject}`));
  const open = await db
    .select({ id: a.id, kind: a.kind, subject: a.subject })
    .from(a)
    .where(and(eq(a.tenantId, tenantId), isNull(a.resolvedAt)));
  const gone = open.filter((row) => !present.has(`${row.kind}\u0000${row.subject}`)).map((row) => row.id);
  if (gone.length) {
    // Each resolution is its own signed event (issue 43), to the branch the alert was sent to: an
    // integrator's dashboard clears without polling.
    const resolved = await db
      .update(a)
      .set({ resolvedAt: now })
      .where(
        and(
          eq(a.tenantId, tenantId),
          sql`${a.id} IN (${sql.join(
            gone.map((id) => sql`${id}`),
            sql`, `,
          )})`,
        ),
      )
      .returning({
        ...getTableColumns(a),
        workspaceId: sql<number | null>`(SELECT d.workspace_id FROM ecf_documents d
          WHERE ${a.kind} = 'deferred_deadline' AND d.tenant_id = ${a.tenantId} AND d.id = (${a.details} ->> 'ecf_id')::int)`,
      });
    for (const { workspaceId, ...row } of resolved.sort((x, y) => x.id - y.id)) {
      const data = serializeAlert(row);
      webhookDeliveryIds.push(...(await recordEvent(db, tenantId, "ecf.alert_resolved", workspaceId, async () => data)));
    }
  }
  return { raised, resolved: gone.length, outboxIds, webhookDeliveryIds };
}

/** The tenant's open alerts, oldest first (GET /ecf/dgii-status). */
export async function openAlerts(db: AnyDb, tenantId: number) {
  const rows = await db
    .select()
    .from(a)
    .where(and(eq(a.tenantId, tenantId), isNull(a.resolvedAt)))
    .orderBy(asc(a.raisedAt), asc(a.id));
  return rows.map(serializeAlert);
}

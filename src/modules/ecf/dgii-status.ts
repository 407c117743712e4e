import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import { timestamp } from "../../lib/format";
import { openAlerts } from "./alerts";
import { boundedText, DgiiUnavailable } from "./dgii";
import type { EcfEnvironment } from "./schemas";

/**
 * DGII's own word on its services (Descripción técnica, "Estatus Servicios",
 * https://statusecf.dgii.gov.do): `obtenerestatus` lists each service per environment as
 * "Disponible" or not, `obtenerventanasmantenimiento` the maintenance windows (days dd-MM-yyyy,
 * hours "1:00 PM" in Santo Domingo time, UTC-4 all year). Both need the API key DGII gives. The
 * minute sweep keeps them (jobs/dgii-status.ts); sending pauses through a window or while
 * reception is reported down (jobs/ecf.ts), and GET /api/v1/ecf/dgii-status shows them (issue 33).
 */

const status = schema.dgiiServiceStatus;
/** DGII's name of its e-CF reception service: the one whose return closes a total contingency. */
const RECEPTION = "Recepción";
const windows = schema.dgiiMaintenanceWindows;

/** DGII's names of its environments in these services. */
const ENVIRONMENTS: Record<string, EcfEnvironment> = { precertificacion: "testecf", certificacion: "certecf", produccion: "ecf" };

const environmentOf = (ambiente: unknown): EcfEnvironment | undefined =>
  typeof ambiente === "string"
    ? ENVIRONMENTS[
        ambiente
          .normalize("NFD")
          .replace(/[\u0300-\u036f]/g, "")
          .replace(/\s+/g, "")
          .toLowerCase()
      ]
    : undefined;

export interface ServiceState {
  environment: EcfEnvironment;
  service: string;
  available: boolean;
  status: string;
}

export interface MaintenanceWindow {
  environment: EcfEnvironment;
  startsAt: Date;
  endsAt: Date;
}

/** A status answer is a short list; a window list a few hundred days at most. */
const STATUS_ANSWER_BYTES = 64 * 1024;

/** The services DGII lists, per environment ("Disponible" is the only available state). */
export function parseServiceStates(answer: unknown): ServiceState[] {
  if (!Array.isArray(answer)) return [];
  const states: ServiceState[] = [];
  for (const entry of answer as Record<string, unknown>[]) {
    const environment = environmentOf(entry?.ambiente);
    if (!environment || typeof entry.servicio !== "string" || typeof entry.estatus !== "string") continue;
    states.push({
      environment,
      service: entry.servicio.slice(0, 100),
      available: entry.estatus.trim().toLowerCase() === "disponible",
      status: entry.estatus.slice(0, 100),
    });
  }
  return states;
}

/** "1:00 PM" → minutes after midnight, or null. */
function minutesOf(text: unknown): number | null {
  const match = typeof text === "string" ? /^\s*(\d{1,2}):(\d{2})\s*([AP])\.?\s*M\.?\s*$/i.exec(text) : null;
  if (!match) return null;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (hours < 1 || hours > 12 || minutes > 59) return null;
  return ((hours % 12) + (match[3]!.toUpperCase() === "P" ? 12 : 0)) * 60 + minutes;
}

/** Santo Domingo keeps UTC-4 all year (no daylight saving). */
const SANTO_DOMINGO_OFFSET_MINUTES = -4 * 60;

/** The windows DGII announces, in UTC; a window whose end is not after its start ends the next day. */
export function parseMaintenanceWindows(answer: unknown): MaintenanceWindow[] {
  const list = (answer as { ventanaMantenimientos?: unknown } | null)?.ventanaMantenimientos;
  if (!Array.isArray(list)) return [];
  const result: MaintenanceWindow[] = [];
  for (const entry of list as Record<string, unknown>[]) {
    const environment = environmentOf(entry?.ambiente);
    const start = minutesOf(entry?.horaInicio);
    const end = minutesOf(entry?.horaFin);
    if (!environment || start === null || end === null || !Array.isArray(entry.dias)) continue;
    for (const day of entry.dias) {
      const match = typeof day === "string" ? /^(\d{2})-(\d{2})-(\d{4})$/.exec(day) : null;
      if (!match) continue;
      const [d, m, y] = [Number(match[1]), Number(match[2]), Number(match[3])];
      const date = Date.UTC(y, m - 1, d);
      // An impossible day (31-02-2026) rolls over in Date.UTC: skip it.
      if (new Date(date).getUTCDate() !== d || new Date(date).getUTCMonth() !== m - 1) continue;
      const midnight = date - SANTO_DOMINGO_OFFSET_MINUTES * 60_000;
      const startsAt = new Date(midnight + start * 60_000);
      const endsAt = new Date(midnight + (end > start ? end : end + 24 * 60) * 60_000);
      result.push({ environment, startsAt, endsAt });
    }
  }
  return result;
}

async function fetchJson(config: Pick<Config, "DGII_STATUS_BASE_URL">, apiKey: string, path: string): Promise<unknown> {
  const url = `${config.DGII_STATUS_BASE_URL}/api/estatusservicios/${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: "application/json", authorization: `Apikey ${apiKey}` },
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new DgiiUnavailable(`DGII's status service could not be reached (${url}): ${error instanceof Error ? error.name : "error"}.`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DgiiUnavailable(`DGII's status service answered ${response.status} at ${url}.`);
  }
  const text = await boundedText(response, STATUS_ANSWER_BYTES, url);
  try {
    return JSON.parse(text);
  } catch {
    throw new DgiiUnavailable(`DGII's status service answered something other than JSON at ${url}.`);
  }
}

/** Both of DGII's answers, read now. */
export async function readDgiiStatusService(config: Pick<Config, "DGII_STATUS_BASE_URL">, apiKey: string) {
  const [states, windowList] = await Promise.all([fetchJson(config, apiKey, "obtenerestatus"), fetchJson(config, apiKey, "obtenerventanasmantenimiento")]);
  return { services: parseServiceStates(states), windows: parseMaintenanceWindows(windowList) };
}

/**
 * Keeps what DGII said: each service's state (a service first seen down keeps the time it went
 * down until it is back), and the windows, replaced by DGII's new list.
 */
export async function recordDgiiStatus(
  db: AnyDb,
  now: Date,
  services: ServiceState[],
  windowList: MaintenanceWindow[],
): Promise<{ contingenciesClosed: number; released: { tenant_id: number; ecf_id: number }[] }> {
  // Reception reported down before and available now: DGII answers again.
  const wasDown = services.length
    ? await db
        .select({ environment: status.environment })
        .from(status)
        .where(and(eq(status.service, RECEPTION), eq(status.available, false)))
    : [];
  const back = services.filter((s) => s.service === RECEPTION && s.available && wasDown.some((d) => d.environment === s.environment));
  if (services.length) {
    await db
      .insert(status)
      .values(services.map((s) => ({ ...s, downSince: s.available ? null : now, checkedAt: now })))
      .onConflictDoUpdate({
        target: [status.environment, status.service],
        set: {
          available: sql`excluded.available`,
          status: sql`excluded.status`,
          downSince: sql`CASE WHEN excluded.available THEN NULL ELSE coalesce(${status.downSince}, excluded.down_since) END`,
          checkedAt: sql`excluded.checked_at`,
        },
      });
  }
  // DGII's list is the whole truth: a window it no longer lists was called off.
  await db.delete(windows);
  if (windowList.length) {
    await db
      .insert(windows)
      .values(windowList.map((w) => ({ ...w, checkedAt: now })))
      .onConflictDoNothing();
  }
  // A total contingency closes by itself then (issue 33), across the tenants signing in that
  // environment, and their held e-CF become due (drizzle/0056 close_total_ecf_contingencies); the
  // caller puts them on the queue at once.
  let contingenciesClosed = 0;
  const released: { tenant_id: number; ecf_id: number }[] = [];
  for (const { environment } of back) {
    const rows = rowsOf<{ closed_count: number; released_tenant_id: number | null; released_ecf_id: number | null }>(
      await db.execute(sql`SELECT * FROM close_total_ecf_contingencies(${environment}, ${now.toISOString()}::timestamptz)`),
    );
    contingenciesClosed += Number(rows[0]?.closed_count ?? 0);
    for (const row of rows) {
      if (row.released_ecf_id != null) released.push({ tenant_id: Number(row.released_tenant_id), ecf_id: Number(row.released_ecf_id) });
    }
  }
  return { contingenciesClosed, released };
}

/** A reported state older than this is not trusted to pause sending (the sweep may have stopped). */
const STATUS_FRESH_MS = 5 * 60_000;
/** While a service is reported down, sending waits for the next sweep. */
const DOWN_PAUSE_MS = 60_000;

/** How long a held e-CF waits before its step looks again, should a contingency's release be missed (modules/ecf/contingency.ts). */
const CONTINGENCY_HOLD_MS = 3_600_000;

/**
 * Until when sending to DGII's `service` in `environment` waits, or null: while a contingency the
 * tenant declared covers the document's branch (`held`: given for a document not yet sent; its
 * close makes the document due at once), to the end of a maintenance window in progress, or a
 * minute while DGII's status service (checked within the last 5 minutes) reports the service down.
 */
export async function sendingPausedUntil(
  db: AnyDb,
  environment: string,
  service: string,
  now: Date,
  held?: { tenantId: number; workspaceId: number },
): Promise<{ until: Date; reason: string; kind: "contingency" | "window" | "reported_outage" } | null> {
  // One round trip per e-CF step: the contingency, the window in progress and the service's last report together.
  const at = now.toISOString();
  const [row] = rowsOf<{
    contingency_id: number | null;
    window_end: number | null;
    available: boolean | null;
    status: string | null;
    down_since: number | null;
    checked_at: number | null;
  }>(
    await db.execute(sql`
      SELECT ${
        held
          ? sql`(SELECT min(c.id) FROM ecf_contingencies c WHERE c.tenant_id = ${held.tenantId} AND c.closed_at IS NULL
               AND (c.workspace_ids IS NULL OR ${held.workspaceId}::int = ANY (c.workspace_ids)))`
          : sql`NULL::int`
      } AS contingency_id,
             (SELECT extract(epoch FROM min(w.ends_at)) * 1000 FROM ${windows} w
               WHERE w.environment = ${environment} AND w.starts_at <= ${at}::timestamptz AND w.ends_at > ${at}::timestamptz)::float8 AS window_end,
             s.available, s.status, (extract(epoch FROM s.down_since) * 1000)::float8 AS down_since,
             (extract(epoch FROM s.checked_at) * 1000)::float8 AS checked_at
        FROM (SELECT 1) AS one
        LEFT JOIN ${status} s ON s.environment = ${environment} AND s.service = ${service}`),
  );
  if (row?.contingency_id != null) {
    return { until: new Date(now.getTime() + CONTINGENCY_HOLD_MS), reason: `held by contingency #${row.contingency_id} until it closes`, kind: "contingency" };
  }
  // Times come back as epoch milliseconds, read alike by every driver.
  if (row?.window_end != null) {
    const until = new Date(Number(row.window_end));
    return { until, reason: `DGII's maintenance window (${environment}) until ${timestamp(until)}`, kind: "window" };
  }
  if (row && row.available === false && row.checked_at != null && now.getTime() - Number(row.checked_at) <= STATUS_FRESH_MS) {
    const since = row.down_since == null ? null : new Date(Number(row.down_since));
    return {
      until: new Date(now.getTime() + DOWN_PAUSE_MS),
      reason: `DGII reports ${service} (${environment}) ${row.status} since ${timestamp(since)}`,
      kind: "reported_outage",
    };
  }
  return null;
}

/** GET /api/v1/ecf/dgii-status: every service per environment, the windows not over yet, and the tenant's open alerts. */
export async function dgiiStatusView(db: AnyDb, now: Date, configured: boolean, tenantId: number) {
  // Issued together, one round trip (issue 46).
  const [services, upcoming, alerts] = await Promise.all([
    db.select().from(status).orderBy(asc(status.environment), asc(status.service)),
    db.select().from(windows).where(gt(windows.endsAt, now)).orderBy(asc(windows.startsAt), asc(windows.environment)),
    openAlerts(db, tenantId),
  ]);
  return {
    configured,
    services: services.map((s) => ({
      environment: s.environment as EcfEnvironment,
      service: s.service,
      available: s.available,
      status: s.status,
      down_since: timestamp(s.downSince),
      checked_at: timestamp(s.checkedAt),
    })),
    maintenance_windows: upcoming.map((w) => ({
      environment: w.environment as EcfEnvironment,
      starts_at: timestamp(w.startsAt),
      ends_at: timestamp(w.endsAt),
      in_progress: w.startsAt.getTime() <= now.getTime(),
    })),
    alerts,
  };
}

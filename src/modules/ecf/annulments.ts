import { and, eq, inArray, like } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import type { RequestScope } from "../../http/scope";
import { AppError, fieldError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { formatDocumentNumber } from "../../lib/ncf";
import { buildAnecf } from "./anecf";
import { sendAnnulment, withDgiiToken } from "./dgii";
import { annulledInvoices } from "./ports";
import type { CreateAnnulmentInput, EcfEnvironment } from "./schemas";
import { dgiiUrls, openedCertificate } from "./service";
import { signXml } from "./signature";
import { userEntryValue } from "./timeline";
import { recordEcfTransitionEvent } from "./transitions";

const ds = schema.documentSubtypes;
const e = schema.ecfDocuments;
const a = schema.ecfAnnulments;
type AnnulmentRow = typeof a.$inferSelect;

export function serializeAnnulment(row: AnnulmentRow) {
  return {
    id: row.id,
    document_subtype_id: row.documentSubtypeId,
    type: row.ecfType,
    from: row.fromEncf,
    to: row.toEncf,
    count: row.count,
    environment: row.environment as EcfEnvironment,
    dgii_messages: row.dgiiMessages as { codigo: string; valor: string }[],
    not_annulled: row.notAnnulled as { encf: string; reason: string }[],
    created_at: timestamp(row.createdAt),
  };
}

/** Numbers already taken that one annulment may cover (each is looked up and cancelled one by one). */
const MAX_TAKEN = 500;

/**
 * POST /ecf/annulments: annuls e-NCF of an E sequence with DGII (ANECF; Formato Anulación de
 * e-NCF v1.0, section 1: numbers "si la factura emitida no ha sido enviada a la DGII ni al
 * receptor o si la secuencia no ha sido utilizada" — a received e-CF is annulled by a credit note
 * instead). The range may cover:
 * - unused numbers, from the sequence's next one up to the end of the authorized range: the
 *   sequence then moves past them;
 * - numbers already taken by invoices whose e-CF DGII never received (pending or failed, no
 *   trackId; at most 500): those e-CF become `annulled` and their invoices are cancelled (stock
 *   back); each must be an invoice of the request's branch still pending payment.
 * Under the sequence's and the e-CF rows' locks (a send in progress is waited for, then its result
 * seen): the ANECF is built, signed and sent; only when DGII accepts it does anything change —
 * DGII refusing is a 422 with its messages, DGII unreachable a 503.
 */
export async function annulRange(
  db: AnyDb,
  scope: RequestScope,
  input: CreateAnnulmentInput,
  config: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL" | "APP_ENCRYPTION_KEY">,
  now: Date,
): Promise<AnnulmentRow> {
  const [subtype] = await db
    .select()
    .from(ds)
    .where(and(eq(ds.tenantId, scope.tenantId), eq(ds.id, input.document_subtype_id), like(ds.prefix, "E%")))
    .for("update");
  if (!subtype) throw fieldError("document_subtype_id", "No such e-CF (E-series) document subtype.");
  const next = Number(subtype.nextNumber);
  const start = Number(subtype.startNumber);
  const end = Number(subtype.endNumber);
  if (input.to < input.from) throw fieldError("to", "The range ends at or after where it starts.");
  if (input.from < start) throw fieldError("from", `The authorized range of this sequence starts at ${start}.`);
  if (input.to > end) throw fieldError("to", `The authorized range of this sequence ends at ${end}.`);

  // Unused numbers are annulled from the next one, so the sequence never leaves a gap behind it.
  if (input.from > next) {
    throw fieldError(
      "from",
      `The unused numbers of this sequence start at ${next} (${formatDocumentNumber(subtype.prefix, Math.min(next, end))}): annul from there, so that no number is skipped without being annulled.`,
    );
  }
  // The numbers already handed out: each must be an e-CF DGII never received.
  const takenTo = Math.min(input.to, next - 1);
  const taken = input.from <= takenTo ? Array.from({ length: takenTo - input.from + 1 }, (_, i) => formatDocumentNumber(subtype.prefix, input.from + i)) : [];
  if (taken.length > MAX_TAKEN) throw fieldError("to", `At most ${MAX_TAKEN} numbers already issued are annulled at once.`);
  const unsent = taken.length
    ? await db
        .select()
        .from(e)
        .where(and(eq(e.tenantId, scope.tenantId), inArray(e.encf, taken)))
        .for("update")
    : [];
  const byEncf = new Map(unsent.map((row) => [row.encf, row]));
  // Each taken number's e-CF, once checked to be an invoice's.
  const takenEcf: { encf: string; row: (typeof unsent)[number]; invoiceId: number }[] = [];
  for (const encf of taken) {
    const row = byEncf.get(encf);
    if (!row) throw fieldError("from", `${encf} was issued without an e-CF of this company: it cannot be annulled here.`);
    if (row.noteId !== null) throw fieldError("from", `${encf} is a note's e-NCF: correct it with another note once it is sent.`);
    if (row.invoiceId === null) throw fieldError("from", `${encf} is a purchase's e-NCF: its e-CF is sent with the purchase and cannot be annulled here.`);
    takenEcf.push({ encf, row, invoiceId: row.invoiceId });
    if (row.trackId !== null || (row.status !== "pending" && row.status !== "failed")) {
      throw new AppError(
        "ecf_already_sent",
        `${encf} was sent to DGII (${row.status}): it is annulled by a credit note (modification code 1), not by an annulment of numbers.`,
      );
    }
  }

  const [settings] = await db.select().from(schema.ecfSettings).where(eq(schema.ecfSettings.tenantId, scope.tenantId));
  const [profile] = await db
    .select({ rnc: schema.companyProfiles.rnc })
    .from(schema.companyProfiles)
    .where(eq(schema.companyProfiles.tenantId, scope.tenantId));
  if (!settings?.enabled || !settings.certificateEncrypted) {
    throw new AppError("ecf_not_configured", "Electronic invoicing (e-CF) is not enabled for this company: upload the certificate and enable it first.");
  }
  if (!profile?.rnc) throw new AppError("fiscal_profile_incomplete", "The company's RNC is missing (PATCH /api/v1/company).", { rnc: ["Required."] });

  const type = subtype.prefix.slice(1) as Parameters<typeof buildAnecf>[0]["ranges"][number]["type"];
  const from = formatDocumentNumber(subtype.prefix, input.from);
  const to = formatDocumentNumber(subtype.prefix, input.to);
  const material = await openedCertificate(scope.tenantId, settings.certificateEncrypted, config.APP_ENCRYPTION_KEY);
  const xml = signXml(buildAnecf({ rnc: profile.rnc, at: now, ranges: [{ type, from, to }] }), material).xml;
  const environment = settings.environment as EcfEnvironment;
  const urls = dgiiUrls(config, environment);
  // Judged by what DGII's answer says, not by its HTTP status (dgii.ts, annulmentOutcome).
  const answer = await withDgiiToken(scope.tenantId, environment, urls.ecf, material, (token) =>
    sendAnnulment(urls.ecf, token, xml, `${profile.rnc}${from}.xml`),
  );
  // A partial answer names the numbers DGII did not annul (issue 43): the others were. One naming a
  // number outside the range cannot be read number by number: nothing changes.
  const size = input.to - input.from + 1;
  const inRange = (encf: string) => encf.startsWith(subtype.prefix) && Number(encf.slice(3)) >= input.from && Number(encf.slice(3)) <= input.to;
  const notAnnulled = answer.exceptions;
  if (!answer.annulled || notAnnulled.some((n) => !inRange(n.encf)) || notAnnulled.length >= size) {
    throw new AppError("validation_failed", "DGII did not annul the numbers.", { from: answer.messages.map((m) => m.valor) });
  }
  const kept = new Set(notAnnulled.map((n) => n.encf));
  const messages = answer.messages;
  const annulledTaken = takenEcf.filter(({ encf }) => !kept.has(encf));
  for (const { encf, row, invoiceId } of annulledTaken) {
    await annulledInvoices.use(db, scope, invoiceId, encf);
    const transition = userEntryValue(
      { state: "annulled", code: "annulled", attempt: row.attempts },
      scope.userId,
      "Annulled with DGII by ",
      ` (ANECF ${from} to ${to}); its invoice was cancelled.`,
    );
    await db.update(e).set({ status: "annulled", lastError: null, updatedAt: now, transition }).where(eq(e.id, row.id));
  }
  for (const { row, invoiceId } of annulledTaken) {
    await recordEcfTransitionEvent(db, scope.tenantId, { id: row.id, workspaceId: row.workspaceId, kind: "invoice", documentId: invoiceId }, "annulled");
  }
  // The sequence moves past the last number DGII annulled: an unused number DGII did not annul
  // after it may still be issued; one before it is left behind, reported in not_annulled.
  let lastAnnulled = input.to;
  while (kept.has(formatDocumentNumber(subtype.prefix, lastAnnulled))) lastAnnulled -= 1;
  if (lastAnnulled >= next) {
    await db
      .update(ds)
      .set({ nextNumber: lastAnnulled + 1, updatedAt: now })
      .where(eq(ds.id, subtype.id));
  }
  const row = await db
    .insert(a)
    .values({
      tenantId: scope.tenantId,
      documentSubtypeId: subtype.id,
      ecfType: type,
      fromEncf: from,
      toEncf: to,
      count: size - notAnnulled.length,
      environment,
      xml,
      dgiiMessages: messages,
      notAnnulled,
      createdBy: scope.userId,
    })
    .returning()
    .then(oneRow);
  return row;
}

import { and, eq, like } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import { AppError, fieldError } from "../../http/errors";
import { timestamp } from "../../lib/format";
import { formatDocumentNumber } from "../../lib/ncf";
import { buildAnecf } from "./anecf";
import { DgiiRefused, refusalMessages, sendAnnulment, withDgiiToken } from "./dgii";
import type { CreateAnnulmentInput, EcfEnvironment } from "./schemas";
import { dgiiUrls, openedCertificate } from "./service";
import { signXml } from "./signature";

const ds = schema.documentSubtypes;
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
    created_at: timestamp(row.createdAt)!,
  };
}

/**
 * POST /ecf/annulments: annuls unused e-NCF of an E sequence with DGII (ANECF; Formato Anulación
 * de e-NCF v1.0, section 1: numbers never sent to DGII nor to a buyer — a sent e-CF is annulled by a
 * credit note instead). The range starts at the sequence's next number (what was issued before it
 * was handed out with its e-CF) and ends within the authorized range. Under the sequence's row
 * lock: the ANECF is built, signed and sent; only when DGII accepts it does the sequence move past
 * the range and the annulment get recorded — DGII refusing is a 422 with its messages, DGII
 * unreachable a 503, and nothing changes either way.
 */
export async function annulRange(
  db: AnyDb,
  scope: { tenantId: number; userId: number },
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
  const end = Number(subtype.endNumber);
  if (input.from !== next) {
    throw fieldError(
      "from",
      next > end
        ? "This sequence has no unused numbers left."
        : `The unused numbers of this sequence start at ${next} (${formatDocumentNumber(subtype.prefix, next)}): numbers before it were issued, and an e-CF that was sent is annulled by a credit note.`,
    );
  }
  if (input.to < input.from) throw fieldError("to", "The range ends at or after where it starts.");
  if (input.to > end) throw fieldError("to", `The authorized range of this sequence ends at ${end}.`);

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
  let messages: { codigo: string; valor: string }[];
  try {
    messages = await withDgiiToken(scope.tenantId, environment, urls.ecf, material, (token) =>
      sendAnnulment(urls.ecf, token, xml, `${profile.rnc}${from}.xml`),
    );
  } catch (error) {
    if (error instanceof DgiiRefused) {
      throw new AppError("validation_failed", "DGII refused the annulment.", { from: refusalMessages(error.body).map((m) => m.valor) });
    }
    throw error;
  }
  await db
    .update(ds)
    .set({ nextNumber: input.to + 1, updatedAt: now })
    .where(eq(ds.id, subtype.id));
  const [row] = await db
    .insert(a)
    .values({
      tenantId: scope.tenantId,
      documentSubtypeId: subtype.id,
      ecfType: type,
      fromEncf: from,
      toEncf: to,
      count: input.to - input.from + 1,
      environment,
      xml,
      dgiiMessages: messages,
      createdBy: scope.userId,
    })
    .returning();
  return row!;
}

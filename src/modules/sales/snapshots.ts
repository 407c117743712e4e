import { inDop } from "./money";
import type { PdfDocumentData } from "./pdf";
import type { LoadedBranch, LoadedIssuer, ResolvedDocument } from "./references";
import type { DocumentSnapshot } from "./schemas";

/*
 * What an issued fiscal document freezes of the records it names (FISCAL.md: "the issuer's and the
 * buyer's fiscal data are frozen on the document when it is issued"; Norma General 06-2018,
 * what a printed NCF carries; Formato e-CF v1.0, Emisor, Comprador, IdDoc.FechaVencimientoSecuencia
 * and OtraMoneda). A later change of the company, the branch, the contact, the sequence or the
 * currency's rate never changes an issued document, its PDF or its XML: they read this.
 */
export type { DocumentSnapshot };

/** The snapshot of a document being issued now from what resolveDocument loaded in its one statement. */
export function documentSnapshot(resolved: ResolvedDocument, exchangeRate: string): DocumentSnapshot {
  return {
    issuer: issuerSnapshot(resolved.issuer, resolved.branch),
    buyer: buyerSnapshot(resolved.contact),
    sequence: {
      prefix: resolved.subtype.prefix,
      name: resolved.subtype.name,
      valid_until: resolved.subtype.validUntil,
      authorization_number: resolved.subtype.authorizationNumber,
    },
    currency: { id: resolved.currencyId, code: resolved.currencyCode, exchange_rate: exchangeRate },
  };
}

/** The issuer as a document freezes it: the company profile now, and the branch it is issued from. */
export function issuerSnapshot(issuer: LoadedIssuer | null, branch: LoadedBranch): DocumentSnapshot["issuer"] {
  return {
    rnc: issuer?.rnc ?? null,
    legal_name: issuer?.legalName ?? null,
    trade_name: issuer?.tradeName ?? null,
    address: issuer?.address ?? null,
    municipality_code: issuer?.municipalityCode ?? null,
    province_code: issuer?.provinceCode ?? null,
    phone: issuer?.phone ?? null,
    email: issuer?.email ?? null,
    branch: { ...branch },
  };
}

export function buyerSnapshot(contact: ResolvedDocument["contact"]): DocumentSnapshot["buyer"] {
  return {
    contact_id: contact.id,
    name: contact.name,
    identification_type: contact.identificationType,
    identification: contact.identification,
    address: contact.address,
    email: contact.email,
  };
}

/** A document's amounts and the same amounts in DOP at its rate, each half-up to the cent (Formato e-CF, OtraMoneda). */
export function dopAmounts<T extends { [K in keyof T]: string }>(amounts: T, exchangeRate: string): { [K in keyof T]: string } {
  return Object.fromEntries((Object.entries(amounts) as [string, string][]).map(([key, value]) => [key, inDop(value, exchangeRate).toFixed(2)])) as {
    [K in keyof T]: string;
  };
}

/** A non-refusing remark on a write (the response's `warnings`). */
export interface DocumentWarning {
  code: string;
  field: string;
  message: string;
}

/**
 * DGII's registry says whether the buyer may receive fiscal credit: a status other than ACTIVO
 * (SUSPENDIDO, DADO DE BAJA…) or an RNC the registry does not list is worth a warning, not a
 * refusal (FISCAL.md, "Buyers"; the registry may lag a day behind DGII). Nothing is said when no
 * registry was ever loaded or the buyer has no RNC or cédula. A purchase checks its supplier the
 * same way (`party`: issue 19, "the supplier's RNC is checked against the registry").
 */
export function registryWarnings(
  contact: Pick<ResolvedDocument["contact"], "registryChecked" | "registryStatus" | "identificationType" | "identification">,
  party: { role: "buyer" | "supplier"; field: string } = { role: "buyer", field: "contact_id" },
): DocumentWarning[] {
  const { role, field } = party;
  if (!contact.registryChecked) return [];
  if (contact.registryStatus === null) {
    if (contact.identificationType !== "rnc") return [];
    return [{ code: `${role}_not_in_registry`, field, message: `The ${role}'s RNC ${contact.identification} is not in DGII's RNC registry.` }];
  }
  if (contact.registryStatus.toUpperCase() === "ACTIVO") return [];
  return [
    {
      code: `${role}_not_active`,
      field,
      message: `The ${role}'s status in DGII's RNC registry is ${contact.registryStatus}, not ACTIVO.`,
    },
  ];
}

/** The issuer block a PDF prints, from a document's snapshot (Norma General 06-2018: legal name, trade name, RNC, address, branch). */
export function pdfIssuer(issuer: DocumentSnapshot["issuer"]): PdfDocumentData["issuer"] {
  return {
    legalName: issuer.legal_name ?? issuer.trade_name ?? "",
    tradeName: issuer.trade_name,
    rnc: issuer.rnc,
    address: issuer.address,
    phone: issuer.phone,
    email: issuer.email,
    branchName: issuer.branch.name,
    branchAddress: issuer.branch.address,
    branchPhone: issuer.branch.phone,
  };
}

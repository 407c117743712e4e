import { ecfDateTime } from "../../lib/dates";
import { Big } from "../../lib/decimal";
import { built, type SignableXml } from "./signature";
import { children, EcfBuildError, element } from "./xml";

/**
 * The annulment of unused e-NCF (ANECF: Formato Anulación de e-NCF v1.0,
 * `docs/formato-anecf-v1.0.txt`; schema ANECF.xsd): ranges of sequence numbers that were never sent
 * to DGII nor to a buyer (a sent e-CF is annulled by an E34 instead, section 1). One Anulacion per
 * e-CF type (NoLinea 1-10) with its ranges and their count; the header's count is the sum of all.
 * Signed by signature.ts (the schema ends with xs:any for the Signature).
 */
export interface AnecfRange {
  type: "31" | "32" | "33" | "34" | "41" | "43" | "44" | "45" | "46" | "47";
  /** SecuenciaeNCFDesde and SecuenciaeNCFHasta: e-NCF of this type, from ≤ to. */
  from: string;
  to: string;
}

export interface AnecfInput {
  /** RncEmisor. */
  rnc: string;
  /** FechaHoraAnulacioneNCF: when the file was generated. */
  at: Date;
  ranges: AnecfRange[];
}

/** An e-NCF: a series letter (E), the type's 2 digits and a sequence of 10 digits (Formato ANECF, footnote 1). */
const ENCF = /^E(\d{2})(\d{10})$/;

export function buildAnecf(input: AnecfInput): SignableXml {
  if (input.ranges.length === 0) throw new EcfBuildError("An ANECF annuls at least one range.");
  const byType = new Map<string, { ranges: AnecfRange[]; count: Big }>();
  for (const range of input.ranges) {
    const from = ENCF.exec(range.from);
    const to = ENCF.exec(range.to);
    if (!from || !to || from[1] !== range.type || to[1] !== range.type) {
      throw new EcfBuildError(`The range ${range.from}-${range.to} is not of e-NCF of type ${range.type}.`);
    }
    // Validation e) and c): from ≤ to, both > 0.
    const count = new Big(to[2]!).minus(from[2]!).plus(1);
    if (new Big(from[2]!).lte(0) || count.lte(0)) throw new EcfBuildError(`The range ${range.from}-${range.to} is empty or starts at zero.`);
    const group = byType.get(range.type) ?? { ranges: [], count: new Big(0) };
    group.ranges.push(range);
    group.count = group.count.plus(count);
    byType.set(range.type, group);
  }
  if ([...byType.values()].some((group) => group.ranges.length > 10_000)) throw new EcfBuildError("An Anulacion holds at most 10,000 ranges.");
  if (byType.size > 10) throw new EcfBuildError("An ANECF holds at most 10 Anulacion (one per e-CF type).");
  const total = [...byType.values()].reduce((acc, group) => acc.plus(group.count), new Big(0));
  const body = children({
    Encabezado: {
      Version: "1.0",
      RncEmisor: input.rnc,
      CantidadeNCFAnulados: total.toFixed(0),
      FechaHoraAnulacioneNCF: ecfDateTime(input.at),
    },
    DetalleAnulacion: [...byType.entries()].map(([type, group], i) =>
      element("Anulacion", {
        NoLinea: String(i + 1),
        TipoeCF: type,
        TablaRangoSecuenciasAnuladaseNCF: group.ranges.map((range) => element("Secuencias", { SecuenciaeNCFDesde: range.from, SecuenciaeNCFHasta: range.to })),
        CantidadeNCFAnulados: group.count.toFixed(0),
      }),
    ),
  });
  return built(`<?xml version="1.0" encoding="utf-8"?><ANECF>${body}</ANECF>`);
}

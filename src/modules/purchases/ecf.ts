import { Big } from "../../lib/decimal";
import { fieldError } from "../../lib/errors";
import { assertEcfReady, type EcfSourceLine, type SignedEcf, signEcf } from "../ecf/issue";
import type { LineAmounts, TaxBreakdown } from "../sales/lines";
import type { LoadedBranch, LoadedEcfSettings, LoadedIssuer } from "../sales/references";
import type { DocumentSnapshot } from "../sales/schemas";
import { issuerSnapshot } from "../sales/snapshots";

/**
 * The e-CF of a purchase the buyer documents itself (issue 19): E41 compras to an informal
 * supplier, E43 gastos menores, E47 pagos al exterior (Formato e-CF v1.0, types 41, 43, 47). The
 * tenant is the Emisor; the supplier is the Comprador section (none on E43). Signed as invoices'
 * e-CF are (ecf/issue.ts signEcf), between the purchase's read, which took the e-NCF under the
 * sequence's lock, and its one write statement, which stores the signed XML with the purchase.
 */

export interface PurchaseEcfInput {
  tenantId: number;
  prefix: string;
  encf: string;
  issueDate: string;
  dueDate: string | null;
  settings: LoadedEcfSettings | null;
  issuer: LoadedIssuer | null;
  branch: LoadedBranch;
  subtype: { name: string; valid_until: string | null; authorization_number: string | null };
  supplier: {
    id: number;
    name: string;
    identification_type: string | null;
    identification: string | null;
    address: string | null;
    email: string | null;
  } | null;
  currency: { id: number | null; code: string | null; exchangeRate: string; isDefault: boolean };
  lines: { description: string; isService: boolean; quantity: string; unitCost: string }[];
  amounts: LineAmounts[];
  breakdown: TaxBreakdown;
  total: string;
  itbisWithheld: string;
  isrWithheld: string;
}

/**
 * A withheld total spread over the lines in proportion to `weights` (half-up to the cent), the
 * remainder on the last line that weighs: the e-CF states each line's Retencion (Formato e-CF,
 * Ítem fields 5-7) and its totals are the lines' sums, which then equal the purchase's.
 */
export function allocate(total: Big, weights: Big[]): Big[] {
  const sum = weights.reduce((acc, w) => acc.plus(w), new Big(0));
  const shares = weights.map(() => new Big(0));
  if (total.eq(0)) return shares;
  const last = weights.map((w) => w.gt(0)).lastIndexOf(true);
  let given = new Big(0);
  weights.forEach((weight, i) => {
    if (weight.lte(0) || i === last) return;
    const share = total.times(weight).div(sum).round(2, Big.roundHalfUp);
    shares[i] = share;
    given = given.plus(share);
  });
  shares[last] = total.minus(given);
  return shares;
}

/**
 * Each line's withholding as its type carries it: E41 states on every line the ITBIS withheld
 * (spread by the lines' ITBIS) and, on services only, the ISR withheld (spread by the services'
 * amounts; Ítem field 7, validation b); E47 states the ISR withheld on every line (spread by the
 * lines' amounts; no ITBIS: field 6 is 0); E43 withholds nothing (its Retencion area is 0).
 */
function lineWithholdings(input: PurchaseEcfInput): EcfSourceLine["withholding"][] {
  const type = input.prefix.slice(1);
  const itbis = new Big(input.itbisWithheld);
  const isr = new Big(input.isrWithheld);
  const lineAmount = (i: number) => new Big(input.amounts[i]!.subtotal).minus(input.amounts[i]!.discountAmount);
  const lineItbis = (i: number) => input.amounts[i]!.taxes.filter((tax) => tax.type === "itbis").reduce((sum, tax) => sum.plus(tax.amount), new Big(0));
  if (type === "43") {
    if (itbis.gt(0)) throw fieldError("itbis_withheld", "An E43 (gastos menores) carries no withholding (Formato e-CF, Retencion: 0 on type 43).");
    if (isr.gt(0)) throw fieldError("isr_withheld", "An E43 (gastos menores) carries no withholding (Formato e-CF, Retencion: 0 on type 43).");
    return input.lines.map(() => undefined);
  }
  const indexes = input.lines.map((_, i) => i);
  if (type === "47") {
    if (itbis.gt(0)) throw fieldError("itbis_withheld", "An E47 (pagos al exterior) withholds ISR only (Formato e-CF, MontoITBISRetenido: 0 on type 47).");
    const isrShares = allocate(isr, indexes.map(lineAmount));
    return isrShares.map((share) => ({ isr: share.toFixed(2) }));
  }
  const services = indexes.map((i) => (input.lines[i]!.isService ? lineAmount(i) : new Big(0)));
  if (isr.gt(0) && services.every((amount) => amount.lte(0))) {
    throw fieldError("isr_withheld", "On an E41, ISR is withheld on services only: no line is a service (Formato e-CF, MontoISRRetenido, validation b).");
  }
  const itbisWeights = indexes.map(lineItbis);
  if (itbis.gt(0) && itbisWeights.every((amount) => amount.lte(0))) throw fieldError("itbis_withheld", "No line of this purchase carries ITBIS.");
  const itbisShares = allocate(itbis, itbisWeights);
  const isrShares = allocate(isr, services);
  return indexes.map((i) => ({
    itbis: itbisShares[i]!.toFixed(2),
    ...(input.lines[i]!.isService && isr.gt(0) ? { isr: isrShares[i]!.toFixed(2) } : {}),
  }));
}

export async function signPurchaseEcf(input: PurchaseEcfInput, encryptionKey: string | undefined): Promise<SignedEcf> {
  assertEcfReady(input.prefix, input.settings);
  const supplier = input.supplier;
  const snapshot: DocumentSnapshot = {
    issuer: issuerSnapshot(input.issuer, input.branch),
    // E43 has no Comprador: the builder leaves it out whatever this holds.
    buyer: {
      contact_id: supplier?.id ?? 0,
      name: supplier?.name ?? "",
      identification_type: supplier?.identification_type ?? null,
      identification: supplier?.identification ?? null,
      address: supplier?.address ?? null,
      email: supplier?.email ?? null,
    },
    sequence: {
      prefix: input.prefix,
      name: input.subtype.name,
      valid_until: input.subtype.valid_until,
      authorization_number: input.subtype.authorization_number,
    },
    currency: { id: input.currency.id, code: input.currency.code, exchange_rate: input.currency.exchangeRate },
  };
  const withholdings = lineWithholdings(input);
  return signEcf(input.settings, encryptionKey, {
    tenantId: input.tenantId,
    encf: input.encf,
    issueDate: input.issueDate,
    sequenceExpiry: input.subtype.valid_until,
    dueDate: input.dueDate,
    snapshot,
    lines: input.lines.map((line, i) => ({
      description: line.description,
      isService: line.isService,
      quantity: line.quantity,
      unitPrice: line.unitCost,
      ...(withholdings[i] ? { withholding: withholdings[i] } : {}),
    })),
    amounts: input.amounts,
    breakdown: input.breakdown,
    total: input.total,
    // Not written: the buyer's types carry no TipoIngresos (Formato e-CF v1.0, field 8).
    incomeType: "01",
    ...(input.currency.isDefault || !input.currency.code ? {} : { currency: { code: input.currency.code, exchangeRate: input.currency.exchangeRate } }),
  });
}

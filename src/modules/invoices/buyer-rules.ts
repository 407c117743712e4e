import Big from "big.js";
import { fieldError } from "../../lib/errors";
import { type IdentificationType, normalizeIdentification } from "../../lib/identification";
import { inDop } from "../sales/money";

/** From RD$250,000 a consumer invoice (02/32) names its buyer (Norma General 06-2018; FISCAL.md, "Buyers"). */
export const CONSUMER_ID_THRESHOLD = new Big(250000);

type RuleLine = { taxes: { type: string; rate: string }[] };

/** The NCF type code: B01 → "01", E31 → "31". */
const typeCode = (prefix: string) => prefix.slice(1);

/**
 * The buyer and tax rules of an NCF type at issue (Norma 06-2018; Formato e-CF v1.0 for 31-46),
 * each a 422 naming the field:
 * - 01/31 (crédito fiscal) and 15/45 (gubernamental): the buyer has an RNC or cédula with a valid check digit;
 * - 02/32 (consumo) from RD$250,000 (total in DOP): the buyer is identified the same way;
 * - 14/44 (regímenes especiales): no ITBIS and no ISC on any line (those buyers are exempt);
 * - 16/46 (exportaciones): only ITBIS at 0 % or exempt lines.
 */
export function assertBuyerRules(
  prefix: string,
  buyer: { identificationType: string | null; identification: string | null },
  lines: RuleLine[],
  total: string,
  currencyRate: string,
): void {
  const code = typeCode(prefix);
  const totalDop = inDop(total, currencyRate);
  const needsId = ["01", "31", "15", "45"].includes(code) || (["02", "32"].includes(code) && totalDop.gte(CONSUMER_ID_THRESHOLD));
  if (needsId) {
    const type = buyer.identificationType as IdentificationType | null;
    const valid = (type === "rnc" || type === "cedula") && buyer.identification && normalizeIdentification(type, buyer.identification).ok;
    if (!valid) {
      throw fieldError("contact_id", `An NCF of type ${code} needs a buyer with a valid RNC or cédula (Norma General 06-2018).`);
    }
  }
  if (code === "14" || code === "44") {
    if (lines.some((line) => line.taxes.some((tax) => tax.type === "itbis" || tax.type === "isc"))) {
      throw fieldError("items", `An NCF of type ${code} (regímenes especiales) carries no ITBIS nor ISC (Norma General 06-2018).`);
    }
  }
  if (code === "16" || code === "46") {
    const allowed = (tax: RuleLine["taxes"][number]) => tax.type === "exento" || (tax.type === "itbis" && new Big(tax.rate).eq(0));
    if (lines.some((line) => !line.taxes.every(allowed))) {
      throw fieldError("items", `An NCF of type ${code} (exportaciones) carries only ITBIS at 0 % or exempt lines (Norma General 06-2018).`);
    }
  }
}

/**
 * The currency codes a currency may have: ISO 4217's alphabetic codes in use, "List One: Current
 * currency & funds" as its maintenance agency (SIX) publishes it, the edition of 1 January 2026
 * (ZWG added in 2024, XCG in force from 31 March 2025, XAD the Arab Monetary Fund's accounting
 * dinar; CUC and SLL no longer listed), held here as a fact rather than asked of the runtime. `Intl.supportedValuesOf("currency")` differs
 * between runtimes and versions: workerd's ICU (159 codes, 2026-11) lacks SLE, XCG and ZWG, which
 * replaced SLL, ANG and ZWL, while Node 20's (162) has them; both still list HRK, withdrawn in
 * 2023, and neither lists the funds (BOV, CLF, USN…) nor the metals. The document states this list
 * in the field's pattern (issue 44).
 *
 * Left out of List One: withdrawn codes (HRK 2023, ZWL 2024, ANG 2025, CUC, SLL: List Three), and XTS (codes
 * reserved for testing) and XXX (no currency involved), which name no currency a document is in.
 */
// biome-ignore format: a line per initial letter.
export const CURRENCY_CODES = [
  "AED", "AFN", "ALL", "AMD", "AOA", "ARS", "AUD", "AWG", "AZN",
  "BAM", "BBD", "BDT", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD",
  "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUP", "CVE", "CZK",
  "DJF", "DKK", "DOP", "DZD",
  "EGP", "ERN", "ETB", "EUR",
  "FJD", "FKP",
  "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD",
  "HKD", "HNL", "HTG", "HUF",
  "IDR", "ILS", "INR", "IQD", "IRR", "ISK",
  "JMD", "JOD", "JPY",
  "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT",
  "LAK", "LBP", "LKR", "LRD", "LSL", "LYD",
  "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN",
  "NAD", "NGN", "NIO", "NOK", "NPR", "NZD",
  "OMR",
  "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG",
  "QAR",
  "RON", "RSD", "RUB", "RWF",
  "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL",
  "THB", "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS",
  "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS",
  "VED", "VES", "VND", "VUV",
  "WST",
  "XAD", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XCG", "XDR", "XOF", "XPD", "XPF", "XPT", "XSU", "XUA",
  "YER",
  "ZAR", "ZMW", "ZWG",
] as const;

export type CurrencyCode = (typeof CURRENCY_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(CURRENCY_CODES);
export const isCurrencyCode = (code: string): code is CurrencyCode => KNOWN.has(code);

/**
 * The codes as a currency's `code` takes them, the document's pattern: any case, with the spaces
 * around them that the field trims (`\s` is what `String.prototype.trim` removes), no more. An enum
 * could not say "any case", which the API has always taken ("eur" is kept as EUR).
 */
export const CURRENCY_CODE_PATTERN = `^\\s*(?:${CURRENCY_CODES.map((code) => code.replace(/[A-Z]/g, (letter) => `[${letter}${letter.toLowerCase()}]`)).join("|")})\\s*$`;

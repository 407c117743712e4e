import Big from "big.js";

Big.RM = Big.roundHalfUp;

/** Decimal string with two places, as every decimal in a response: "1234.50"; null stays null. */
export function decimal2(value: string | number | Big): string;
export function decimal2(value: string | number | Big | null | undefined): string | null;
export function decimal2(value: string | number | Big | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Big(value).toFixed(2);
}

/**
 * A unit price: two decimals, or up to four when it has them ("10.00", "10.125", "10.1234"). DGII's
 * e-CF carries unit prices with up to 4 decimals (Formato e-CF v1.0, PrecioUnitarioItem).
 */
export function unitPriceText(value: string | number | Big): string {
  const fixed = new Big(value).toFixed(4);
  return fixed.replace(/(\.\d\d\d?)0+$/, "$1").replace(/(\.\d\d)0$/, "$1");
}

/** An exchange rate: at least 2 decimals, up to 6 ("1.00", "58.75", "58.123456"), as currencies show it. */
export function exchangeRateText(value: string | number | Big): string {
  return new Big(value).toFixed(6).replace(/(\.\d\d\d*?)0+$/, "$1");
}

/** exchangeRateText in SQL, for documents built as JSON by Postgres. */
export const exchangeRateSql = (column: string) =>
  `CASE WHEN ${column} IS NULL THEN NULL WHEN scale(trim_scale(${column})) < 2 THEN round(${column}, 2)::text ELSE trim_scale(${column})::text END`;

/** ISO 8601 UTC ending in Z; null stays null. */
export function timestamp(value: Date | string): string;
export function timestamp(value: Date | string | null | undefined): string | null;
export function timestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value.includes("T") || value.endsWith("Z") ? value : `${value.replace(" ", "T")}`);
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Today's date in UTC, YYYY-MM-DD. */
export function today(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

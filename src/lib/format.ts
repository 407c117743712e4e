import Big from "big.js";

Big.RM = Big.roundHalfUp;

/** Decimal string with two places, as every decimal in a response: "1234.50". */
export function decimal2(value: string | number | Big | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Big(value).toFixed(2);
}

/** ISO 8601 UTC ending in Z. */
export function timestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value.includes("T") || value.endsWith("Z") ? value : `${value.replace(" ", "T")}`);
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Today's date in UTC, YYYY-MM-DD. */
export function today(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

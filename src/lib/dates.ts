/** Today in the Dominican Republic (UTC−4, no daylight saving), YYYY-MM-DD: DGII dates are local. */
export function dominicanToday(now = new Date()): string {
  return new Date(now.getTime() - 4 * 3_600_000).toISOString().slice(0, 10);
}

/** A YYYY-MM-DD date moved by whole days (calendar arithmetic in UTC, so no daylight-saving drift). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** dd-MM-yyyy, the date format of DGII's schemas (e-CF, ANECF, receipts, the timbre's QR). */
export const ecfDate = (isoDate: string) => `${isoDate.slice(8, 10)}-${isoDate.slice(5, 7)}-${isoDate.slice(0, 4)}`;

/** dd-MM-yyyy HH:mm:ss in the Dominican Republic (UTC−4, no daylight saving). */
export function ecfDateTime(at: Date): string {
  const local = new Date(at.getTime() - 4 * 3_600_000).toISOString();
  return `${ecfDate(local.slice(0, 10))} ${local.slice(11, 19)}`;
}

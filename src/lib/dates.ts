/** Today in the Dominican Republic (UTC−4, no daylight saving), YYYY-MM-DD: DGII dates are local. */
export function dominicanToday(now = new Date()): string {
  return new Date(now.getTime() - 4 * 3_600_000).toISOString().slice(0, 10);
}

/** A YYYY-MM-DD date moved by whole days (calendar arithmetic in UTC, so no daylight-saving drift). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

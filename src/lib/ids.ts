/** The largest id a Postgres `integer` column holds. */
export const MAX_ID = 2_147_483_647;

/**
 * A path id written the one canonical way: decimal digits, no sign, no leading zero, no spaces,
 * within `integer`. `Number()` would also read "01", "0x1", "+1", "1.0" and " 1" as 1, giving one
 * endpoint many spellings (and a rate-limit bucket per spelling): those are null, like any junk.
 */
export function canonicalId(text: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const id = Number(text);
  return id <= MAX_ID ? id : null;
}

import { ownerRow, sql } from "../support/seed";

/** The database's clock to the microsecond, as updated_at is: an instant for filter[updated_since]. */
export async function mark(): Promise<string> {
  const row = await ownerRow<{ t: string }>(sql`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t`);
  return row.t;
}

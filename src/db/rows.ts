import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";

/**
 * A row that came back as JSON (`row_to_json(t)` inside a larger statement) as drizzle's typed
 * row: each column read by its database name and mapped as the driver's value would be (numeric
 * to string, timestamps to Date, …).
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = json[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}

/** The rows of a `db.execute()` result (its type is the driver's, unknown to a driver-neutral handle). */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows?: T[] }).rows ?? [];

/**
 * The one row of a statement certain to return it (an INSERT of one row, an UPDATE or DELETE of a
 * row the transaction holds or just found, an aggregate, a row a foreign key guarantees): a
 * missing row is a bug, thrown here, never an `undefined` to carry on with.
 */
export function oneRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error("a statement certain of its row returned none");
  return row;
}

import type { FieldErrors } from "../../lib/errors";
import type { TestSetProblem } from "./test-set-reader";

/**
 * A test set's problems as a 422's errors, each keyed by its sheet, case and column and saying the
 * row and why: `ECF[101010101E310000000001].MontoTotal` → ["Row 3: MontoTotal must be …"]. The
 * import's refusals and the run's (an issuer that is not the company) read the same.
 */
export function problemErrors(problems: TestSetProblem[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const p of problems) {
    const key = `${p.sheet}[${p.case ?? `row ${p.row}`}].${p.column}`;
    errors[key] = [...(errors[key] ?? []), `Row ${p.row}: ${p.column} ${p.message}`];
  }
  return errors;
}

import { AppError, type FieldErrors } from "../../lib/errors";
import type { TestSetProblem } from "./test-set-reader";

/**
 * Problems a 422 lists: a crafted set can have one per cell (10,000 unknown columns on every row),
 * and a body of megabytes helps no one; the rest are counted (issue 41).
 */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * A test set's problems as a 422's errors, each keyed by its sheet, case and column and saying the
 * row and why: `ECF[101010101E310000000001].MontoTotal` → ["Row 3: MontoTotal must be …"]. The
 * import's refusals and the run's (an issuer that is not the company) read the same. The first
 * MAX_LISTED_PROBLEMS only.
 */
export function problemErrors(problems: TestSetProblem[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const p of problems.slice(0, MAX_LISTED_PROBLEMS)) {
    const key = `${p.sheet}[${p.case ?? `row ${p.row}`}].${p.column}`;
    errors[key] = [...(errors[key] ?? []), `Row ${p.row}: ${p.column} ${p.message}`];
  }
  return errors;
}

/**
 * The 422 of a set's problems: `message`, and when there are more than MAX_LISTED_PROBLEMS, how
 * many are listed and how many more there were (`unlisted`: found but not kept, beyond `problems`).
 */
export function problemsRefusal(message: string, problems: TestSetProblem[], unlisted = 0): AppError {
  const total = problems.length + unlisted;
  const listed = Math.min(problems.length, MAX_LISTED_PROBLEMS);
  const more =
    total > listed
      ? ` The first ${listed} of ${total.toLocaleString("en-US")} problems are listed; ${(total - listed).toLocaleString("en-US")} more are not.`
      : "";
  return new AppError("validation_failed", `${message}${more}`, problemErrors(problems));
}

import { dominicanToday } from "../../lib/dates";
import { fieldError } from "../../lib/errors";

/*
 * The date an e-CF bears (FechaEmision) and the checks every path that issues one makes
 * (docs/fiscal.md, "The date of an e-CF"; issue 41). DGII's texts set no window wider than this:
 * Formato e-CF v1.0 field 37 only validates FechaEmision against the issuer's start as an
 * electronic issuer and field G.1 requires FechaHoraFirma not to be after DGII's clock; Ley 32-23
 * art. 7 makes a signed e-CF unchangeable. So:
 *
 * - an e-CF is dated the Dominican day it is issued and signed (an invoice, a note, a
 *   self-issued E41/E43/E47, a draft issued later), never another day: moved, its sale would fall
 *   in another 607 period, one filed already or one to come;
 * - deferred sending (IndicadorEnvioDiferido, Formato e-CF v1.0 field 6): the offline sale's own
 *   day, for a sale made within the 24 hours DGII gives to receive it (DGII's help answer CA5197,
 *   CERTIFICATION.md "Deferred sending") and not in the future;
 * - a contingency replacement (CodigoModificacion 4, Formato e-CF v1.0 section F): the paper
 *   NCF's day (FechaNCFModificado), when the sale was made, not in the future;
 * - and never before DGII authorized the numbers: the e-NCF sequence's `authorized_at` (the e-CF's
 *   own), the paper contingency range's for a replacement.
 */

/** A device's clock may run a little ahead of the server's: a sale this far in the future is still taken. */
export const DEVICE_CLOCK_TOLERANCE_MS = 5 * 60_000;
/** DGII must have a deferred e-CF within 24 hours of the sale (CERTIFICATION.md, "Deferred sending": CA5197). */
export const DEFERRED_SENDING_LIMIT_MS = 24 * 3_600_000;

/** Not before DGII authorized the range (null: the date was not recorded, nothing to compare). */
function assertAuthorized(field: string, date: string, authorizedAt: string | null | undefined, what: string): void {
  if (authorizedAt && date < authorizedAt) {
    throw fieldError(field, `${what} was authorized by DGII on ${authorizedAt}: a document of it cannot be dated ${date}, before that.`);
  }
}

/**
 * An e-CF issued now (not deferred, not a replacement): its date is `today`, the request's day in
 * the Dominican Republic (lib/dates.ts), within the authorization of its sequence. 422 on `field`
 * otherwise.
 */
export function assertIssuedToday(issueDate: string, sequenceAuthorizedAt: string | null | undefined, today: string, field = "issue_date"): void {
  if (issueDate !== today) {
    throw fieldError(
      field,
      `An e-CF is dated the day it is issued and signed: ${today} in the Dominican Republic (Formato e-CF v1.0, FechaEmision), not ${issueDate}.`,
    );
  }
  assertAuthorized(field, issueDate, sequenceAuthorizedAt, "This e-NCF sequence");
}

/**
 * Deferred sending: the sale was made offline at `offlineIssuedAt` (not ahead of the server's
 * clock beyond the tolerance, nor more than 24 hours ago: DGII would receive it late); the e-CF is
 * dated the sale's Dominican day, on or after its sequence's authorization.
 */
export function assertDeferredDate(issueDate: string, offlineIssuedAt: Date, sequenceAuthorizedAt: string | null | undefined, now: Date): void {
  if (offlineIssuedAt.getTime() > now.getTime() + DEVICE_CLOCK_TOLERANCE_MS || dominicanToday(offlineIssuedAt) > dominicanToday(now)) {
    throw fieldError("offline_issued_at", "The offline sale's time is in the future.");
  }
  if (offlineIssuedAt.getTime() < now.getTime() - DEFERRED_SENDING_LIMIT_MS) {
    throw fieldError(
      "offline_issued_at",
      `DGII must receive a deferred e-CF within 24 hours of the sale (CA5197): a sale made before ${new Date(now.getTime() - DEFERRED_SENDING_LIMIT_MS).toISOString()} is past its window.`,
    );
  }
  const saleDay = dominicanToday(offlineIssuedAt);
  if (issueDate !== saleDay) throw fieldError("issue_date", `An offline sale is issued on its own day: ${saleDay} (offline_issued_at in Santo Domingo).`);
  assertAuthorized("issue_date", issueDate, sequenceAuthorizedAt, "This e-NCF sequence");
}

/**
 * A contingency replacement is dated the paper NCF's day: the day of the sale, which the paper
 * recorded (FechaNCFModificado), on or after its contingency range's authorization and not after
 * today. `issue_date` must repeat it.
 */
export function assertReplacementDate(issueDate: string, paperDate: string, paperRangeAuthorizedAt: string | null | undefined, today: string): void {
  if (paperDate > today) throw fieldError("replaces.issue_date", `The paper NCF's date cannot be in the future (today is ${today} in the Dominican Republic).`);
  assertAuthorized("replaces.issue_date", paperDate, paperRangeAuthorizedAt, "The paper contingency range");
  if (issueDate !== paperDate) {
    throw fieldError(
      "issue_date",
      `A contingency replacement bears the paper NCF's date, the day of the sale: ${paperDate} (replaces.issue_date), not ${issueDate}.`,
    );
  }
}

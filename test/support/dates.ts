import { vi } from "vitest";
import { addDays, dominicanToday } from "../../src/lib/dates";

/**
 * Today in Santo Domingo: the date an e-CF issued now bears (src/modules/ecf/dating.ts). Read it
 * right before the request that issues, and take later expectations from the document's own
 * `issue_date`, so a test that runs across midnight does not compare two days.
 */
export const today = (): string => dominicanToday();

/** `days` from today (negative: before), in Santo Domingo. */
export const daysFromToday = (days: number): string => addDays(dominicanToday(), days);

/** dd-MM-yyyy, as the e-CF and the printed documents write a date. */
export const dmy = (iso: string): string => `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;

/**
 * Runs `act` with the clock frozen at `instant` — the test's and the Worker's: they share one
 * isolate — and gives the real clock back after, whatever happens. How a test issues a document
 * on another day (an e-CF bears the day it is signed) without sleeping.
 */
export async function atInstant<T>(instant: Date | number, act: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"], now: instant });
  try {
    return await act();
  } finally {
    vi.useRealTimers();
  }
}

import { type SQL, sql } from "drizzle-orm";
import type { DgiiMessage } from "./dgii";
import type { ECF_CAUSE_CODES, ECF_TIMELINE_STATES } from "./schemas";

/**
 * Why each entry of an e-CF's timeline happened (issue 43): the code that makes a change writes
 * the entries it adds in the same statement (`ecf_documents.transition`, turned into rows by the
 * trigger of drizzle/0056), so an entry costs no round trip and none is missed. An entry is a
 * change of state (signed, sent, accepted…) or a course entry, an exchange that changed what
 * happens next without changing the state: held (a window, a reported outage, a contingency),
 * unanswered (DGII not reached, or its answer lost), used_number (DGII refused a resend as a used
 * number before the copy it held was found). docs/ecf.md, "Timeline and next action".
 */

export type TimelineState = (typeof ECF_TIMELINE_STATES)[number];
export type CauseCode = (typeof ECF_CAUSE_CODES)[number];

export interface TimelineEntry {
  state: TimelineState;
  code: CauseCode;
  cause: string;
  attempt?: number | null;
  track_id?: string | null;
  user_id?: number | null;
}

/** The entries the last statement wrote (what the row's `transition` holds), oldest first. */
export function writtenEntries(value: unknown): TimelineEntry[] {
  return Array.isArray(value) ? (value as TimelineEntry[]) : [];
}

/** The value a statement sets `transition` to: its entries, as jsonb. */
export function entriesValue(entries: TimelineEntry[]): SQL {
  return sql`${JSON.stringify(entries)}::jsonb`;
}

/**
 * One entry made by a user, its cause `prefix` + the user's name + `suffix`, read in the same
 * statement (a user is named as they are called now, their id kept with the entry).
 */
export function userEntryValue(entry: Omit<TimelineEntry, "cause" | "user_id">, userId: number, prefix: string, suffix = ""): SQL {
  return sql`jsonb_build_array(${JSON.stringify({ ...entry, user_id: userId })}::jsonb || jsonb_build_object('cause',
    ${prefix} || coalesce((SELECT u.name FROM users u WHERE u.id = ${userId}), 'user #' || ${userId}::text) || ${suffix}))`;
}

/** DGII's messages in one line, as causes quote them. */
export function messagesText(messages: DgiiMessage[]): string {
  return messages
    .map((m) => (m.codigo ? `${m.codigo} ${m.valor}` : m.valor))
    .filter(Boolean)
    .join(" | ");
}

const HELD_SENT: Record<string, { code: CauseCode; words: string }> = {
  window: { code: "after_window", words: "after DGII's maintenance window" },
  reported_outage: { code: "after_reported_outage", words: "after DGII's status service reported the service down" },
  contingency: { code: "after_contingency", words: "after the contingency that held it was closed" },
};

/**
 * What a send (or a trackId found and followed) came after, from the entries written last: the
 * first attempt, a retry asked for, what held it (a window, a reported outage, a contingency) or DGII
 * not answering. A row from before these entries existed is told by its attempts.
 */
export function sentAfter(previous: unknown, attempt: number): { code: CauseCode; words: string } {
  const last = writtenEntries(previous).at(-1);
  if (last?.state === "held") return HELD_SENT[last.code] ?? HELD_SENT.window!;
  if (last?.state === "unanswered") return { code: "after_outage", words: "after DGII did not answer an earlier attempt" };
  if (last?.state === "retried") return { code: "after_retry", words: "after it was sent again on request" };
  if (last?.state === "signed" || attempt === 1) return { code: "first_attempt", words: "on the first attempt" };
  return { code: "after_outage", words: "after DGII did not answer an earlier attempt" };
}

/** The last entry written, when it is the same hold (a pause repeated each step is one entry). */
export function sameHold(previous: unknown, code: CauseCode, cause: string): boolean {
  const last = writtenEntries(previous).at(-1);
  return last?.state === "held" && last.code === code && last.cause === cause;
}

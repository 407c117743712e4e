import { Cron } from "croner";

/**
 * The crons of wrangler.toml, fired in `npm run dev` as Cloudflare fires them in production (issue
 * 43): each schedule on its minute, in UTC, through wrangler dev's scheduled handler
 * (`/cdn-cgi/handler/scheduled?cron=…&time=…`, which runs the Worker's `scheduled` with that cron
 * and scheduledTime). wrangler dev fires none by itself.
 *
 * Schedules are read as Cloudflare reads them ("Supported cron expressions": five fields, UTC,
 * Quartz-like, weekdays 1-7 with 1 = Sunday, or SUN-SAT), by croner in its Quartz weekday mode.
 */

/** The clock the runner reads and waits on: the real one in `npm run dev`, a driven one in tests. */
export interface CronClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: CronClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const MINUTE_MS = 60_000;

/** A schedule as Cloudflare reads it; throws on one it would not take. */
export function cronSchedule(expression: string): Cron {
  return new Cron(expression, { timezone: "UTC", paused: true, alternativeWeekdays: true });
}

/** The schedules due at `minute` (an instant on a whole minute, UTC), in wrangler.toml's order. */
export function cronsDueAt(schedules: readonly { expression: string; schedule: Cron }[], minute: number): string[] {
  return schedules.filter(({ schedule }) => schedule.match(new Date(minute))).map(({ expression }) => expression);
}

export interface CronRunner {
  stop(): void;
}

/**
 * From the next whole minute on, at each minute, fires every schedule due then (`fire(cron,
 * scheduledTime)`, not awaited: a slow run never delays the next minute's, as in production). A
 * minute the process slept through is not fired late: the next whole minute after waking is.
 */
export function startCronRunner(options: {
  crons: readonly string[];
  fire: (cron: string, scheduledTime: number) => Promise<unknown>;
  clock?: CronClock;
  onError?: (cron: string, error: unknown) => void;
}): CronRunner {
  const clock = options.clock ?? systemClock;
  const schedules = options.crons.map((expression) => ({ expression, schedule: cronSchedule(expression) }));
  let timer: unknown = null;
  let stopped = false;
  let last = -1;
  const arm = () => {
    if (stopped) return;
    const now = clock.now();
    const next = Math.max(Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS, last + MINUTE_MS);
    timer = clock.setTimeout(() => tick(next), next - now);
  };
  const tick = (minute: number) => {
    if (stopped) return;
    // A timer that fired late by more than a minute (a laptop asleep) fires the minute it is in.
    const current = Math.floor(clock.now() / MINUTE_MS) * MINUTE_MS;
    const at = current > minute ? current : minute;
    last = at;
    for (const cron of cronsDueAt(schedules, at)) {
      options.fire(cron, at).catch((error: unknown) => options.onError?.(cron, error));
    }
    arm();
  };
  arm();
  return {
    stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
    },
  };
}

/** Fires one cron through wrangler dev's scheduled handler at `origin`; a non-2xx answer is an error. */
export async function fireThroughWranglerDev(origin: string, cron: string, scheduledTime: number): Promise<void> {
  const url = `${origin}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}&time=${scheduledTime}`;
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
}

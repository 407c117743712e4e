import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readWranglerToml } from "../../scripts/deploy";
import { devCrons } from "../../scripts/dev";
import { type CronClock, cronSchedule, cronsDueAt, startCronRunner } from "../../scripts/lib/crons";

/**
 * `npm run dev` runs the clock as production does (issue 43): wrangler.toml's schedules, each on its
 * minute, in UTC, as Cloudflare reads them. The runner is driven here by a clock the test moves;
 * the end-to-end check (a held e-CF sent by itself once the DGII stand-in is back) is in
 * docs-offline.test.ts, on the `npm run dev` that file starts anyway.
 */

/** A clock whose time only the test moves; its timers fire as it passes them. */
function drivenClock(start: string) {
  let now = Date.parse(start);
  const timers: { at: number; run: () => void; id: number }[] = [];
  let ids = 0;
  const clock: CronClock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = ++ids;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimeout: (handle) => {
      const at = timers.findIndex((timer) => timer.id === handle);
      if (at >= 0) timers.splice(at, 1);
    },
  };
  /** Moves to `to`, firing each timer due on the way at its own time. */
  const advance = (to: string) => {
    const target = Date.parse(to);
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > target) break;
      timers.shift();
      now = next.at;
      next.run();
    }
    now = target;
  };
  /** Jumps to `to` without firing anything on the way (a laptop asleep), then fires, late, what was due. */
  const sleepUntil = (to: string) => {
    now = Date.parse(to);
    for (const timer of timers.filter((t) => t.at <= now)) {
      timers.splice(timers.indexOf(timer), 1);
      timer.run();
    }
  };
  return { clock, advance, sleepUntil, pending: () => timers.length };
}

const WRANGLER_CRONS = readWranglerToml(fs.readFileSync(path.resolve(import.meta.dirname, "../../wrangler.toml"), "utf8")).crons;

describe("npm run dev's cron runner", () => {
  it("reads wrangler.toml's three schedules, and takes --no-cron", () => {
    expect(WRANGLER_CRONS).toEqual(["0 6 * * SUN", "* * * * *", "0 * * * *"]);
    expect(devCrons([])).toBe(true);
    expect(devCrons(["--port", "8790"])).toBe(true);
    expect(devCrons(["--no-cron"])).toBe(false);
  });

  it("matches minutes as Cloudflare does: UTC, weekdays 1-7 with 1 = Sunday", () => {
    const schedules = WRANGLER_CRONS.map((expression) => ({ expression, schedule: cronSchedule(expression) }));
    // 2026-05-03 is a Sunday.
    expect(cronsDueAt(schedules, Date.parse("2026-05-03T06:00:00Z"))).toEqual(["0 6 * * SUN", "* * * * *", "0 * * * *"]);
    expect(cronsDueAt(schedules, Date.parse("2026-05-04T06:00:00Z"))).toEqual(["* * * * *", "0 * * * *"]);
    expect(cronsDueAt(schedules, Date.parse("2026-05-03T06:01:00Z"))).toEqual(["* * * * *"]);
    // Cloudflare's numeric weekdays: "0 17 * * 1" is 5 PM on Sunday ("Supported cron expressions").
    const sunday = [{ expression: "0 17 * * 1", schedule: cronSchedule("0 17 * * 1") }];
    expect(cronsDueAt(sunday, Date.parse("2026-05-03T17:00:00Z"))).toEqual(["0 17 * * 1"]);
    expect(cronsDueAt(sunday, Date.parse("2026-05-04T17:00:00Z"))).toEqual([]);
  });

  it("fires each schedule on its minute with that minute as scheduledTime, not before, and skips the minutes it slept through", async () => {
    const { clock, advance, sleepUntil, pending } = drivenClock("2026-05-03T05:58:30.250Z");
    const fired: [string, string][] = [];
    const errors: string[] = [];
    const runner = startCronRunner({
      crons: WRANGLER_CRONS,
      clock,
      fire: async (cron, time) => {
        fired.push([cron, new Date(time).toISOString()]);
        if (cron === "0 * * * *") throw new Error("the Worker answered 500");
      },
      onError: (cron, error) => errors.push(`${cron}: ${(error as Error).message}`),
    });
    advance("2026-05-03T05:58:59.999Z");
    expect(fired).toEqual([]);
    advance("2026-05-03T06:00:00.000Z");
    expect(fired).toEqual([
      ["* * * * *", "2026-05-03T05:59:00.000Z"],
      ["0 6 * * SUN", "2026-05-03T06:00:00.000Z"],
      ["* * * * *", "2026-05-03T06:00:00.000Z"],
      ["0 * * * *", "2026-05-03T06:00:00.000Z"],
    ]);
    // A failing run is reported and the next minutes still fire.
    await Promise.resolve();
    expect(errors).toEqual(["0 * * * *: the Worker answered 500"]);
    fired.length = 0;
    advance("2026-05-03T06:02:10.000Z");
    expect(fired).toEqual([
      ["* * * * *", "2026-05-03T06:01:00.000Z"],
      ["* * * * *", "2026-05-03T06:02:00.000Z"],
    ]);
    // Asleep from 06:02:10 to 07:00:30: 06:03 to 06:59 are not fired late; the minute it wakes in is.
    fired.length = 0;
    sleepUntil("2026-05-03T07:00:30.000Z");
    expect(fired).toEqual([
      ["* * * * *", "2026-05-03T07:00:00.000Z"],
      ["0 * * * *", "2026-05-03T07:00:00.000Z"],
    ]);
    advance("2026-05-03T07:01:00.000Z");
    expect(fired.at(-1)).toEqual(["* * * * *", "2026-05-03T07:01:00.000Z"]);
    runner.stop();
    expect(pending()).toBe(0);
    advance("2026-05-03T07:05:00.000Z");
    expect(fired).toHaveLength(3);
  });
});

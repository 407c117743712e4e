import { withTenantTransaction } from "../db/client";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import { DgiiUnavailable } from "../modules/ecf/dgii";
import { readDgiiStatusService, recordDgiiStatus } from "../modules/ecf/dgii-status";
import { enqueueEcf } from "./messages";

/**
 * The minute sweep of DGII's status service (modules/ecf/dgii-status.ts): off without
 * DGII_STATUS_API_KEY; DGII's status host unreachable keeps the last known state, which stops
 * pausing sends once it is 5 minutes old.
 */
export async function sweepDgiiStatus(env: Env, options: { now?: Date } = {}): Promise<"off" | "recorded" | "unreachable"> {
  const settings = config(env);
  if (!settings.DGII_STATUS_API_KEY) return "off";
  const now = options.now ?? new Date();
  try {
    const { services, windows } = await readDgiiStatusService(settings, settings.DGII_STATUS_API_KEY);
    const { contingenciesClosed, released } = await withTenantTransaction(env, null, (db) => recordDgiiStatus(db, now, services, windows));
    // What the closed contingencies held goes now, not at the next minute's e-CF sweep: a minute's
    // worth of each company (its pace); the rest is the sweep's, fairly between companies (issue 48).
    if (contingenciesClosed) {
      const taken = new Map<number, number>();
      const first = released.filter((ref) => {
        const count = (taken.get(ref.tenant_id) ?? 0) + 1;
        taken.set(ref.tenant_id, count);
        return count <= settings.ECF_SENDS_PER_MINUTE;
      });
      log.info("dgii status: reception back; total contingencies closed", {
        closed: contingenciesClosed,
        released: released.length,
        enqueued: await enqueueEcf(env, first),
      });
    }
    const down = services.filter((s) => !s.available);
    if (down.length) log.warn("dgii status: services down", { down: down.map((s) => `${s.environment} ${s.service}`) });
    return "recorded";
  } catch (error) {
    if (!(error instanceof DgiiUnavailable)) throw error;
    log.warn("dgii status: unreachable", { error: error.message });
    return "unreachable";
  }
}

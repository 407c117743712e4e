import fs from "node:fs";
import path from "node:path";
import { type DatabaseTarget, portAnswers, ROOT, runMigrations, startEmbedded } from "./database";

export const DEV_DATA_DIR = path.join(ROOT, ".dev-data", "pglite");
export const DEV_STATE_FILE = path.join(ROOT, ".dev-data", "dev.json");

/** What `npm run dev` leaves for other local commands: where its embedded Postgres listens. */
export interface DevState {
  embeddedPort: number;
  pid: number;
}

export function readDevState(): DevState | null {
  try {
    const state = JSON.parse(fs.readFileSync(DEV_STATE_FILE, "utf8")) as DevState;
    process.kill(state.pid, 0);
    return state;
  } catch {
    return null;
  }
}

/**
 * The database of operator commands: DATABASE_URL when set; else the embedded database of a
 * running `npm run dev`; else the same embedded data folder opened directly.
 */
export async function openOperatorDatabase(): Promise<DatabaseTarget> {
  if (process.env.DATABASE_URL) {
    const url = process.env.DATABASE_URL;
    return { kind: "external", ownerUrl: url, appUrl: url, setRole: "sucursal_app", tcpAddress: "", stop: async () => undefined };
  }
  const state = readDevState();
  if (state && (await portAnswers("127.0.0.1", state.embeddedPort))) {
    const url = `postgres://postgres@127.0.0.1:${state.embeddedPort}/postgres`;
    return {
      kind: "embedded",
      ownerUrl: url,
      appUrl: url,
      setRole: "sucursal_app",
      tcpAddress: `127.0.0.1:${state.embeddedPort}`,
      stop: async () => undefined,
    };
  }
  fs.mkdirSync(DEV_DATA_DIR, { recursive: true });
  const target = await startEmbedded(DEV_DATA_DIR);
  await runMigrations(target.ownerUrl);
  return target;
}

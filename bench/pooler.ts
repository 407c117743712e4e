/**
 * PgBouncer in transaction mode in front of the bench database: what Neon's pooled endpoint
 * (`-pooler` host, PgBouncer) gives the Worker in production. Without it every request's new
 * connection forks a Postgres backend (measured here: pgbench -C tops out near 420 trivial
 * transactions/s on 2 cores) and plans every statement in a cold backend.
 *
 * PgBouncer comes from Debian's packages: when it is missing and the bench runs as root with
 * apt-get, it installs it (`apt-get install -y pgbouncer`); otherwise the bench runs without a
 * pooler and says so in its results.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { freePort, portAnswers } from "../scripts/lib/database";

const exec = promisify(execFile);

export interface Pooler {
  port: number;
  version: string;
  stop(): Promise<void>;
}

async function findBinary(): Promise<string | null> {
  for (const candidate of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]) if (fs.existsSync(candidate)) return candidate;
  const found = await exec("sh", ["-c", "command -v pgbouncer"]).catch(() => null);
  return found?.stdout.trim() || null;
}

async function installBinary(log: (line: string) => void): Promise<string | null> {
  if (process.getuid?.() !== 0 || !fs.existsSync("/usr/bin/apt-get")) return null;
  log("pgbouncer not found: apt-get install -y pgbouncer …");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => exec("apt-get", ["install", "-y", "--no-install-recommends", "pgbouncer"], { env, timeout: 300_000, maxBuffer: 64 << 20 });
  try {
    await install();
  } catch {
    await exec("apt-get", ["update"], { env, timeout: 300_000, maxBuffer: 64 << 20 }).catch(() => undefined);
    await install().catch(() => undefined);
  }
  // The Debian package starts its own service on 6432; ours runs with its own configuration.
  await exec("sh", ["-c", "service pgbouncer stop || true"], { timeout: 30_000 }).catch(() => undefined);
  return findBinary();
}

/** Starts PgBouncer on a free loopback port in front of `target`, or returns null (no binary). */
export async function startPooler(options: {
  dir: string;
  target: { host: string; port: number };
  users: string[];
  poolSize: number;
  log: (line: string) => void;
}): Promise<Pooler | null> {
  const binary = (await findBinary()) ?? (await installBinary(options.log));
  if (!binary) return null;
  const version = ((await exec(binary, ["--version"]).catch(() => ({ stdout: "" }))).stdout.split("\n")[0] ?? "").trim();
  const port = await freePort();
  fs.mkdirSync(options.dir, { recursive: true });
  const config = path.join(options.dir, "pgbouncer.ini");
  const users = path.join(options.dir, "pgbouncer-users.txt");
  fs.writeFileSync(users, `${options.users.map((u) => `"${u}" ""`).join("\n")}\n`);
  fs.writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${options.target.host} port=${options.target.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${users}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize}`,
      "max_client_conn = 2000",
      // The neon driver and pgbench send these startup parameters; PgBouncer would refuse them.
      "ignore_startup_parameters = extra_float_digits,options",
      "",
    ].join("\n"),
  );
  for (const file of [config, users]) fs.chmodSync(file, 0o644);
  // PgBouncer refuses to run as root: as the postgres account, when we are root.
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(binary, asRoot ? ["-u", "postgres", config] : [config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  for (let i = 0; i < 100 && !(await portAnswers("127.0.0.1", port)); i++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!(await portAnswers("127.0.0.1", port))) throw new Error(`pgbouncer did not listen on ${port}: ${stderr}`);
  return {
    port,
    version,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        for (let i = 0; i < 30 && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    },
  };
}

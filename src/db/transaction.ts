/**
 * One transaction on one connection, for the code that holds a raw connection: Node scripts and
 * benches (pg) and the test seed (neon's pool). The Worker's request transaction, which sends more
 * statements with BEGIN and commits after the handler, is RequestTransaction (client.ts).
 */

/** What a connection of either driver offers. */
interface QueryClient {
  query(text: string): Promise<unknown>;
}

const ROLE_NAME = /^[a-z_][a-z0-9_]*$/;

/** `SET LOCAL ROLE …`; the role is inlined (no parameters in SET), so it must be a plain name. */
export function setLocalRole(role: string): string {
  if (!ROLE_NAME.test(role)) throw new Error(`${JSON.stringify(role)} is not a plain role name`);
  return `SET LOCAL ROLE ${role}`;
}

/**
 * Runs `work` between BEGIN and COMMIT on `client`; ROLLBACK (its own failure ignored: the
 * connection may be the thing that failed) and the error rethrown when it throws. With `setRole`,
 * the transaction runs as that role (a privileged login acting as the application role).
 */
export async function inTransaction<T>(client: QueryClient, work: () => Promise<T>, options: { setRole?: string } = {}): Promise<T> {
  await client.query(options.setRole ? `BEGIN; ${setLocalRole(options.setRole)}` : "BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

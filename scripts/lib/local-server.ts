import type http from "node:http";
import type { AddressInfo } from "node:net";

/** A local stand-in listening on a free loopback port: its base URL and how to stop it. */
export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

/** A stand-in run on its own (`npx tsx scripts/fake-dgii.ts`): says where it listens, and stops on Ctrl-C. */
export async function serveUntilStopped(what: string, started: Promise<LocalServer>): Promise<void> {
  const server = await started;
  console.log(`${what} is listening on ${server.url}. Ctrl-C stops it.`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

export async function listenOnLoopback(server: http.Server): Promise<LocalServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

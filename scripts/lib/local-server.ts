import type http from "node:http";
import type { AddressInfo } from "node:net";

/** A local stand-in listening on a free loopback port: its base URL and how to stop it. */
export interface LocalServer {
  url: string;
  close(): Promise<void>;
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

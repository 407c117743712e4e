import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { command, commandLine, isMain } from "./lib/args";
import { listenOnLoopback, serveUntilStopped } from "./lib/local-server";

/**
 * A local HTTP server standing in for DGII's download (tests and the bench):
 * `PUT /files/<name>` stores a body in memory, `GET /files/<name>` serves it (or the file of that
 * name in `dir`, streamed from disk), `GET /status/<code>` answers that status. Loopback only.
 */
export interface FileServer {
  url: string;
  close(): Promise<void>;
}

export async function startFileServer(options: { dir?: string } = {}): Promise<FileServer> {
  const files = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (status) {
      res.writeHead(Number(status[1]), { "content-type": "text/plain" }).end("status\n");
      return;
    }
    const file = /^\/files\/([\w.-]+)$/.exec(url.pathname);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    const name = file[1]!;
    if (req.method === "PUT") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        files.set(name, Buffer.concat(chunks));
        res.writeHead(201).end();
      });
      return;
    }
    const stored = files.get(name);
    if (stored) {
      res.writeHead(200, { "content-type": "application/zip", "content-length": stored.length }).end(stored);
      return;
    }
    const onDisk = options.dir ? path.join(options.dir, name) : null;
    if (onDisk && fs.existsSync(onDisk)) {
      res.writeHead(200, { "content-type": "application/zip", "content-length": fs.statSync(onDisk).size });
      fs.createReadStream(onDisk).pipe(res);
      return;
    }
    res.writeHead(404).end();
  });
  return listenOnLoopback(server);
}

export const COMMAND = command({
  usage: `Usage: npx tsx scripts/rnc-file-server.ts [-- --dir PATH]

The stand-in for DGII's RNC download on a free loopback port: GET /files/<name> serves the file of
that name in --dir (or one PUT there), GET /status/<code> answers that status. Ctrl-C stops it.`,
  options: { dir: { type: "string" } },
});

if (isMain(import.meta.url)) {
  const { values } = commandLine(COMMAND);
  void serveUntilStopped("The file server", startFileServer({ dir: values.dir }));
}

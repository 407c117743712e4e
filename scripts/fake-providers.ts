import { randomUUID } from "node:crypto";
import http from "node:http";
import { Webhook } from "standardwebhooks";
import { command, commandLine, isMain } from "./lib/args";
import { listenOnLoopback, serveUntilStopped } from "./lib/local-server";

/**
 * One local HTTP server standing in for the three integration platforms during tests (loopback only):
 *
 * - Resend under `/resend`: `POST /emails` (Bearer key, `Idempotency-Key` honoured like Resend: a key
 *   already answered returns the same id and records no second delivery).
 * - Telegram Bot API under `/telegram`: `/bot<token>/getMe|sendMessage|setWebhook|deleteWebhook`.
 *   A token containing `invalid` is refused (401 Unauthorized); chat_id `missing` → 400 chat not found.
 * - Graph (WhatsApp Cloud API) under `/graph/v21.0`: `POST|GET /<business_account_id>/message_templates`,
 *   `POST /<phone_number_id>/messages`. The access token `invalid` is refused (190 OAuthException).
 *
 * Everything is keyed by something unique per test (the email recipient, the bot token, the
 * business account or phone number id), so parallel test files never see each other's traffic.
 * Control endpoints:
 * - `POST /_control/fail {service, key, times = 1 (-1: always), status = 500, description?, method?, mode?: "error"|"drop"}`:
 *   the next `times` requests for `key` fail with `status` (or, with `drop`, the connection is cut).
 * - `POST /_control/clear-failures {service, key}`.
 * - `GET /_control/requests?service=&key=`: what was received for `key` (`resend` also lists deliveries).
 * - `POST /_control/graph/template-status {business_account_id, name, language, status}`.
 *
 * And a webhook receiver under `/receiver/<key>` (our outgoing webhooks, test/webhooks): it answers
 * 200 unless a failure rule (service `receiver`) says otherwise, and records each request with its
 * raw body and, for every secret given by `POST /_control/receiver-secrets {key, secrets: {name: whsec_…}}`,
 * whether the Standard Webhooks library verifies the request with it (`verified: {name: boolean}`).
 * Mode `slow` answers 200 after 6 s (beyond our 5 s timeout).
 *
 * And a DNS-over-HTTPS resolver in the JSON form Cloudflare's and Google's serve (`GET /dns-query?name=&type=A|AAAA`,
 * `accept: application/dns-json`), which webhook endpoint hosts are resolved through: a name answers
 * what `POST /_control/dns {name, A?: [...], AAAA?: [...], nxdomain?: true, status?: 500}` scripted
 * for it (a CNAME record first, as real resolvers give the chain), else one public address
 * (93.184.215.14) and no IPv6. `status` makes the resolver itself fail for that name.
 */
export interface FakeProviders {
  url: string;
  close(): Promise<void>;
}

type Service = "resend" | "telegram" | "graph" | "receiver";

interface FailureRule {
  remaining: number;
  status: number;
  description?: string;
  method?: string;
  mode: "error" | "drop" | "slow";
}

interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  at: string;
  raw?: string;
  verified?: Record<string, boolean>;
}

interface Template {
  id: string;
  name: string;
  language: string;
  category: string;
  components: unknown;
  status: string;
}

export async function startFakeProviders(): Promise<FakeProviders> {
  const failures = new Map<string, FailureRule>();
  const received = new Map<string, Received[]>();
  const deliveries = new Map<string, { id: string; idempotency_key: string | null; body: unknown }[]>();
  const idempotency = new Map<string, string>();
  const templates = new Map<string, Map<string, Template>>();
  const receiverSecrets = new Map<string, Record<string, string>>();
  const dnsNames = new Map<string, { A?: string[]; AAAA?: string[]; nxdomain?: boolean; status?: number }>();
  let counter = 1000;

  const slot = (service: Service, key: string) => `${service}:${key}`;
  const record = (service: Service, key: string, entry: Received) => {
    const list = received.get(slot(service, key)) ?? [];
    list.push(entry);
    received.set(slot(service, key), list);
  };
  /** A failure rule that applies to this request, consumed. */
  const failureFor = (service: Service, key: string, method: string): FailureRule | null => {
    const rule = failures.get(slot(service, key));
    if (!rule || rule.remaining === 0 || (rule.method && rule.method !== method)) return null;
    if (rule.remaining > 0) rule.remaining--;
    return rule;
  };
  const templatesOf = (waba: string) => {
    let map = templates.get(waba);
    if (!map) {
      map = new Map();
      templates.set(waba, map);
    }
    return map;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
      };
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v ?? "")]));
      const entry = (method: string): Received => ({ method, path: url.pathname, headers, body, at: new Date().toISOString() });
      const failWith = (rule: FailureRule, shape: (status: number, description: string) => unknown) => {
        if (rule.mode === "drop") {
          req.socket.destroy();
          return;
        }
        if (rule.mode === "slow") {
          setTimeout(() => send(200, { late: true }), 6000);
          return;
        }
        send(rule.status, shape(rule.status, rule.description ?? "Internal Server Error"));
      };

      // ---- control
      if (url.pathname === "/_control/fail" && req.method === "POST") {
        failures.set(slot(body.service, String(body.key)), {
          remaining: body.times ?? 1,
          status: body.status ?? 500,
          description: body.description,
          method: body.method,
          mode: body.mode ?? "error",
        });
        return send(200, { ok: true });
      }
      if (url.pathname === "/_control/clear-failures" && req.method === "POST") {
        failures.delete(slot(body.service, String(body.key)));
        return send(200, { ok: true });
      }
      if (url.pathname === "/_control/requests") {
        const service = url.searchParams.get("service") as Service;
        const key = url.searchParams.get("key") ?? "";
        return send(200, { requests: received.get(slot(service, key)) ?? [], deliveries: deliveries.get(key) ?? [] });
      }
      if (url.pathname === "/_control/receiver-secrets" && req.method === "POST") {
        receiverSecrets.set(String(body.key), body.secrets ?? {});
        return send(200, { ok: true });
      }
      if (url.pathname === "/_control/dns" && req.method === "POST") {
        dnsNames.set(String(body.name).toLowerCase(), body);
        return send(200, { ok: true });
      }

      // ---- DNS over HTTPS (JSON)
      if (url.pathname === "/dns-query" && req.method === "GET") {
        const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
        const type = url.searchParams.get("type") === "AAAA" ? "AAAA" : "A";
        const scripted = dnsNames.get(name);
        if (scripted?.status) return send(scripted.status, { error: "resolver failure" });
        const question = [{ name: `${name}.`, type: type === "A" ? 1 : 28 }];
        if (scripted?.nxdomain) return send(200, { Status: 3, Question: question });
        const addresses = scripted ? (scripted[type] ?? []) : type === "A" ? ["93.184.215.14"] : [];
        const target = `edge.${name}.`;
        const answer = addresses.length
          ? [{ name: `${name}.`, type: 5, TTL: 300, data: target }, ...addresses.map((data) => ({ name: target, type: type === "A" ? 1 : 28, TTL: 300, data }))]
          : [];
        return send(200, { Status: 0, TC: false, RD: true, RA: true, AD: false, CD: false, Question: question, Answer: answer });
      }
      if (url.pathname === "/_control/graph/template-status" && req.method === "POST") {
        const template = templatesOf(String(body.business_account_id)).get(`${body.name}|${body.language}`);
        if (!template) return send(404, { ok: false });
        template.status = body.status;
        return send(200, { ok: true, id: template.id });
      }

      // ---- Resend
      if (url.pathname === "/resend/emails" && req.method === "POST") {
        const to = Array.isArray(body?.to) ? String(body.to[0]) : String(body?.to ?? "");
        record("resend", to, entry("emails"));
        const rule = failureFor("resend", to, "emails");
        if (rule) return failWith(rule, (status, message) => ({ statusCode: status, name: "application_error", message }));
        if (!/^Bearer \S+$/.test(headers.authorization ?? "")) {
          return send(401, { statusCode: 401, name: "missing_api_key", message: "Missing API key in the authorization header" });
        }
        if (!body?.from || !to || !body?.subject) return send(422, { statusCode: 422, name: "validation_error", message: "Missing fields" });
        const key = headers["idempotency-key"] || null;
        if (key && idempotency.has(key)) return send(200, { id: idempotency.get(key) });
        const id = randomUUID();
        if (key) idempotency.set(key, id);
        const list = deliveries.get(to) ?? [];
        list.push({ id, idempotency_key: key, body });
        deliveries.set(to, list);
        return send(200, { id });
      }

      // ---- Webhook receiver
      const receiver = /^\/receiver\/([^/]+)$/.exec(url.pathname);
      if (receiver && req.method === "POST") {
        const key = decodeURIComponent(receiver[1]!);
        const verified: Record<string, boolean> = {};
        for (const [name, secret] of Object.entries(receiverSecrets.get(key) ?? {})) {
          try {
            new Webhook(secret).verify(raw, headers);
            verified[name] = true;
          } catch {
            verified[name] = false;
          }
        }
        record("receiver", key, { ...entry("POST"), raw, verified });
        const rule = failureFor("receiver", key, "POST");
        if (rule) return failWith(rule, (_status, description) => ({ error: description }));
        return send(200, { received: true });
      }

      // ---- Telegram
      const telegram = /^\/telegram\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (telegram) {
        const token = decodeURIComponent(telegram[1]!);
        const method = telegram[2]!;
        record("telegram", token, entry(method));
        const rule = failureFor("telegram", token, method);
        if (rule) return failWith(rule, (status, description) => ({ ok: false, error_code: status, description }));
        if (token.includes("invalid")) return send(401, { ok: false, error_code: 401, description: "Unauthorized" });
        switch (method) {
          case "getMe":
            return send(200, {
              ok: true,
              result: { id: 7000000000 + (counter++ % 1000000), is_bot: true, first_name: "Sucursal test bot", username: `sucursal_${counter}_bot` },
            });
          case "sendMessage":
            if (!body?.chat_id || !body?.text) return send(400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" });
            if (String(body.chat_id) === "missing") return send(400, { ok: false, error_code: 400, description: "Bad Request: chat not found" });
            return send(200, {
              ok: true,
              result: { message_id: counter++, chat: { id: body.chat_id, type: "private" }, date: Math.floor(Date.now() / 1000), text: body.text },
            });
          case "setWebhook":
            if (!body?.url) return send(400, { ok: false, error_code: 400, description: "Bad Request: bad webhook: URL must be provided" });
            return send(200, { ok: true, result: true, description: "Webhook was set" });
          case "deleteWebhook":
            return send(200, { ok: true, result: true, description: "Webhook was deleted" });
          default:
            return send(404, { ok: false, error_code: 404, description: "Not Found" });
        }
      }

      // ---- Graph
      const graph = /^\/graph\/v[\d.]+\/([^/]+)\/(message_templates|messages)$/.exec(url.pathname);
      if (graph) {
        const key = decodeURIComponent(graph[1]!);
        const edge = graph[2]!;
        const method = `${req.method} ${edge}`;
        record("graph", key, entry(method));
        const graphError = (status: number, message: string) => ({
          error: { message, type: "OAuthException", code: status >= 500 ? 2 : 100, error_user_msg: message, fbtrace_id: "Afake" },
        });
        const rule = failureFor("graph", key, method);
        if (rule) return failWith(rule, graphError);
        const auth = headers.authorization ?? "";
        if (!auth.startsWith("Bearer ") || auth === "Bearer invalid") {
          return send(401, {
            error: { message: "Invalid OAuth access token - Cannot parse access token", type: "OAuthException", code: 190, fbtrace_id: "Afake" },
          });
        }
        if (edge === "message_templates" && req.method === "POST") {
          const map = templatesOf(key);
          const name = String(body?.name ?? "");
          const language = String(body?.language ?? "");
          if (map.has(`${name}|${language}`)) return send(400, graphError(400, `Content in this language already exists for ${name}`));
          const template: Template = {
            id: String(counter++ * 1000 + 7),
            name,
            language,
            category: body?.category,
            components: body?.components ?? [],
            status: "PENDING",
          };
          map.set(`${name}|${language}`, template);
          return send(200, { id: template.id, status: template.status, category: template.category });
        }
        if (edge === "message_templates" && req.method === "GET") {
          return send(200, { data: [...templatesOf(key).values()], paging: { cursors: { before: "b", after: "a" } } });
        }
        if (edge === "messages" && req.method === "POST") {
          if (body?.messaging_product !== "whatsapp") return send(400, graphError(400, "The parameter messaging_product is required."));
          return send(200, {
            messaging_product: "whatsapp",
            contacts: [{ input: body.to, wa_id: String(body.to).replace(/\D/g, "") }],
            messages: [{ id: `wamid.FAKE${counter++}` }],
          });
        }
      }
      send(404, { message: "fake providers: no such route" });
    });
  });
  return listenOnLoopback(server);
}

export const COMMAND = command({
  usage: `Usage: npx tsx scripts/fake-providers.ts

The local stand-ins of Resend (/resend), Telegram (/telegram), Graph (/graph/v21.0) and a webhook
receiver (/receiver/<key>) on a free loopback port, as the tests use them. Takes no options;
Ctrl-C stops it.`,
  options: {},
});

if (isMain(import.meta.url)) {
  commandLine(COMMAND);
  void serveUntilStopped("The fake providers", startFakeProviders());
}

import { extractText, getDocumentProxy } from "unpdf";
import { TEST_DOMAIN, workerFetch } from "./api";

/** A request whose response body is kept as bytes (the client helper reads text). */
export async function fetchBytes(
  subdomain: string,
  token: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, "cf-connecting-ip": "10.9.9.9", ...init.headers };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await workerFetch(
    new Request(`http://${subdomain}.${TEST_DOMAIN}/api/v1${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
  );
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

export async function pdfText(bytes: Uint8Array): Promise<string> {
  // pdf.js takes ownership of (detaches) the buffer it is given, and ZIP entries share one: copy.
  const pdf = await getDocumentProxy(bytes.slice());
  const { text } = await extractText(pdf, { mergePages: true });
  return text as string;
}

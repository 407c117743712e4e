import type { Context } from "hono";

/**
 * A rendered PDF as a download (200, application/pdf, attachment; filename). pdf-lib declares
 * `save()` as `Uint8Array<ArrayBufferLike>` while `c.body` only takes an ArrayBuffer-backed array
 * (a SharedArrayBuffer cannot be sent); pdf-lib always allocates a plain ArrayBuffer, so this one
 * narrowing cast states that fact instead of each route casting the response to `never`.
 */
export function pdfAttachment(c: Context, bytes: Uint8Array, filename: string) {
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="${filename}"`,
  });
}

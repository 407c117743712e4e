import { downloadZip } from "client-zip";
import { log } from "../../lib/log";
import { type PdfDocumentData, renderDocumentPdf } from "../sales/pdf";

interface ZipEntry {
  id: number;
  documentNumber: string;
  updatedAt: Date;
  pdf: PdfDocumentData;
}

/**
 * A ZIP of one `<document_number>.pdf` per entry, as a stream: each PDF is rendered only when the
 * stream is pulled past the previous one, so at most one rendered PDF is held at a time and the
 * first bytes leave before the last PDF exists. The entries must already hold everything the PDFs
 * show: nothing here touches the database (the request's transaction is over by then).
 */
export function pdfZipStream(
  entries: ZipEntry[],
  options: { requestId?: string; render?: (data: PdfDocumentData) => Promise<Uint8Array> } = {},
): ReadableStream<Uint8Array> {
  const render = options.render ?? renderDocumentPdf;
  async function* files() {
    for (const entry of entries) {
      let bytes: Uint8Array;
      try {
        bytes = await render(entry.pdf);
      } catch (error) {
        log.error("pdf rendering failed inside a zip stream", { requestId: options.requestId, id: entry.id, error: String(error) });
        throw error;
      }
      yield { name: `${entry.documentNumber}.pdf`, lastModified: entry.updatedAt, input: bytes };
    }
  }
  return downloadZip(files()).body!;
}

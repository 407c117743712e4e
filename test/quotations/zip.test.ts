import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { formatDocumentNumber } from "../../src/lib/ncf";
import { pdfZipStream } from "../../src/modules/quotations/zip";
import type { PdfDocumentData } from "../../src/modules/sales/pdf";
import { renderDocumentPdf } from "../../src/modules/sales/pdf";

const data = (n: number): PdfDocumentData => ({
  title: "Cotización",
  numberLabel: "No.",
  issuer: { legalName: "Acme SRL", tradeName: null, rnc: null, address: null, branchName: "Principal", branchAddress: null },
  documentNumber: formatDocumentNumber("COT", n),
  subtypeName: "Cotización",
  issueDate: "2026-11-20",
  dueDate: null,
  dueDateLabel: "Válida hasta",
  customer: { name: "Cliente", identification: null, identificationType: null },
  lines: [
    {
      description: "Servicio",
      quantity: "1.00",
      unitPrice: "10.00",
      discount: "0.00",
      discountAmount: "0.00",
      taxes: "",
      itbis: "0.00",
      amount: "10.00",
      total: "10.00",
    },
  ],
  taxBreakdown: [],
  totals: [{ label: "Total", value: "10.00", bold: true }],
  notes: null,
});

describe("bulk PDF ZIP stream", () => {
  it("renders each PDF only as the stream is pulled, never all up front", async () => {
    const rendered: string[] = [];
    const render = async (pdf: PdfDocumentData) => {
      rendered.push(pdf.documentNumber);
      return renderDocumentPdf(pdf);
    };
    const entries = Array.from({ length: 10 }, (_, i) => ({
      id: i + 1,
      documentNumber: data(i + 1).documentNumber,
      updatedAt: new Date("2026-11-20T12:00:00Z"),
      pdf: data(i + 1),
    }));
    const stream = pdfZipStream(entries, { render });
    // Nothing is rendered before anyone reads.
    await Promise.resolve();
    expect(rendered.length).toBeLessThanOrEqual(1);
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    chunks.push(first.value!);
    expect(rendered.length).toBeGreaterThanOrEqual(1);
    expect(rendered.length).toBeLessThanOrEqual(2);
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(rendered).toEqual(entries.map((e) => e.documentNumber));
    const zip = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let offset = 0;
    for (const c of chunks) {
      zip.set(c, offset);
      offset += c.length;
    }
    const files = unzipSync(zip);
    expect(Object.keys(files)).toEqual(entries.map((e) => `${e.documentNumber}.pdf`));
  });
});

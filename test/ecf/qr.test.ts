import jsQR from "jsqr";
import { describe, expect, it } from "vitest";
import { renderDocumentPdf } from "../../src/modules/sales/pdf";
import { type QrMatrix, timbreQr, timbreUrl } from "../../src/modules/sales/qr";
import { pdfText } from "../support/pdf";

/**
 * The QR library (uqr) inside workerd, where the Worker prints invoices: it must need no canvas, DOM
 * or Buffer. Its matrix is read back by an independent decoder (jsQR) from pixels made here.
 */

const URL_E31 = timbreUrl({
  ecfBaseUrl: "https://ecf.dgii.gov.do/testecf",
  fcBaseUrl: "https://fc.dgii.gov.do/testecf",
  type: "31",
  issuerRnc: "131880738",
  buyerRnc: "101010632",
  encf: "E310000000123",
  issueDate: "2026-11-20",
  total: "1234.50",
  signedAt: new Date("2026-11-20T18:05:09Z"),
  securityCode: "aB/x9+",
  consumerSummary: false,
});

/** The matrix as RGBA pixels, `scale` per module, with a 4-module white quiet zone. */
function pixels(qr: QrMatrix, scale = 4) {
  const side = (qr.size + 8) * scale;
  const rgba = new Uint8ClampedArray(side * side * 4).fill(255);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const row = Math.floor(y / scale) - 4;
      const column = Math.floor(x / scale) - 4;
      if (qr.modules[row]?.[column]) rgba.fill(0, (y * side + x) * 4, (y * side + x) * 4 + 3);
    }
  }
  return { rgba, side };
}

describe("the timbre QR in workerd", () => {
  it("runs in workerd and gives a square matrix with the three finder patterns, which jsQR decodes to the URL", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
    const qr = timbreQr(URL_E31);
    expect(qr.version).toBe(10);
    expect(qr.size).toBe(57);
    expect(qr.modules).toHaveLength(57);
    for (const row of qr.modules) expect(row).toHaveLength(57);
    // A finder pattern: a dark 7×7 ring, a light ring, a dark 3×3 centre (ISO/IEC 18004).
    const finder = (top: number, left: number) =>
      Array.from({ length: 7 }, (_, r) => Array.from({ length: 7 }, (_, c) => (qr.modules[top + r]![left + c] ? "#" : ".")).join(""));
    const expected = ["#######", "#.....#", "#.###.#", "#.###.#", "#.###.#", "#.....#", "#######"];
    expect(finder(0, 0)).toEqual(expected);
    expect(finder(0, 50)).toEqual(expected);
    expect(finder(50, 0)).toEqual(expected);

    const { rgba, side } = pixels(qr);
    const decoded = jsQR(rgba, side, side, { inversionAttempts: "dontInvert" });
    expect(decoded?.data).toBe(URL_E31);
    expect(decoded?.version).toBe(10);
  });

  it("draws the timbre into the PDF inside workerd: the security code and signature time are in its text", async () => {
    const pdf = await renderDocumentPdf({
      title: "Factura de Crédito Fiscal Electrónica",
      issuer: { legalName: "Ferretería La Esquina SRL", tradeName: null, rnc: "131880738", address: null, branchName: "Principal", branchAddress: null },
      documentNumber: "E310000000123",
      ecfType: "31",
      numberLabel: "e-NCF",
      subtypeName: "Crédito Fiscal",
      issueDate: "2026-11-20",
      dueDate: null,
      dueDateLabel: "Vence",
      customer: { name: "Constructora Norte SRL", identification: "101010632", identificationType: "rnc" },
      lines: [
        {
          description: "Cemento gris",
          quantity: "2.00",
          unitPrice: "617.25",
          discount: "0.00",
          discountAmount: "0.00",
          taxes: "ITBIS 18%",
          itbis: "188.31",
          amount: "1046.19",
          total: "1234.50",
        },
      ],
      taxBreakdown: [],
      totals: [{ label: "Total", value: "1234.50", bold: true }],
      notes: null,
      ecf: { qrUrl: URL_E31, securityCode: "aB/x9+", signedAt: "20-11-2026 14:05:09" },
    });
    const text = (await pdfText(pdf)).replace(/\s+/g, " ");
    expect(text).toContain("Código de Seguridad: aB/x9+");
    expect(text).toContain("Fecha Firma: 20-11-2026 14:05:09");
  });
});

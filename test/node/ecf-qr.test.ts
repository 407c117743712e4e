import { writeFileSync } from "node:fs";
import jsQR from "jsqr";
import * as mupdf from "mupdf";
import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { ecfDateTime } from "../../src/lib/dates";
import { type PdfDocumentData, renderDocumentPdf } from "../../src/modules/sales/pdf";
import { TIMBRE_QR_VERSION, TimbreError, type TimbreInput, timbreQr, timbreUrl } from "../../src/modules/sales/qr";

/**
 * The printed representation of an e-CF (DGII, descripcion-tecnica.txt, "Consulta timbre (QR)" and
 * "Consulta timbre FC (QR)"): the URL the QR carries, and the QR as a phone would read it off the
 * page — the PDF rasterized by mupdf, the symbol found and decoded by jsQR, neither of them the
 * encoder that drew it.
 */

/** 2026-11-20 14:05:09 in Santo Domingo (UTC−4). */
const SIGNED_AT = new Date("2026-11-20T18:05:09Z");

const E31: TimbreInput = {
  ecfBaseUrl: "https://ecf.dgii.gov.do/testecf",
  fcBaseUrl: "https://fc.dgii.gov.do/testecf",
  type: "31",
  issuerRnc: "131880738",
  buyerRnc: "101010632",
  encf: "E310000000123",
  issueDate: "2026-11-20",
  total: "1234.50",
  signedAt: SIGNED_AT,
  securityCode: "aB/x9+",
  consumerSummary: false,
};

const E32: TimbreInput = { ...E31, type: "32", buyerRnc: null, encf: "E320000000064", total: "6225.09", securityCode: "uabnyh", consumerSummary: true };

describe("timbreUrl", () => {
  it("writes DGII's own example of the e-CF timbre character for character", () => {
    // descripcion-tecnica.txt, "Consulta timbre (QR)", EJEMPLO (e-NCF written in capitals, as the e-CF holds it).
    const url = timbreUrl({
      ...E31,
      issuerRnc: "130000001",
      buyerRnc: "130000002",
      encf: "E310000000001",
      issueDate: "2020-10-10",
      total: "2.11",
      signedAt: new Date("2020-10-10T13:00:00Z"),
      securityCode: "dcp79q",
    });
    expect(url).toBe(
      "https://ecf.dgii.gov.do/testecf/consultatimbre?rncemisor=130000001&rnccomprador=130000002&encf=E310000000001&fechaemision=10-10-2020&montototal=2.11&fechafirma=10-10-2020%2009:00:00&codigoseguridad=dcp79q",
    );
  });

  it("writes DGII's own example of the consumer (FC) timbre character for character", () => {
    // descripcion-tecnica.txt, "Consulta timbre FC (QR)", EJEMPLO.
    const url = timbreUrl({ ...E32, issuerRnc: "131880738", encf: "E320000000064", total: "6225.09", securityCode: "uabnyh" });
    expect(url).toBe("https://fc.dgii.gov.do/testecf/consultatimbrefc?rncemisor=131880738&encf=E320000000064&montototal=6225.09&codigoseguridad=uabnyh");
  });

  it("escapes the signature time's space as %20 and keeps its colons, in Dominican time", () => {
    const url = timbreUrl(E31);
    expect(url).toContain("&fechafirma=20-11-2026%2014:05:09&");
    expect(url).not.toContain(" ");
    // 02:30 UTC is still the day before in Santo Domingo.
    expect(timbreUrl({ ...E31, signedAt: new Date("2026-11-21T02:30:00Z") })).toContain("&fechafirma=20-11-2026%2022:30:00&");
  });

  it("prints the total with its two decimals: 1234.50 stays 1234.50, 1234.5 becomes 1234.50", () => {
    expect(timbreUrl(E31)).toContain("&montototal=1234.50&");
    expect(timbreUrl({ ...E31, total: "1234.5" })).toContain("&montototal=1234.50&");
    expect(timbreUrl({ ...E31, total: "250000" })).toContain("&montototal=250000.00&");
  });

  it("escapes the security code's reserved characters by DGII's table (+ / = as %2B %2F %3D)", () => {
    expect(timbreUrl(E31).endsWith("&codigoseguridad=aB%2Fx9%2B")).toBe(true);
    expect(timbreUrl({ ...E31, securityCode: "S/DQdu" }).endsWith("&codigoseguridad=S%2FDQdu")).toBe(true);
    expect(timbreUrl({ ...E31, securityCode: "ab==//" }).endsWith("&codigoseguridad=ab%3D%3D%2F%2F")).toBe(true);
    expect(timbreUrl({ ...E32, securityCode: "+AbC/z" }).endsWith("&codigoseguridad=%2BAbC%2Fz")).toBe(true);
  });

  it("leaves rnccomprador out when there is no buyer RNC (null, undefined or blank)", () => {
    for (const buyerRnc of [null, undefined, "", "  "]) {
      const url = timbreUrl({ ...E31, type: "34", encf: "E340000000007", buyerRnc });
      expect(url).toBe(
        "https://ecf.dgii.gov.do/testecf/consultatimbre?rncemisor=131880738&encf=E340000000007&fechaemision=20-11-2026&montototal=1234.50&fechafirma=20-11-2026%2014:05:09&codigoseguridad=aB%2Fx9%2B",
      );
    }
    // An 11-digit cédula is a buyer RNC as well.
    expect(timbreUrl({ ...E31, buyerRnc: "00112345678" })).toContain("&rnccomprador=00112345678&");
  });

  it("takes the hosts from configuration (a local fake), with or without a trailing slash", () => {
    const local = { ...E31, ecfBaseUrl: "http://127.0.0.1:8799/certecf/", fcBaseUrl: "http://127.0.0.1:8799/certecf" };
    expect(timbreUrl(local).startsWith("http://127.0.0.1:8799/certecf/consultatimbre?rncemisor=131880738&")).toBe(true);
    expect(timbreUrl({ ...local, ...E32, ecfBaseUrl: local.ecfBaseUrl, fcBaseUrl: local.fcBaseUrl })).toBe(
      "http://127.0.0.1:8799/certecf/consultatimbrefc?rncemisor=131880738&encf=E320000000064&montototal=6225.09&codigoseguridad=uabnyh",
    );
  });

  it("refuses what cannot be a timbre instead of printing a QR DGII would not find", () => {
    const cases: Partial<TimbreInput>[] = [
      { issuerRnc: "13188073" },
      { buyerRnc: "1010-10632" },
      { encf: "E320000000123" }, // another type's e-NCF
      { encf: "B0100000001" },
      { issueDate: "20-11-2026" },
      { total: "1,234.50" },
      { total: "-5" },
      { securityCode: "abc" },
      { securityCode: "ab cde" },
      { signedAt: new Date("nope") },
      { consumerSummary: true }, // only an E32 has an RFCE
    ];
    for (const change of cases) expect(() => timbreUrl({ ...E31, ...change }), JSON.stringify(change)).toThrow(TimbreError);
  });
});

describe("timbreQr", () => {
  it("uses version 8 when the URL fits (the consumer URL), else the smallest version that holds it", () => {
    const fc = timbreQr(timbreUrl(E32));
    expect(fc.version).toBe(TIMBRE_QR_VERSION);
    expect(fc.size).toBe(49);
    expect(fc.modules).toHaveLength(49);
    expect(fc.modules.every((row) => row.length === 49)).toBe(true);
    const ecf = timbreQr(timbreUrl(E31));
    expect(ecf.version).toBe(10);
    expect(ecf.size).toBe(57);
    // A short text still gets version 8, not the version 2 it would fit.
    expect(timbreQr("https://x.do").version).toBe(8);
  });
});

function invoice(ecf: PdfDocumentData["ecf"], lineCount = 3): PdfDocumentData {
  const lines = Array.from({ length: lineCount }, (_, i) => ({
    description: i === 0 ? "Cemento gris Portland tipo I, funda de 42.5 kg, entregado en obra con descarga incluida" : `Varilla corrugada 3/8" x 20' (${i})`,
    quantity: "2.00",
    unitPrice: "617.25",
    discount: "0.00",
    discountAmount: "0.00",
    taxes: "ITBIS 18%",
    itbis: "188.31",
    amount: "1046.19",
    total: "1234.50",
  }));
  return {
    title: "Factura de Crédito Fiscal Electrónica",
    issuer: {
      legalName: "Ferretería La Esquina SRL",
      tradeName: "Ferretería La Esquina",
      rnc: "131880738",
      address: "Av. Duarte 45, Santiago",
      phone: "809-555-0100",
      email: "ventas@esquina.do",
      branchName: "Principal",
      branchAddress: "Calle del Sol 12, Santiago",
    },
    documentNumber: "E310000000123",
    ecfType: "31",
    numberLabel: "e-NCF",
    subtypeName: "Crédito Fiscal",
    validUntil: "2027-12-31",
    issueDate: "2026-11-20",
    dueDate: "2026-12-20",
    dueDateLabel: "Vence",
    customer: { name: "Constructora Norte SRL", identification: "101010632", identificationType: "rnc" },
    lines,
    taxBreakdown: [{ label: "ITBIS 18% (base 1046.19)", amount: "188.31" }],
    totals: [
      { label: "Subtotal Gravado", value: "1046.19" },
      { label: "Total ITBIS", value: "188.31" },
      { label: "Total", value: "1234.50", bold: true },
    ],
    notes: "Entrega en obra.",
    ecf,
  };
}

/** The PDF's text as pdf.js reads it (test/support/pdf.ts's pdfText, which imports the workers client). */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
  return text as string;
}

const DPI = 144;

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Each page rasterized by mupdf, its QR decoded by jsQR (in points, from the page's top-left), and its text lines' boxes. */
function readPages(pdf: Uint8Array) {
  const document = mupdf.Document.openDocument(pdf, "application/pdf");
  try {
    const pages = [];
    for (let i = 0; i < document.countPages(); i++) {
      const page = document.loadPage(i);
      // Opaque RGB (a page rendered with alpha leaves the paper transparent), widened to the RGBA jsQR reads.
      const pixmap = page.toPixmap(mupdf.Matrix.scale(DPI / 72, DPI / 72), mupdf.ColorSpace.DeviceRGB, false, true);
      const width = pixmap.getWidth();
      const height = pixmap.getHeight();
      expect(pixmap.getNumberOfComponents()).toBe(3);
      const rgb = pixmap.getPixels();
      const stride = pixmap.getStride();
      const rgba = new Uint8ClampedArray(width * height * 4);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          rgba.set(rgb.subarray(y * stride + x * 3, y * stride + x * 3 + 3), (y * width + x) * 4);
          rgba[(y * width + x) * 4 + 3] = 255;
        }
      }
      if (process.env.ECF_QR_PNG) writeFileSync(`${process.env.ECF_QR_PNG}-${i}.png`, pixmap.asPNG());
      const code = jsQR(rgba, width, height, { inversionAttempts: "dontInvert" });
      const toPoints = (p: { x: number; y: number }) => ({ x: (p.x * 72) / DPI, y: (p.y * 72) / DPI });
      const corners = code
        ? [code.location.topLeftCorner, code.location.topRightCorner, code.location.bottomLeftCorner, code.location.bottomRightCorner].map(toPoints)
        : [];
      const qrBox: Box | null = code
        ? {
            x0: Math.min(...corners.map((c) => c.x)),
            y0: Math.min(...corners.map((c) => c.y)),
            x1: Math.max(...corners.map((c) => c.x)),
            y1: Math.max(...corners.map((c) => c.y)),
          }
        : null;
      const structured = JSON.parse(page.toStructuredText("").asJSON()) as {
        blocks: { type: string; lines?: { text: string; bbox: { x: number; y: number; w: number; h: number } }[] }[];
      };
      const textLines = structured.blocks
        .flatMap((block) => block.lines ?? [])
        .map((line) => ({ text: line.text, box: { x0: line.bbox.x, y0: line.bbox.y, x1: line.bbox.x + line.bbox.w, y1: line.bbox.y + line.bbox.h } }));
      pages.push({ code, qrBox, textLines });
    }
    return pages;
  } finally {
    document.destroy();
  }
}

const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

describe("the printed e-CF", () => {
  it("carries a QR that decodes, off the rasterized page, to the e-CF's timbre URL, with the security code and signature time printed", async () => {
    const url = timbreUrl(E31);
    const pdf = await renderDocumentPdf(invoice({ qrUrl: url, securityCode: E31.securityCode, signedAt: ecfDateTime(SIGNED_AT) }));
    const [page, ...rest] = readPages(pdf);
    expect(rest).toHaveLength(0);
    expect(page!.code, "no QR found on the page").not.toBeNull();
    expect(page!.code!.data).toBe(url);
    expect(page!.code!.version).toBe(10);

    const decoded = new URL(page!.code!.data);
    expect(`${decoded.origin}${decoded.pathname}`).toBe("https://ecf.dgii.gov.do/testecf/consultatimbre");
    expect([...decoded.searchParams.keys()]).toEqual(["rncemisor", "rnccomprador", "encf", "fechaemision", "montototal", "fechafirma", "codigoseguridad"]);
    expect(Object.fromEntries(decoded.searchParams)).toEqual({
      rncemisor: "131880738",
      rnccomprador: "101010632",
      encf: "E310000000123",
      fechaemision: "20-11-2026",
      montototal: "1234.50",
      fechafirma: "20-11-2026 14:05:09",
      codigoseguridad: "aB/x9+",
    });

    // Between 2.5 and 3 cm wide, on the left, under the lines and level with the totals.
    const qr = page!.qrBox!;
    const cm = 72 / 2.54;
    expect(qr.x1 - qr.x0).toBeGreaterThan(2.5 * cm);
    expect(qr.x1 - qr.x0).toBeLessThan(3 * cm);
    const total = page!.textLines.find((line) => line.text.startsWith("Subtotal"))!;
    expect(qr.y0).toBeLessThan(total.box.y1);
    expect(qr.y1).toBeGreaterThan(total.box.y1);

    const text = (await pdfText(pdf)).replace(/\s+/g, " ");
    expect(text).toContain("Código de Seguridad: aB/x9+");
    expect(text).toContain("Fecha Firma: 20-11-2026 14:05:09");
    expect(text).toContain("Total: RD$1,234.50");
    expect(text).toContain("e-NCF: E310000000123");
  });

  it("carries, for an E32 under RD$250,000, the consumer URL on the fc host with its 4 parameters, in a version-8 QR", async () => {
    const url = timbreUrl(E32);
    const data = invoice({ qrUrl: url, securityCode: E32.securityCode, signedAt: ecfDateTime(SIGNED_AT) });
    const pdf = await renderDocumentPdf({
      ...data,
      title: "Factura de Consumo Electrónica",
      documentNumber: "E320000000064",
      ecfType: "32",
      customer: { name: "Consumidor final", identification: null, identificationType: null },
    });
    const [page] = readPages(pdf);
    expect(page!.code!.data).toBe(url);
    expect(page!.code!.version).toBe(8);
    const decoded = new URL(page!.code!.data);
    expect(`${decoded.origin}${decoded.pathname}`).toBe("https://fc.dgii.gov.do/testecf/consultatimbrefc");
    expect(Object.fromEntries(decoded.searchParams)).toEqual({
      rncemisor: "131880738",
      encf: "E320000000064",
      montototal: "6225.09",
      codigoseguridad: "uabnyh",
    });
    expect([...decoded.searchParams.keys()]).toEqual(["rncemisor", "encf", "montototal", "codigoseguridad"]);

    const text = (await pdfText(pdf)).replace(/\s+/g, " ");
    expect(text).toContain("Código de Seguridad: uabnyh");
    expect(text).toContain("Fecha Firma: 20-11-2026 14:05:09");
  });

  it("keeps the QR, its quiet zone and its two lines clear of all text, on the totals' page, however many lines push them down", async () => {
    const url = timbreUrl(E31);
    const ecf = { qrUrl: url, securityCode: E31.securityCode, signedAt: ecfDateTime(SIGNED_AT) };
    const pagesSeen = new Set<number>();
    // From a short invoice to ones whose totals fall at the foot of page 1 and onto page 2.
    for (const count of [1, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60]) {
      const pages = readPages(await renderDocumentPdf(invoice(ecf, count)));
      pagesSeen.add(pages.length);
      // A page after the first opens with whose it is; the first page has its full header instead.
      expect(pages[0]!.textLines.some((line) => line.text.includes("continuación"))).toBe(false);
      for (const later of pages.slice(1)) {
        const top = [...later.textLines].sort((a, b) => a.box.y0 - b.box.y0)[0];
        expect(top?.text, `${count} lines`).toBe("Factura de Crédito Fiscal Electrónica — e-NCF: E310000000123 (continuación)");
      }
      const withQr = pages.filter((page) => page.code);
      expect(withQr, `${count} lines`).toHaveLength(1);
      const page = withQr[0]!;
      expect(page.code!.data).toBe(url);
      expect(page, `${count} lines: the QR is on the last page`).toBe(pages.at(-1));
      expect(
        page.textLines.some((line) => line.text.startsWith("Total")),
        `${count} lines`,
      ).toBe(true);
      // The symbol and its quiet zone (4 modules of 28 mm / 57).
      const quiet = (4 * (28 / 25.4) * 72) / 57;
      const zone = { x0: page.qrBox!.x0 - quiet, y0: page.qrBox!.y0 - quiet, x1: page.qrBox!.x1 + quiet, y1: page.qrBox!.y1 + quiet };
      expect(zone.x0, `${count} lines`).toBeGreaterThanOrEqual(39);
      for (const line of page.textLines) expect(overlaps(zone, line.box), `${count} lines: "${line.text}" over the QR`).toBe(false);
      const code = page.textLines.find((line) => line.text.startsWith("Código de Seguridad:"))!;
      const signed = page.textLines.find((line) => line.text.startsWith("Fecha Firma:"))!;
      expect(code.box.y0, `${count} lines`).toBeGreaterThanOrEqual(zone.y1 - 0.5);
      expect(signed.box.y0).toBeGreaterThan(code.box.y0);
      expect(signed.box.y1, `${count} lines`).toBeLessThanOrEqual(792 - 36);
      const others = page.textLines.filter((line) => line !== code && line !== signed);
      for (const line of others) {
        expect(overlaps(code.box, line.box), `${count} lines: "${line.text}" over the security code`).toBe(false);
        expect(overlaps(signed.box, line.box), `${count} lines: "${line.text}" over the signature time`).toBe(false);
      }
    }
    expect([...pagesSeen].sort()).toEqual([1, 2]);
    // Its own timeout: 12 PDFs of one or two pages, each page rasterized at 144 dpi and each searched for a QR. Measured
    // alone at load 3.6: jsQR 18.0 s (a page without a code is the slowest to search), rasterizing
    // 1.9 s, widening to RGBA 5.4 s — 26-30 s, at the project's 30 s limit on a busy machine.
  }, 90_000);

  it("draws nothing of a timbre without e-CF data", async () => {
    const pdf = await renderDocumentPdf(invoice(undefined));
    const [page] = readPages(pdf);
    expect(page!.code).toBeNull();
    const text = await pdfText(pdf);
    expect(text).not.toContain("Código de Seguridad");
    expect(text).not.toContain("Fecha Firma");
  });
});

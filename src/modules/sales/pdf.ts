import type { PDFDocument, PDFFont, PDFPage } from "pdf-lib";

/**
 * pdf-lib, loaded when the first PDF is drawn: most requests (and most test files' Workers) never
 * draw one, and importing it costs every isolate that loads the app (docs/reliability.md).
 */
let pdfLib: typeof import("pdf-lib") | undefined;
const loadPdfLib = async () => (pdfLib ??= await import("pdf-lib"));
const rgb = (red: number, green: number, blue: number) => pdfLib!.rgb(red, green, blue);

import { type QrMatrix, timbreQr } from "./qr";

interface PdfLine {
  description: string;
  quantity: string;
  unitPrice: string;
  discount: string;
  taxes: string;
  total: string;
}

export interface PdfDocumentData {
  title: string;
  /** The issuer as printed (Norma General 06-2018): legal and trade name, RNC, address, the branch. */
  issuer: {
    legalName: string;
    tradeName: string | null;
    rnc: string | null;
    address: string | null;
    phone?: string | null;
    email?: string | null;
    branchName: string;
    branchAddress: string | null;
    branchPhone?: string | null;
  };
  documentNumber: string;
  /** Label before the number; default "NCF" (quotation numbers are not NCFs). */
  numberLabel?: string;
  subtypeName: string;
  /** The NCF sequence's expiry, printed as "Válida hasta" where the sequence expires. */
  validUntil?: string | null;
  issueDate: string;
  dueDate: string | null;
  dueDateLabel: string;
  /** A note prints the NCF it modifies, that NCF's date and the reason (Norma General 06-2018; Formato e-CF, InformacionReferencia). */
  reference?: { ncf: string; date: string; reason: string } | null;
  /** A document in a foreign currency prints its currency and the rate it was issued at (FISCAL.md, "Amounts"). */
  currency?: { code: string; exchangeRate: string } | null;
  customer: { name: string; identification: string | null; identificationType: string | null };
  /** The heading of the other party; default "Cliente" (a purchase receipt names its "Proveedor"). */
  customerLabel?: string;
  lines: PdfLine[];
  /** ITBIS per rate, the exempt base, ISC, propina and other taxes apart, as labels and amounts. */
  taxBreakdown: { label: string; amount: string }[];
  totals: { label: string; value: string; bold?: boolean }[];
  notes: string | null;
  /**
   * An e-CF's printed representation (DGII, Descripción técnica, "Consulta timbre (QR)"): the QR of
   * DGII's timbre URL (`timbreUrl()` in qr.ts), the security code and the signature time,
   * already formatted dd-MM-yyyy HH:mm:ss.
   */
  ecf?: {
    qrUrl: string;
    securityCode: string;
    signedAt: string;
    /**
     * An E32's: the issuer's page where the consumer looks the document up with its e-NCF and
     * security code (Formato RFCE v1.0, introduction: "el emisor deberá disponer de un mecanismo
     * electrónico para fines de consulta por parte de sus clientes").
     */
    lookupUrl?: string;
  };
}

const PAGE = { width: 612, height: 792, margin: 40 };
/** Between the lines of wrapped text at 9 pt. */
const LINE_HEIGHT = 11;
const COLUMNS = [
  { label: "Descripción", x: 40, width: 200, align: "left" as const },
  { label: "Cant.", x: 245, width: 50, align: "right" as const },
  { label: "Precio", x: 300, width: 70, align: "right" as const },
  { label: "Desc. %", x: 375, width: 45, align: "right" as const },
  { label: "Impuestos", x: 425, width: 75, align: "left" as const },
  { label: "Total", x: 502, width: 70, align: "right" as const },
];

/** Per font: the characters it can draw, and glyph metrics measured once per character or pair. */
class FontMetrics {
  readonly supported: ReadonlySet<number>;
  private readonly widths = new Map<string, number>();
  private readonly kerning = new Map<string, number>();

  constructor(private readonly font: PDFFont) {
    this.supported = new Set(font.getCharacterSet());
  }

  /**
   * Width in font units (the width at size 1000): AFM widths and kerning are integers, so sums of
   * these are exact and `units * (size / 1000)` equals what widthOfTextAtSize(text, size) gives.
   */
  width(ch: string): number {
    let width = this.widths.get(ch);
    if (width === undefined) {
      width = this.font.widthOfTextAtSize(ch, 1000);
      this.widths.set(ch, width);
    }
    return width;
  }

  /** The kerning between two characters, in font units (pdf-lib adds it to the left glyph). */
  kern(left: string, right: string): number {
    const pair = left + right;
    let kern = this.kerning.get(pair);
    if (kern === undefined) {
      kern = this.font.widthOfTextAtSize(pair, 1000) - this.width(left) - this.width(right);
      this.kerning.set(pair, kern);
    }
    return kern;
  }
}

const metricsOf = new WeakMap<PDFFont, FontMetrics>();
function metrics(font: PDFFont): FontMetrics {
  let found = metricsOf.get(font);
  if (!found) {
    found = new FontMetrics(font);
    metricsOf.set(font, found);
  }
  return found;
}

/**
 * Text the standard fonts can draw (WinAnsi: Spanish letters included); anything else becomes
 * "?" so that a customer name in another script never turns a PDF into a 500.
 */
function drawable(font: PDFFont, text: string): string {
  const supported = metrics(font).supported;
  let out = "";
  for (const ch of text.normalize("NFC").replace(/[\r\n\t]+/g, " ")) {
    out += supported.has(ch.codePointAt(0)!) ? ch : "?";
  }
  return out;
}

const ELLIPSIS = "…";

/**
 * `text` when it fits in `width`, else its longest prefix (dropping at least one character) that
 * fits with "…" after it ("…" alone when none does) — what cutting one character at a time and
 * measuring again would give, in one pass: measuring the whole string at every cut was quadratic
 * (a 20,000-character note took seconds of CPU). `text` comes from drawable(): one UTF-16 unit per
 * character. Kerning is kept exact: the prefix's last glyph kerns with "…", not with its successor.
 */
function fitText(font: PDFFont, text: string, size: number, width: number): string {
  const n = text.length;
  if (n <= 1) return text;
  const m = metrics(font);
  const scale = size / 1000;
  const ellipsis = m.width(ELLIPSIS);
  // `glyphs` = widths of text[0..p) with the kerning between them (not after the last one).
  let glyphs = 0;
  let best = 0;
  for (let p = 0; p < n; p++) {
    const ch = text[p]!;
    if (p > 0) glyphs += m.kern(text[p - 1]!, ch);
    glyphs += m.width(ch);
    // Candidate: text[0..p] + "…", for prefixes of at most n - 2 characters (one cut drops two).
    if (p + 1 <= n - 2 && (glyphs + m.kern(ch, ELLIPSIS) + ellipsis) * scale <= width) best = p + 1;
  }
  if (glyphs * scale <= width) return text;
  return text.slice(0, best) + ELLIPSIS;
}

/**
 * `text` broken into lines that each fit in `width` (Norma 06-2018 wants the whole description on
 * the printed document, so nothing is cut): greedy, at spaces, a word longer than the width broken
 * between characters. One pass over the text, measuring each character once (kerning included
 * within a line), so a 20,000-character note costs linear time. `text` comes from drawable().
 */
function wrapText(font: PDFFont, text: string, size: number, width: number): string[] {
  const m = metrics(font);
  const limit = width / (size / 1000);
  const lines: string[] = [];
  let line = "";
  let units = 0;
  const append = (piece: string) => {
    for (const ch of piece) {
      const step = m.width(ch) + (line ? m.kern(line[line.length - 1]!, ch) : 0);
      if (line && units + step > limit) {
        lines.push(line);
        line = ch;
        units = m.width(ch);
      } else {
        line += ch;
        units += step;
      }
    }
  };
  const widthOf = (piece: string, after: string) => {
    let total = 0;
    let previous = after;
    for (const ch of piece) {
      total += m.width(ch) + (previous ? m.kern(previous, ch) : 0);
      previous = ch;
    }
    return total;
  };
  for (const word of text.split(" ")) {
    if (!line) {
      append(word);
      continue;
    }
    const spaced = ` ${word}`;
    const added = widthOf(spaced, line[line.length - 1]!);
    if (units + added <= limit) {
      line += spaced;
      units += added;
      continue;
    }
    lines.push(line);
    line = "";
    units = 0;
    append(word);
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}

class Writer {
  page!: PDFPage;
  y = 0;
  constructor(
    private readonly pdf: PDFDocument,
    readonly font: PDFFont,
    readonly bold: PDFFont,
  ) {
    this.newPage();
  }

  newPage() {
    this.page = this.pdf.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - PAGE.margin;
  }

  ensure(space: number, onBreak?: () => void) {
    if (this.y - space < PAGE.margin) {
      this.newPage();
      onBreak?.();
    }
  }

  text(value: string, x: number, options: { size?: number; bold?: boolean; width?: number; align?: "left" | "right" } = {}) {
    const font = options.bold ? this.bold : this.font;
    const size = options.size ?? 9;
    let clean = drawable(font, value);
    if (options.width) clean = fitText(font, clean, size, options.width);
    const drawX = options.align === "right" && options.width ? x + options.width - font.widthOfTextAtSize(clean, size) : x;
    this.page.drawText(clean, { x: drawX, y: this.y, size, font, color: rgb(0.1, 0.1, 0.1) });
  }

  /**
   * Lines of text one under the other at `x`, continuing on new pages (after `onBreak`) when they
   * do not fit: each page's share drawn in one call (one text object, not one per line).
   */
  block(rows: string[], x: number, onBreak?: () => void) {
    let next = 0;
    while (next < rows.length) {
      let room = Math.floor((this.y - PAGE.margin) / LINE_HEIGHT);
      if (room < 1) {
        this.newPage();
        onBreak?.();
        room = Math.floor((this.y - PAGE.margin) / LINE_HEIGHT);
      }
      const chunk = rows.slice(next, next + room);
      this.page.drawText(chunk.join("\n"), { x, y: this.y, size: 9, font: this.font, lineHeight: LINE_HEIGHT, color: rgb(0.1, 0.1, 0.1) });
      this.y -= chunk.length * LINE_HEIGHT;
      next += chunk.length;
    }
  }

  /** `value` wrapped to `width`: its lines, to draw with block(). */
  wrapped(value: string, width: number, options: { size?: number; bold?: boolean } = {}): string[] {
    const font = options.bold ? this.bold : this.font;
    return wrapText(font, drawable(font, value), options.size ?? 9, width);
  }

  line() {
    this.page.drawLine({
      start: { x: PAGE.margin, y: this.y + 3 },
      end: { x: PAGE.width - PAGE.margin, y: this.y + 3 },
      thickness: 0.5,
      color: rgb(0.6, 0.6, 0.6),
    });
  }
}

/** The QR symbol's side, 28 mm: modules of about 0.5 mm (version 10), 4 dots each on an 8-dot/mm thermal printer. */
const QR_SIDE = (28 / 25.4) * 72;
/** ISO/IEC 18004's quiet zone: 4 modules of nothing around the symbol. */
const QR_QUIET_MODULES = 4;

/** The timbre under the lines, left of the totals, as DGII's printed models place it (representacion-impresa.pdf, 1.1, 2.2). */
class Timbre {
  readonly qr: QrMatrix;
  readonly module: number;
  readonly quiet: number;
  constructor(readonly ecf: NonNullable<PdfDocumentData["ecf"]>) {
    this.qr = timbreQr(ecf.qrUrl);
    this.module = QR_SIDE / this.qr.size;
    this.quiet = QR_QUIET_MODULES * this.module;
  }

  /** From the baseline of the first totals row down to that of the last line under the QR. */
  get depth(): number {
    return QR_SIDE - 7 + this.quiet + 11 + 12 + (this.ecf.lookupUrl ? 12 : 0);
  }

  /**
   * The symbol's top at the first totals row's cap height (`top` + 7), its quiet zone starting at
   * the left margin; the dark modules as one path of rectangles (a run of dark modules in a row is
   * one rectangle), black on the white page. Below it, the security code and the signature time.
   * Returns the baseline of the last text line.
   */
  draw(w: Writer, top: number): number {
    const x = PAGE.margin + this.quiet;
    const path: string[] = [];
    this.qr.modules.forEach((row, y) => {
      for (let start = 0; start < row.length; start++) {
        if (!row[start]) continue;
        let end = start;
        while (end + 1 < row.length && row[end + 1]) end++;
        path.push(`M${start} ${y}h${end - start + 1}v1h-${end - start + 1}z`);
        start = end;
      }
    });
    w.page.drawSvgPath(path.join(""), { x, y: top + 7, scale: this.module, color: rgb(0, 0, 0) });
    const saved = w.y;
    // The first line's ascent (Helvetica's, about 0.93 em) clear of the quiet zone.
    w.y = top + 7 - QR_SIDE - this.quiet - 11;
    w.text(`Código de seguridad: ${this.ecf.securityCode}`, x);
    w.y -= 12;
    w.text(`Fecha de firma: ${this.ecf.signedAt}`, x);
    if (this.ecf.lookupUrl) {
      w.y -= 12;
      w.text(`Consulte este comprobante en: ${this.ecf.lookupUrl}`, x);
    }
    const last = w.y;
    w.y = saved;
    return last;
  }
}

/** An invoice or quotation as a PDF with Spanish labels. */
export async function renderDocumentPdf(data: PdfDocumentData): Promise<Uint8Array<ArrayBuffer>> {
  const { PDFDocument, StandardFonts } = await loadPdfLib();
  const pdf = await PDFDocument.create();
  pdf.setTitle(`${data.title} ${data.documentNumber}`);
  pdf.setProducer("Sucursal");
  const w = new Writer(pdf, await pdf.embedFont(StandardFonts.Helvetica), await pdf.embedFont(StandardFonts.HelveticaBold));

  // Left: the issuer; right: the document (type, number, dates). Each side advances on its own.
  const top = w.y;
  w.text(data.issuer.legalName, PAGE.margin, { size: 14, bold: true, width: 330 });
  w.y -= 16;
  const issuerLines = [
    data.issuer.tradeName && data.issuer.tradeName !== data.issuer.legalName ? data.issuer.tradeName : null,
    data.issuer.rnc ? `RNC: ${data.issuer.rnc}` : null,
    data.issuer.address,
    [data.issuer.phone ? `Tel.: ${data.issuer.phone}` : null, data.issuer.email].filter(Boolean).join(" · ") || null,
    `Sucursal: ${[data.issuer.branchName, data.issuer.branchAddress, data.issuer.branchPhone ? `Tel.: ${data.issuer.branchPhone}` : null].filter(Boolean).join(" — ")}`,
  ];
  // Issuer lines wrap in their column (a long address or branch line is never cut).
  for (const line of issuerLines) {
    if (!line) continue;
    for (const row of w.wrapped(line, 330)) {
      w.text(row, PAGE.margin, { width: 330 });
      w.y -= 12;
    }
  }
  const left = w.y;
  w.y = top;
  // The title wraps in its column: the type's whole name is what Norma General 06-2018 wants printed,
  // and the longer e-CF names ("Factura de Crédito Fiscal Electrónica") do not fit on one line at 14 pt.
  for (const row of w.wrapped(data.title, 192, { size: 14, bold: true })) {
    w.text(row, 380, { size: 14, bold: true, width: 192, align: "right" });
    w.y -= 16;
  }
  const documentLines: [string, boolean][] = [
    [`${data.numberLabel ?? "NCF"}: ${data.documentNumber}`, true],
    // The subtype's own name, unless it only repeats the title ("Cotización" under "Cotización").
    ...(data.subtypeName !== data.title ? ([[data.subtypeName, false]] as [string, boolean][]) : []),
    ...(data.validUntil ? ([[`Válida hasta: ${data.validUntil}`, false]] as [string, boolean][]) : []),
    [`Fecha: ${data.issueDate}`, false],
    ...(data.dueDate ? ([[`${data.dueDateLabel}: ${data.dueDate}`, false]] as [string, boolean][]) : []),
    ...(data.currency ? ([[`Moneda: ${data.currency.code} — Tasa: ${data.currency.exchangeRate}`, false]] as [string, boolean][]) : []),
    ...(data.reference
      ? ([
          [`NCF modificado: ${data.reference.ncf}`, true],
          [`Fecha NCF modificado: ${data.reference.date}`, false],
        ] as [string, boolean][])
      : []),
  ];
  for (const [line, bold] of documentLines) {
    w.text(line, 380, { bold, width: 192, align: "right" });
    w.y -= 12;
  }
  w.y = Math.min(left, w.y) - 8;
  w.text(data.customerLabel ?? "Cliente", PAGE.margin, { bold: true });
  w.y -= 12;
  w.text(data.customer.name, PAGE.margin, { width: 330 });
  w.y -= 12;
  if (data.customer.identification) {
    const label = data.customer.identificationType === "cedula" ? "Cédula" : data.customer.identificationType === "passport" ? "Pasaporte" : "RNC";
    w.text(`${label}: ${data.customer.identification}`, PAGE.margin);
    w.y -= 12;
  }
  w.y -= 10;

  const header = () => {
    for (const col of COLUMNS) w.text(col.label, col.x, { bold: true, width: col.width, align: col.align });
    w.y -= 4;
    w.line();
    w.y -= 12;
  };
  header();
  const description = COLUMNS[0]!;
  for (const line of data.lines) {
    // The description wraps in its column; a row taller than what is left of the page moves on
    // to the next one, continuing there line by line when it is longer than a page.
    const rows = w.wrapped(line.description, description.width);
    w.ensure(Math.min(rows.length, 4) * LINE_HEIGHT + 2, header);
    const values = [line.quantity, line.unitPrice, line.discount, line.taxes, line.total];
    COLUMNS.slice(1).forEach((col, i) => {
      w.text(values[i]!, col.x, { width: col.width, align: col.align });
    });
    w.block(rows, description.x, header);
  }
  w.line();
  w.y -= 14;

  const timbre = data.ecf ? new Timbre(data.ecf) : null;
  // With a timbre, the breakdown, the totals and the QR beside them go onto one page together.
  const breakdownHeight = data.taxBreakdown.length ? 12 * (data.taxBreakdown.length + 1) + 6 : 0;
  w.ensure(Math.max(16 * (data.taxBreakdown.length + data.totals.length) + 40, timbre ? breakdownHeight + timbre.depth + 4 : 0));
  if (data.taxBreakdown.length) {
    w.text("Desglose de impuestos", PAGE.margin, { bold: true });
    w.y -= 12;
    for (const tax of data.taxBreakdown) {
      w.text(tax.label, PAGE.margin, { width: 330 });
      // Amounts in the totals' column, so every amount of the page lines up.
      w.text(tax.amount, 490, { width: 82, align: "right" });
      w.y -= 12;
    }
    w.y -= 6;
  }
  const totalsTop = w.y;
  for (const total of data.totals) {
    w.text(total.label, 380, { bold: total.bold, width: 110 });
    w.text(total.value, 490, { bold: total.bold, width: 82, align: "right" });
    w.y -= 13;
  }
  if (timbre) w.y = Math.min(w.y, timbre.draw(w, totalsTop) - 13);
  if (data.reference) {
    w.y -= 10;
    w.ensure(24);
    w.text("Razón de la modificación", PAGE.margin, { bold: true });
    w.y -= 12;
    w.block(w.wrapped(data.reference.reason, PAGE.width - 2 * PAGE.margin), PAGE.margin);
  }
  if (data.notes) {
    w.y -= 10;
    w.ensure(24);
    w.text("Notas", PAGE.margin, { bold: true });
    w.y -= 12;
    w.block(w.wrapped(data.notes, PAGE.width - 2 * PAGE.margin), PAGE.margin);
  }
  // pdf-lib writes into an ArrayBuffer of its own (never a SharedArrayBuffer): a Response body.
  return (await pdf.save()) as Uint8Array<ArrayBuffer>;
}

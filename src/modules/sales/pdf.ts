import type { PDFDocument, PDFFont, PDFPage } from "pdf-lib";

/**
 * pdf-lib, loaded when the first PDF is drawn: most requests (and most test files' Workers) never
 * draw one, and importing it costs every isolate that loads the app (docs/reliability.md).
 */
let pdfLib: typeof import("pdf-lib") | undefined;
export const loadPdfLib = async () => (pdfLib ??= await import("pdf-lib"));
const rgb = (red: number, green: number, blue: number) => pdfLib!.rgb(red, green, blue);

import { groupedDecimal } from "../../lib/decimal";
import { type QrMatrix, timbreQr } from "./qr";

interface PdfLine {
  description: string;
  quantity: string;
  unitPrice: string;
  /** Percentage. */
  discount: string;
  discountAmount: string;
  /** The names of the line's taxes (a B-series document's column). */
  taxes: string;
  /** The line's ITBIS (an e-CF's column). */
  itbis: string;
  /** MontoItem: price × quantity − discount, taxes apart (an e-CF's "Valor"). */
  amount: string;
  /** With taxes (a B-series document's "Total"). */
  total: string;
}

/** The words of each CodigoModificacion (Formato e-CF v1.0, section F, field 4: printed "P", in words). */
export const MODIFICATION_WORDS: Record<number, string> = {
  1: "Anula el NCF modificado",
  2: "Corrige Texto del Comprobante Fiscal modificado",
  3: "Corrige montos del NCF modificado",
  4: "Reemplazo NCF emitido en contingencia",
  5: "Referencia Factura Consumo Electrónica",
};

/**
 * The e-CF types whose IdDoc carries FechaVencimientoSecuencia (Formato e-CF v1.0, field 4: "0" for
 * 32 and 34), printed as "Fecha Vencimiento" where the type has it.
 */
const TYPES_WITHOUT_EXPIRY = new Set(["32", "34"]);

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
  /**
   * The e-CF type ("31" … "47") of a document numbered in an E series: it is printed as DGII's
   * models lay an e-CF out (representacion-impresa.pdf). Absent: a B-series NCF's layout (Norma
   * General 06-2018) or a quotation's.
   */
  ecfType?: string | null;
  /** Label before the number; default "NCF" (quotation numbers are not NCFs; an e-CF's is "e-NCF"). */
  numberLabel?: string;
  /** The sequence's own name (internal, e.g. "E31 certificación"): never printed, kept for callers. */
  subtypeName: string;
  /** The NCF sequence's expiry (yyyy-MM-dd), printed where the type has one. */
  validUntil?: string | null;
  /** yyyy-MM-dd; printed dd-MM-yyyy. */
  issueDate: string;
  dueDate: string | null;
  dueDateLabel: string;
  /**
   * A note prints the NCF it modifies, that NCF's date and the reason (Norma General 06-2018;
   * Formato e-CF, InformacionReferencia); an e-CF also the CodigoModificacion in words.
   */
  reference?: { ncf: string; date: string; reason: string; code?: number | null } | null;
  /** A document in a foreign currency prints its currency and the rate it was issued at (FISCAL.md, "Amounts"). */
  currency?: { code: string; exchangeRate: string } | null;
  customer: { name: string; identification: string | null; identificationType: string | null };
  /** The heading of the other party; default "Cliente" (a purchase receipt names its "Proveedor"). */
  customerLabel?: string;
  lines: PdfLine[];
  /** ITBIS per rate, the exempt base, ISC, propina and other taxes apart, as labels and amounts. */
  taxBreakdown: { label: string; amount: string }[];
  /** Amounts in the document's currency, unless `dop` (the total converted to pesos). */
  totals: { label: string; value: string; bold?: boolean; dop?: boolean }[];
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

export const PAGE = { width: 612, height: 792, margin: 40 };
/** Between the lines of wrapped text at 9 pt. */
const LINE_HEIGHT = 11;

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
    out += supported.has(ch.codePointAt(0) ?? 0) ? ch : "?";
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
    const ch = text.charAt(p);
    if (p > 0) glyphs += m.kern(text.charAt(p - 1), ch);
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
      const step = m.width(ch) + (line ? m.kern(line.charAt(line.length - 1), ch) : 0);
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
    const added = widthOf(spaced, line.charAt(line.length - 1));
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

/** Draws text on pages of PAGE's size, page after page: the PDFs of sales documents and of reports (reports/it1-pdf.ts). */
export class Writer {
  page!: PDFPage;
  y = 0;
  constructor(
    private readonly pdf: PDFDocument,
    readonly font: PDFFont,
    readonly bold: PDFFont,
  ) {
    this.newPage();
  }

  /** Drawn at the top of every page after the first (a document's continuation heading). */
  continuation?: () => void;

  newPage() {
    const first = !this.page;
    this.page = this.pdf.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - PAGE.margin;
    if (!first) this.continuation?.();
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

  /**
   * "Label: value", the label bold as DGII's models print it, at `x` or (align right) ending at
   * `x + width`. One space between them, so that text extraction reads "Label: value".
   */
  labelled(label: string, value: string, x: number, options: { width?: number; align?: "left" | "right"; size?: number } = {}) {
    const size = options.size ?? 9;
    const head = drawable(this.bold, `${label} `);
    let tail = drawable(this.font, value);
    const headWidth = this.bold.widthOfTextAtSize(head, size);
    if (options.width) tail = fitText(this.font, tail, size, Math.max(options.width - headWidth, 10));
    const total = headWidth + this.font.widthOfTextAtSize(tail, size);
    const start = options.align === "right" && options.width ? x + options.width - total : x;
    this.page.drawText(head, { x: start, y: this.y, size, font: this.bold, color: rgb(0.1, 0.1, 0.1) });
    this.page.drawText(tail, { x: start + headWidth, y: this.y, size, font: this.font, color: rgb(0.1, 0.1, 0.1) });
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
    // DGII's labels, under the QR (representacion-impresa.pdf, 1.1 to 2.2).
    w.labelled("Código de Seguridad:", this.ecf.securityCode, x);
    w.y -= 12;
    w.labelled("Fecha Firma:", this.ecf.signedAt, x);
    if (this.ecf.lookupUrl) {
      w.y -= 12;
      w.text(`Consulte este comprobante en: ${this.ecf.lookupUrl}`, x);
    }
    const last = w.y;
    w.y = saved;
    return last;
  }
}

/** yyyy-MM-dd as Dominican documents print dates, dd-MM-yyyy (Formato e-CF v1.0: dd-MM-AAAA); anything else as given. */
function printedDate(iso: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  return match ? `${match[3]}-${match[2]}-${match[1]}` : iso;
}

/** How an amount's currency is written before it: RD$ for pesos (DOP), US$ for dollars, else the ISO code. */
function currencySymbol(code: string | null | undefined): string {
  if (!code || code === "DOP") return "RD$";
  return code === "USD" ? "US$" : `${code} `;
}

/** An amount with thousands separated; with `symbol`, the currency before it ("-RD$1,000.00"). */
function amount(value: string, symbol = ""): string {
  if (!/^-?\d+(\.\d+)?$/.test(value)) return value;
  const grouped = groupedDecimal(value);
  return grouped.startsWith("-") ? `-${symbol}${grouped.slice(1)}` : `${symbol}${grouped}`;
}

/** A quantity as written: thousands grouped, no trailing zeros ("150.00" → "150", "2.50" → "2.5"). */
function quantity(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? groupedDecimal(value, 0) : value;
}

interface Column {
  label: string;
  x: number;
  width: number;
  align: "left" | "right";
  value: (line: PdfLine) => string;
}

/** The lines' columns of a B-series document or quotation. */
const PAPER_COLUMNS: Column[] = [
  { label: "Descripción", x: 40, width: 200, align: "left", value: (line) => line.description },
  { label: "Cant.", x: 245, width: 50, align: "right", value: (line) => quantity(line.quantity) },
  { label: "Precio", x: 300, width: 70, align: "right", value: (line) => amount(line.unitPrice) },
  { label: "Desc. %", x: 375, width: 45, align: "right", value: (line) => line.discount },
  { label: "Impuestos", x: 425, width: 75, align: "left", value: (line) => line.taxes },
  { label: "Total", x: 502, width: 70, align: "right", value: (line) => amount(line.total) },
];

/**
 * An e-CF's columns, in the order of DGII's models (representacion-impresa.pdf, 1.1): Cantidad,
 * Descripción, Precio, ITBIS, Valor (MontoItem, taxes apart). "Unidad de Medida" is optional
 * (Formato e-CF v1.0, Detalle field 12: obligatoriedad 3) and the lines carry none, so it is left
 * out; a "Descuento" column (DescuentoMonto, printed "I" where there is one) only when a line has one.
 */
function ecfColumns(withDiscount: boolean): Column[] {
  const quantityColumn: Column = { label: "Cantidad", x: 40, width: 48, align: "right", value: (line) => quantity(line.quantity) };
  if (!withDiscount) {
    return [
      quantityColumn,
      { label: "Descripción", x: 96, width: 214, align: "left", value: (line) => line.description },
      { label: "Precio", x: 314, width: 80, align: "right", value: (line) => amount(line.unitPrice) },
      { label: "ITBIS", x: 398, width: 80, align: "right", value: (line) => amount(line.itbis) },
      { label: "Valor", x: 482, width: 90, align: "right", value: (line) => amount(line.amount) },
    ];
  }
  return [
    quantityColumn,
    { label: "Descripción", x: 96, width: 166, align: "left", value: (line) => line.description },
    { label: "Precio", x: 266, width: 72, align: "right", value: (line) => amount(line.unitPrice) },
    { label: "Descuento", x: 342, width: 66, align: "right", value: (line) => amount(line.discountAmount) },
    { label: "ITBIS", x: 412, width: 70, align: "right", value: (line) => amount(line.itbis) },
    { label: "Valor", x: 486, width: 86, align: "right", value: (line) => amount(line.amount) },
  ];
}

const RULE_BLUE = [0.36, 0.58, 0.82] as const;

/** A full-width rule, DGII's models' blue one between the blocks of an e-CF. */
function rule(w: Writer, blue: boolean) {
  w.page.drawLine({
    start: { x: PAGE.margin, y: w.y },
    end: { x: PAGE.width - PAGE.margin, y: w.y },
    thickness: blue ? 1 : 0.5,
    color: blue ? rgb(...RULE_BLUE) : rgb(0.6, 0.6, 0.6),
  });
}

/** The buyer's identification and how it is labelled ("RNC Cliente", "Cédula Cliente"; a passport is IdentificadorExtranjero). */
function identificationLabel(type: string | null, party: string): string {
  if (type === "cedula") return `Cédula ${party}`;
  if (type === "passport") return "Identificador Extranjero";
  return `RNC ${party}`;
}

/**
 * An e-CF's header as DGII's models lay it out (representacion-impresa.pdf, 1.1 to 2.2): left, the
 * issuer (trade name, legal name, branch, RNC, address) and "Fecha Emisión"; right, the type in
 * words, "e-NCF", "Fecha Vencimiento" (the sequence's, where the type has one), and for a note
 * "NCF Modificado" and the modification in words; then, between blue rules, the buyer
 * ("Razón Social Cliente", "RNC Cliente").
 */
function ecfHeader(w: Writer, data: PdfDocumentData) {
  const top = w.y;
  const issuer = data.issuer;
  const trade = issuer.tradeName && issuer.tradeName !== issuer.legalName ? issuer.tradeName : null;
  // The name's column leaves room on its right for the type's name, which DGII prints on one line.
  for (const row of w.wrapped(trade ?? issuer.legalName, 260, { size: 13, bold: true })) {
    w.text(row, PAGE.margin, { size: 13, bold: true, width: 260 });
    w.y -= 15;
  }
  const issuerLines = [
    trade ? issuer.legalName : null,
    `Sucursal: ${[issuer.branchName, issuer.branchAddress].filter(Boolean).join(" — ")}`,
    issuer.rnc ? `RNC ${issuer.rnc}` : null,
  ];
  for (const line of issuerLines) {
    if (!line) continue;
    for (const row of w.wrapped(line, 330)) {
      w.text(row, PAGE.margin, { width: 330 });
      w.y -= 11;
    }
  }
  if (issuer.address) {
    const [first, ...rest] = w.wrapped(`Dirección: ${issuer.address}`, 330, { size: 8 });
    w.text(first ?? "", PAGE.margin, { size: 8, width: 330 });
    w.y -= 10;
    for (const row of rest) {
      w.text(row, PAGE.margin, { size: 8, width: 330 });
      w.y -= 10;
    }
  }
  const phones = [(issuer.phone ?? issuer.branchPhone) ? `Teléfono: ${issuer.phone ?? issuer.branchPhone}` : null, issuer.email].filter(Boolean).join(" · ");
  if (phones) {
    w.text(phones, PAGE.margin, { size: 8, width: 330 });
    w.y -= 10;
  }
  w.labelled("Fecha Emisión:", printedDate(data.issueDate), PAGE.margin);
  w.y -= 12;
  const left = w.y;

  w.y = top;
  for (const row of w.wrapped(data.title, 268, { size: 12, bold: true })) {
    w.text(row, 304, { size: 12, bold: true, width: 268, align: "right" });
    w.y -= 15;
  }
  const right: [string, string][] = [[`${data.numberLabel ?? "e-NCF"}:`, data.documentNumber]];
  if (data.validUntil && !TYPES_WITHOUT_EXPIRY.has(data.ecfType ?? "")) right.push(["Fecha Vencimiento:", printedDate(data.validUntil)]);
  if (data.reference) right.push(["NCF Modificado:", data.reference.ncf]);
  for (const [label, value] of right) {
    w.labelled(label, value, 352, { width: 220, align: "right" });
    w.y -= 11;
  }
  const modification = data.reference?.code ? MODIFICATION_WORDS[data.reference.code] : undefined;
  if (modification) {
    w.text(modification, 352, { bold: true, width: 220, align: "right" });
    w.y -= 11;
  }
  // What DGII's models do not show but the document has: the payment deadline (FechaLimitePago)
  // and a foreign currency with its rate (OtraMoneda: TipoMoneda, TipoCambio).
  if (data.dueDate) {
    w.labelled(`${data.dueDateLabel}:`, printedDate(data.dueDate), 352, { width: 220, align: "right" });
    w.y -= 11;
  }
  if (data.currency) {
    w.labelled("Moneda:", `${data.currency.code} — Tasa: ${data.currency.exchangeRate}`, 352, { width: 220, align: "right" });
    w.y -= 11;
  }
  w.y = Math.min(left, w.y) - 4;
  rule(w, true);
  w.y -= 18;

  // The buyer: an E32 names one only when it has one (RazonSocialComprador is conditional, "2").
  const party = data.customerLabel ?? "Cliente";
  const buyerKnown = data.ecfType !== "32" || data.customer.identification !== null;
  if (buyerKnown) {
    w.labelled(`Razón Social ${party}:`, data.customer.name, PAGE.margin, { width: PAGE.width - 2 * PAGE.margin });
    w.y -= 12;
    if (data.customer.identification) {
      w.labelled(`${identificationLabel(data.customer.identificationType, party)}:`, data.customer.identification, PAGE.margin);
      w.y -= 12;
    }
    w.y += 4;
    rule(w, true);
    w.y -= 16;
  }
}

/** A B-series document's or a quotation's header (Norma General 06-2018): issuer left, type, NCF and dates right, then the buyer. */
function paperHeader(w: Writer, data: PdfDocumentData) {
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
  // The title wraps in its column: the type's whole name is what Norma General 06-2018 wants printed.
  for (const row of w.wrapped(data.title, 192, { size: 14, bold: true })) {
    w.text(row, 380, { size: 14, bold: true, width: 192, align: "right" });
    w.y -= 16;
  }
  // The sequence's internal name is not printed: the type's name above is the document's.
  const documentLines: [string, boolean][] = [
    [`${data.numberLabel ?? "NCF"}: ${data.documentNumber}`, true],
    ...(data.validUntil ? ([[`Válida hasta: ${printedDate(data.validUntil)}`, false]] as [string, boolean][]) : []),
    [`Fecha de emisión: ${printedDate(data.issueDate)}`, false],
    ...(data.dueDate ? ([[`${data.dueDateLabel}: ${printedDate(data.dueDate)}`, false]] as [string, boolean][]) : []),
    ...(data.currency ? ([[`Moneda: ${data.currency.code} — Tasa: ${data.currency.exchangeRate}`, false]] as [string, boolean][]) : []),
    ...(data.reference
      ? ([
          [`NCF modificado: ${data.reference.ncf}`, true],
          [`Fecha NCF modificado: ${printedDate(data.reference.date)}`, false],
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
}

/** A document of several pages numbers them (DGII's model 1.7: "Página No. 2 de 2"); one page is not numbered. */
export function numberPages(pdf: PDFDocument, font: PDFFont) {
  const pages = pdf.getPages();
  if (pages.length < 2) return;
  pages.forEach((page, index) => {
    const label = `Página No. ${index + 1} de ${pages.length}`;
    page.drawText(label, {
      x: PAGE.width - PAGE.margin - font.widthOfTextAtSize(label, 8),
      y: PAGE.margin / 2,
      size: 8,
      font,
      color: rgb(0.3, 0.3, 0.3),
    });
  });
}

/** An invoice, note, purchase document or quotation as a PDF with Spanish labels. */
export async function renderDocumentPdf(data: PdfDocumentData): Promise<Uint8Array<ArrayBuffer>> {
  const { PDFDocument, StandardFonts } = await loadPdfLib();
  const pdf = await PDFDocument.create();
  pdf.setTitle(`${data.title} ${data.documentNumber}`);
  pdf.setProducer("Sucursal");
  const w = new Writer(pdf, await pdf.embedFont(StandardFonts.Helvetica), await pdf.embedFont(StandardFonts.HelveticaBold));
  const electronic = Boolean(data.ecfType);
  const symbol = currencySymbol(data.currency?.code);

  if (electronic) ecfHeader(w, data);
  else paperHeader(w, data);
  // A page after the first says whose it is: a sheet parted from the first still names the
  // document (its type and number; the page's own number is at its foot, numberPages).
  w.continuation = () => {
    w.text(`${data.title} — ${data.numberLabel ?? (electronic ? "e-NCF" : "NCF")}: ${data.documentNumber} (continuación)`, PAGE.margin, {
      size: 8,
      bold: true,
      width: PAGE.width - 2 * PAGE.margin,
    });
    w.y -= 18;
  };

  const columns = electronic
    ? ecfColumns(data.lines.some((line) => line.discountAmount !== undefined && !/^0+(\.0+)?$/.test(line.discountAmount)))
    : PAPER_COLUMNS;
  const descriptionIndex = columns.findIndex((col) => col.label === "Descripción");
  const description = columns[descriptionIndex]!;
  const header = () => {
    for (const col of columns) w.text(col.label, col.x, { bold: true, width: col.width, align: col.align });
    w.y -= 4;
    w.line();
    w.y -= 12;
  };
  header();
  for (const line of data.lines) {
    // The description wraps in its column; a row taller than what is left of the page moves on
    // to the next one, continuing there line by line when it is longer than a page.
    const rows = w.wrapped(line.description, description.width);
    w.ensure(Math.min(rows.length, 4) * LINE_HEIGHT + 2, header);
    columns.forEach((col, i) => {
      if (i !== descriptionIndex) w.text(col.value(line), col.x, { width: col.width, align: col.align });
    });
    w.block(rows, description.x, header);
  }
  if (electronic) {
    w.y += 4;
    rule(w, true);
    w.y -= 18;
  } else {
    w.line();
    w.y -= 14;
  }

  const timbre = data.ecf ? new Timbre(data.ecf) : null;
  // An e-CF prints its totals as DGII's models do (no breakdown: the ITBIS is in each line and the
  // totals); a B-series document its taxes per rate (Norma General 06-2018).
  const breakdown = electronic ? [] : data.taxBreakdown;
  // With a timbre, the breakdown, the totals and the QR beside them go onto one page together.
  const breakdownHeight = breakdown.length ? 12 * (breakdown.length + 1) + 6 : 0;
  w.ensure(Math.max(16 * (breakdown.length + data.totals.length) + 40, timbre ? breakdownHeight + timbre.depth + 4 : 0));
  if (breakdown.length) {
    w.text("Desglose de impuestos", PAGE.margin, { bold: true });
    w.y -= 12;
    for (const tax of breakdown) {
      w.text(tax.label, PAGE.margin, { width: 330 });
      // Amounts in the totals' column, so every amount of the page lines up.
      w.text(amount(tax.amount), 490, { width: 82, align: "right" });
      w.y -= 12;
    }
    w.y -= 6;
  }
  const totalsTop = w.y;
  for (const total of data.totals) {
    const value = amount(total.value, total.dop ? "RD$" : symbol);
    if (electronic) {
      // DGII's models: the label bold, right-aligned against the amount's column.
      w.text(`${total.label}:`, 330, { bold: true, width: 140, align: "right" });
      w.text(value, 476, { bold: total.bold, width: 96, align: "right" });
    } else {
      w.text(total.label, 380, { bold: total.bold, width: 110 });
      w.text(value, 490, { bold: total.bold, width: 82, align: "right" });
    }
    w.y -= 13;
  }
  if (timbre) w.y = Math.min(w.y, timbre.draw(w, totalsTop) - 13);
  if (data.reference?.reason) {
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
  numberPages(pdf, w.font);
  // pdf-lib writes into an ArrayBuffer of its own (never a SharedArrayBuffer): a Response body.
  return (await pdf.save()) as Uint8Array<ArrayBuffer>;
}

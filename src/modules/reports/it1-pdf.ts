import type { PDFDocument } from "pdf-lib";
import { groupedDecimal } from "../../lib/decimal";
import { loadPdfLib, numberPages, PAGE, Writer } from "../sales/pdf";
import type { Casilla, It1 } from "./it1";
import { IT1_READING_DEFAULTS, type It1Readings } from "./schemas";

/**
 * The IT-1 and its Anexo A as a PDF laid out like DGII's form (issue 47), for the accountant to key
 * into the Oficina Virtual's interactive declaration: the header (RNC, razón social, período), then
 * each section in the form's order with each casilla's number, DGII's name and its amount, the
 * casillas Sucursal leaves to the accountant marked (blank where it cannot compute them). Drawn from
 * the report's JSON alone (the snapshot's, once the period is closed: its razón social too), so the
 * PDF says what the JSON says, digit for digit.
 */

/** A range of casillas under one heading, in the form's order. */
interface Section {
  title: string;
  from: number;
  to: number;
}

/** IT-1 (2020): I ingresos (1-10), II liquidación (11-38), A ITBIS retenido/percibido (39-68). */
const IT1_SECTIONS: Section[] = [
  { title: "I. Ingresos por operaciones", from: 1, to: 10 },
  { title: "II. Liquidación", from: 11, to: 38 },
  { title: "A. ITBIS retenido / ITBIS percibido", from: 39, to: 68 },
];

/** Anexo A (2020): renglón I is the header (datos generales); II to VIII here, IX (four columns) apart. */
const ANEXO_SECTIONS: Section[] = [
  { title: "II. Operaciones por tipo de comprobante (NCF y e-NCF)", from: 1, to: 11 },
  { title: "III. Operaciones por tipo de venta", from: 12, to: 19 },
  { title: "IV. Operaciones por tipo de ingreso", from: 20, to: 26 },
  { title: "V. Pagos computables por retenciones", from: 27, to: 33 },
  { title: "VI. Operaciones de constructoras", from: 34, to: 38 },
  { title: "VII. Operaciones de comisionistas", from: 39, to: 42 },
  { title: "VIII. Notas de crédito y regímenes especiales", from: 43, to: 44 },
];

/** The marks of the casillas the books do not give: C the accountant's (0.00, or blank), D given in the request. */
const MARKS: Partial<Record<Casilla["from"], string>> = { accountant: "C", input: "D" };

const MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"];

/** Columns: the mark, the casilla's number, its name, then the count and the amount ending at the right margin. */
const X = { mark: PAGE.margin, casilla: 50, name: 80, count: 470, right: PAGE.width - PAGE.margin };
const NAME_WIDTH = 330;
/** Anexo A VI and VII: the name narrower, the «total facturado» in the count's column, the «monto» at the right. */
const TWO_COLUMNS_NAME_WIDTH = 290;
/** Renglón IX: the name narrower, then columns A, B, C and D (each ends at its x). */
const IX = { nameWidth: 178, columns: [336, 414, 492, PAGE.width - PAGE.margin] };
const LINE = 11;

/** Each unconfirmed reading (MONTHLY-CLOSE §7, the JSON's `readings`) as the PDF names it and its values. */
const READINGS: { [K in keyof It1Readings]: { label: string; values: Record<It1Readings[K], string> } } = {
  credit_notes_in_count: {
    label: "cantidad del Anexo A 11",
    values: { subtract: "las notas de crédito restan", count: "las notas de crédito cuentan como comprobantes" },
  },
  credit_notes_in_income_types: {
    label: "Anexo A IV (20-25)",
    values: { subtract: "cada nota de crédito resta de su tipo de ingreso", leave_out: "sin las notas de crédito" },
  },
  coefficient_rounding: { label: "coeficiente del Anexo A 54", values: { two_decimals: "a dos decimales", unrounded: "sin redondear" } },
  state_withholding_casilla: { label: "ITBIS retenido por entidades del Estado", values: { "31": "en la casilla 31", "29": "en la casilla 29" } },
};

/**
 * The readings the figures follow, said on the form's first page: an accountant keying a PDF made
 * with another than the default must see it there, not only in the JSON.
 */
function readingsText(report: It1): string {
  const { readings } = report;
  if (!readings) return "Lecturas no confirmadas por la DGII: las predeterminadas (cierre guardado antes de que se registraran).";
  const parts = (Object.keys(READINGS) as (keyof It1Readings)[]).map((name) => {
    const { label, values } = READINGS[name];
    const value = readings[name];
    const text = (values as Record<string, string>)[value] ?? value;
    return `${label}: ${text}${value === IT1_READING_DEFAULTS[name] ? "" : " (no la predeterminada)"}`;
  });
  return `Lecturas no confirmadas por la DGII con que se calculó: ${parts.join("; ")}.`;
}

/** An amount of the JSON (DOP, two decimals) as the form is keyed: thousands grouped, on the digits (never a float). */
const amount = (value: string) => groupedDecimal(value);

/** Digits need no drawable() filtering: drawn right-aligned at `right`, never cut. */
function right(w: Writer, value: string, x: number, bold = false) {
  const font = bold ? w.bold : w.font;
  w.page.drawText(value, { x: x - font.widthOfTextAtSize(value, 9), y: w.y, size: 9, font });
}

/**
 * The razón social the report carries: the profile's when computed, a closed period's as its close
 * kept it. An IT-1 kept before the name was kept has none: said so, never today's name instead.
 */
function legalNameOf(report: It1): string {
  if (report.legal_name === undefined) return "(no guardada en el cierre de este período)";
  return report.legal_name ?? "(sin razón social en el perfil de la empresa)";
}

function header(w: Writer, report: It1, title: string) {
  w.text(title, PAGE.margin, { size: 13, bold: true });
  w.y -= 15;
  const subtitle = "Declaración Jurada y/o Pago del Impuesto sobre las Transferencias de Bienes Industrializados y Servicios (ITBIS)";
  for (const row of w.wrapped(subtitle, PAGE.width - 2 * PAGE.margin, { size: 10 })) {
    w.text(row, PAGE.margin, { size: 10 });
    w.y -= 12;
  }
  w.y -= 4;
  const month = Number(report.period.slice(4));
  const period = `${report.period.slice(4)}/${report.period.slice(0, 4)} (${MONTHS[month - 1]} de ${report.period.slice(0, 4)})`;
  w.labelled("RNC:", report.rnc, PAGE.margin);
  w.labelled("Período:", period, 330);
  w.y -= 12;
  w.labelled("Razón social:", legalNameOf(report), PAGE.margin, { width: PAGE.width - 2 * PAGE.margin });
  w.y -= 6;
  w.line();
  w.y -= 12;
}

function columnHeader(w: Writer, withCount: boolean) {
  w.text("Casilla", X.mark, { bold: true, size: 8 });
  w.text("Descripción (DGII)", X.name, { bold: true, size: 8 });
  if (withCount) w.text("Cantidad", X.count - 36, { bold: true, size: 8, width: 36, align: "right" });
  w.text("Monto RD$", X.right - 80, { bold: true, size: 8, width: 80, align: "right" });
  w.y -= 4;
  w.line();
  w.y -= 10;
}

/** A section's title, kept on the page with its first rows (and `extra` points of heads under it). */
function sectionTitle(w: Writer, title: string, onBreak: () => void, extra = 0) {
  w.ensure(18 + 2 * LINE + extra, onBreak);
  w.y -= 4;
  w.text(title, PAGE.margin, { bold: true, size: 10 });
  w.y -= 13;
}

/** One casilla's row: shaded when left to the accountant; the name wrapped, the figures on its first line. */
function casillaRow(
  w: Writer,
  lib: typeof import("pdf-lib"),
  row: { casilla: string; name: string; from: Casilla["from"] },
  width: number,
  onBreak: () => void,
  figures: () => void,
) {
  const lines = w.wrapped(row.name, width);
  w.ensure(lines.length * LINE + 2, onBreak);
  if (row.from === "accountant") {
    w.page.drawRectangle({
      x: PAGE.margin - 2,
      y: w.y - (lines.length - 1) * LINE - 3,
      width: PAGE.width - 2 * PAGE.margin + 4,
      height: lines.length * LINE + 1,
      color: lib.rgb(0.9, 0.9, 0.9),
    });
  }
  const mark = MARKS[row.from];
  if (mark) w.text(mark, X.mark, { bold: true });
  right(w, row.casilla, X.casilla + 24, true);
  // The name before the figures, so that the text reads as the form does: number, name, amount.
  const top = w.y;
  w.block(lines, X.name, onBreak);
  const below = w.y;
  w.y = top;
  figures();
  w.y = below - 2;
}

/** The IT-1 and its Anexo A of `report` (the JSON of GET /reports/it1) as a PDF. */
export async function renderIt1Pdf(report: It1): Promise<Uint8Array<ArrayBuffer>> {
  const lib = await loadPdfLib();
  // No creation or modification date (updateMetadata: false): the same figures give the same
  // bytes, so a closed period's PDF does not change from one download to the next.
  const pdf: PDFDocument = await lib.PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(`IT-1 ${report.rnc} ${report.period}`);
  pdf.setProducer("Sucursal");
  const w = new Writer(pdf, await pdf.embedFont(lib.StandardFonts.Helvetica), await pdf.embedFont(lib.StandardFonts.HelveticaBold));
  const edition = /\b(\d{4}) edition\b/.exec(report.edition)?.[1] ?? report.edition;

  header(w, report, "Formulario IT-1");
  const legend = [
    `Casillas y nombres del formulario IT-1 y su Anexo A, edición ${edition} (Instructivo Llenado IT-1 de la DGII). Montos en pesos (RD$).`,
    "C: casilla que completa el contador (Sucursal no puede calcularla: en blanco, sombreada). D: dato informado en la solicitud. En negrita: aritmética del formulario.",
    "Las demás salen del 607 (con e-CF) y el 606 del período, o de la aritmética del formulario. Para digitar en la declaración interactiva de la Oficina Virtual; no sustituye la declaración.",
    readingsText(report),
  ];
  for (const text of legend) w.block(w.wrapped(text, PAGE.width - 2 * PAGE.margin, { size: 9 }), PAGE.margin);
  w.y -= 6;

  const withCount = (list: Casilla[]) => list.some((c) => c.count !== undefined);
  const casillas = (list: Casilla[], sections: Section[]) => {
    const counted = withCount(list);
    const onBreak = () => columnHeader(w, counted);
    columnHeader(w, counted);
    for (const section of sections) {
      const rows = list.filter((c) => Number(c.casilla) >= section.from && Number(c.casilla) <= section.to);
      if (!rows.length) continue;
      // Renglones VI and VII have two columns: their heads under the section's title.
      const twoColumns = rows.some((row) => row.total_invoiced !== undefined);
      sectionTitle(w, section.title, onBreak, twoColumns ? 11 : 0);
      if (twoColumns) {
        w.text("Total facturado", X.count - 80, { bold: true, size: 8, width: 80, align: "right" });
        w.text("Monto sujeto a ITBIS", X.right - 100, { bold: true, size: 8, width: 100, align: "right" });
        w.y -= 11;
      }
      for (const row of rows) {
        casillaRow(w, lib, row, twoColumns ? TWO_COLUMNS_NAME_WIDTH : NAME_WIDTH, onBreak, () => {
          if (row.count !== undefined) right(w, String(row.count), X.count);
          if (row.total_invoiced !== undefined) right(w, amount(row.total_invoiced), X.count, row.from === "formula");
          // A figure Sucursal cannot compute is left blank, for the accountant to fill in.
          if (row.amount !== null) right(w, amount(row.amount), X.right, row.from === "formula");
        });
      }
    }
  };
  casillas([...report.it1, ...report.section_a], IT1_SECTIONS);

  // The Anexo A on its own pages, with the header again: DGII's form is a separate sheet.
  w.newPage();
  header(w, report, "Anexo A del IT-1");
  casillas(report.anexo_a, ANEXO_SECTIONS);

  // IX. ITBIS pagado: columns A compras locales, B servicios, C importaciones, D total.
  const ixHeader = () => {
    w.text("Casilla", X.mark, { bold: true, size: 8 });
    w.text("Descripción (DGII)", X.name, { bold: true, size: 8 });
    ["A Compras locales", "B Servicios", "C Importaciones", "D Total"].forEach((label, i) => {
      const x = IX.columns[i] ?? X.right;
      w.text(label, x - 76, { bold: true, size: 8, width: 76, align: "right" });
    });
    w.y -= 4;
    w.line();
    w.y -= 10;
  };
  w.ensure(18 + 4 * LINE);
  w.y -= 6;
  w.text("IX. ITBIS pagado", PAGE.margin, { bold: true, size: 10 });
  w.y -= 13;
  ixHeader();
  for (const row of report.itbis_paid) {
    casillaRow(w, lib, row, IX.nameWidth, ixHeader, () => {
      // A row Sucursal cannot compute (45, 46) is left blank, for the accountant to fill in.
      const values = [row.a, row.b, row.c, row.d].map((value) => (value === null ? null : row.casilla === "54" ? `${amount(value)} %` : amount(value)));
      values.forEach((value, i) => {
        if (value !== null) right(w, value, IX.columns[i] ?? X.right, row.from === "formula");
      });
    });
  }
  numberPages(pdf, w.font);
  return (await pdf.save()) as Uint8Array<ArrayBuffer>;
}

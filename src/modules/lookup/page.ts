import { groupedDecimal } from "../../lib/decimal";
import type { PdfDocumentData } from "../sales/pdf";
import { timbreQr } from "../sales/qr";
import type { ConsumerInvoice } from "./service";

/** The one answer for an unknown e-NCF and a wrong security code alike: no oracle of which numbers exist. */
export const NOT_FOUND_TEXT = "No encontramos un comprobante con ese e-NCF y código de seguridad. Revise ambos datos en su recibo.";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/** The timbre's QR as an SVG: one path of the dark modules, a 4-module quiet zone (ISO/IEC 18004). */
function qrSvg(url: string): string {
  const qr = timbreQr(url);
  const path: string[] = [];
  qr.modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      let end = x;
      while (end + 1 < row.length && row[end + 1]) end++;
      path.push(`M${x + 4} ${y + 4}h${end - x + 1}v1h-${end - x + 1}z`);
      x = end;
    }
  });
  const side = qr.size + 8;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" width="196" height="196" role="img" aria-label="Código QR del timbre de la DGII" shape-rendering="crispEdges"><rect width="${side}" height="${side}" fill="#fff"/><path d="${path.join("")}" fill="#000"/></svg>`;
}

/** dd-MM-yyyy, as the receipt prints dates. */
const dominicanDate = (iso: string) => `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;

/** What the customer may see of the totals: the document's amounts (as its e-CF prints them), not its payment state. */
const SHOWN_TOTALS = new Set([
  "Subtotal Gravado",
  "Monto Exento",
  "Monto No Facturable",
  "Total ITBIS",
  "Total ISC",
  "Propina Legal",
  "Otros Impuestos",
  "Total",
  "Total en DOP",
]);

/** An amount as the printed e-CF writes it: thousands separated, two decimals (representacion-impresa.pdf). */
const money = (value: string) => (/^-?\d+(\.\d+)?$/.test(value) ? groupedDecimal(value) : value);
const count = (value: string) => (/^-?\d+(\.\d+)?$/.test(value) ? groupedDecimal(value, 0) : value);

/**
 * One line: a cell per column of DGII's models (Cantidad, Descripción, Precio, ITBIS, Valor), each
 * naming its column (data-label) for a phone, where each line is stacked rather than a table row.
 */
function lineRow(line: PdfDocumentData["lines"][number]): string {
  const cell = (label: string, value: string, className: string) => `<td data-label="${label}" class="${className}">${escapeHtml(value)}</td>`;
  return `<tr>${cell("Descripción", line.description, "d")}${cell("Cantidad", count(line.quantity), "n")}${cell("Precio", money(line.unitPrice), "n")}${cell("ITBIS", money(line.itbis), "n itbis")}${cell("Valor", money(line.amount), "n valor")}</tr>`;
}

function documentSection(found: ConsumerInvoice, code: string): string {
  const pdf: PdfDocumentData = found.pdf;
  const issuer = pdf.issuer;
  const query = `?codigo=${encodeURIComponent(code)}`;
  const lines = pdf.lines.map(lineRow).join("");
  const totals = pdf.totals
    .filter((row) => SHOWN_TOTALS.has(row.label))
    .map((row) => `<tr${row.bold ? ' class="b"' : ""}><th scope="row">${escapeHtml(row.label)}</th><td class="n">${escapeHtml(money(row.value))}</td></tr>`)
    .join("");
  const ecf = pdf.ecf;
  return `<section id="comprobante" aria-labelledby="titulo">
<h2 id="titulo">${escapeHtml(pdf.title)}</h2>
<div class="issuer"><strong>${escapeHtml(issuer.legalName)}</strong>${issuer.tradeName && issuer.tradeName !== issuer.legalName ? `<br>${escapeHtml(issuer.tradeName)}` : ""}
<br>RNC: <span id="rnc">${escapeHtml(issuer.rnc ?? "")}</span>${issuer.address ? `<br>${escapeHtml(issuer.address)}` : ""}</div>
<dl><dt>e-NCF</dt><dd id="encf">${escapeHtml(found.encf)}</dd><dt>Fecha de emisión</dt><dd id="fecha">${dominicanDate(pdf.issueDate)}</dd>
<dt>Cliente</dt><dd>${escapeHtml(pdf.customer.name)}</dd></dl>
<table id="lineas"><thead><tr><th>Descripción</th><th class="n">Cantidad</th><th class="n">Precio</th><th class="n">ITBIS</th><th class="n">Valor</th></tr></thead><tbody>${lines}</tbody></table>
<table id="totales">${totals}</table>
${
  ecf
    ? `<figure>${qrSvg(ecf.qrUrl)}<figcaption>Código de seguridad: <span id="codigo">${escapeHtml(ecf.securityCode)}</span><br>Fecha de firma: ${escapeHtml(ecf.signedAt)}<br><a href="${escapeHtml(ecf.qrUrl)}" rel="noopener">Verificar en la DGII</a></figcaption></figure>`
    : ""
}
<p class="downloads"><a id="pdf" href="/consulta/${encodeURIComponent(found.encf)}/pdf${escapeHtml(query)}">Descargar PDF</a> <a id="xml" href="/consulta/${encodeURIComponent(found.encf)}/xml${escapeHtml(query)}">Descargar XML firmado</a></p>
</section>`;
}

/** The lookup page: the form, then the document found or the one "not found". */
export function lookupPage(tenantName: string, input: { encf: string; code: string }, found: ConsumerInvoice | null, searched: boolean): string {
  const result = found ? documentSection(found, input.code) : searched ? `<p id="no-encontrado" role="alert">${NOT_FOUND_TEXT}</p>` : "";
  // A miss shows an empty form: the page is then the same whatever was asked (no oracle in the body).
  const shown = found ? input : { encf: "", code: "" };
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Consulta de comprobantes · ${escapeHtml(tenantName)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a1a1a;background:#f6f7f9}
main{max-width:760px;margin:0 auto;padding:16px}
h1{font-size:1.3rem;margin:.5rem 0 1rem}h2{font-size:1.1rem;margin:0 0 .75rem}
form{display:grid;gap:10px;background:#fff;padding:16px;border-radius:8px;border:1px solid #dde}
label{display:grid;gap:4px;font-weight:600}input{font:inherit;padding:10px;border:1px solid #99a;border-radius:6px;width:100%;box-sizing:border-box}
button{font:inherit;padding:12px;border:0;border-radius:6px;background:#0b5cad;color:#fff;font-weight:600}
section{background:#fff;margin-top:16px;padding:16px;border-radius:8px;border:1px solid #dde}
dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px}dt{font-weight:600}dd{margin:0}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{padding:6px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.n{text-align:right;white-space:nowrap}.d{overflow-wrap:anywhere}#totales{max-width:320px;margin-left:auto}.b{font-weight:700}
@media (max-width:600px){
#lineas thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
#lineas,#lineas tbody{display:block}
#lineas tr{display:grid;grid-template-columns:1fr 1fr;gap:2px 16px;padding:8px 0;border-bottom:1px solid #dde}
#lineas td{display:flex;justify-content:space-between;gap:8px;padding:2px 0;border:0;white-space:normal}
#lineas td::before{content:attr(data-label);font-weight:600;color:#555}
#lineas td.d{grid-column:1/-1;font-weight:600}#lineas td.d::before{content:none}
}
figure{margin:12px 0;display:flex;flex-wrap:wrap;gap:12px;align-items:center}svg{max-width:100%;height:auto}
.downloads{display:flex;flex-wrap:wrap;gap:12px}.downloads a{padding:10px 14px;border:1px solid #0b5cad;border-radius:6px;text-decoration:none;color:#0b5cad}
#no-encontrado{background:#fff4f4;border:1px solid #e0a0a0;padding:12px;border-radius:8px;margin-top:16px}
</style></head>
<body><main>
<h1>Consulta de comprobantes de ${escapeHtml(tenantName)}</h1>
<form method="get" action="/consulta">
<label>e-NCF<input name="encf" value="${escapeHtml(shown.encf)}" placeholder="E32 y 10 dígitos" maxlength="20" autocomplete="off" required></label>
<label>Código de seguridad<input name="codigo" value="${escapeHtml(shown.code)}" maxlength="20" autocomplete="off" required></label>
<button type="submit">Consultar</button>
</form>
${result}
</main></body></html>`;
}

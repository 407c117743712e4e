import writeXlsxFile from "write-excel-file/universal";

/**
 * DGII's test sets as the tests write them (issue 32), following the layout of DGII's workbooks
 * (../shared/CERTIFICATION.md, "The test sets' layout"): sheet ECF, one row per case, the columns
 * the XML element names, `Campo[n]` of line n, `Campo[n][m]` entry m of its table, `#e` in every
 * cell a case leaves out (as DGII's file does), DGII's misspelled `MontosubRecargo`; sheet RFCE, the
 * summaries of the E32 under RD$250,000; sheet ACEECF_Generadas, the commercial approvals.
 */

export type Value = string | number | Date | null;
/** A case: its columns in order, each with the cell written (a string as text, a number or date as Excel stores them). */
export type Row = [string, Value][];

export const ISSUER_RNC = "101010101";
const BUYER_RNC = "131880681";

const TYPES_OF_THE_SET: [string, number][] = [
  ["31", 6],
  ["32", 6],
  ["33", 2],
  ["34", 3],
  ["41", 2],
  ["43", 2],
  ["44", 2],
  ["45", 2],
  ["46", 2],
  ["47", 2],
];

/** Cents as DGII writes amounts: "1234.50". */
const money = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

interface Line {
  name: string;
  quantity: number;
  /** Price per unit, in cents. */
  price: number;
  /** Extra columns of the line, written after its amounts (e.g. sub-discounts), `[n]` added by the caller. */
  extra?: Row;
}

function lineColumns(type: string, n: number, line: Line, exempt: boolean): Row {
  // The buyer's own e-CF (E41 compras, E47 pagos al exterior) say on each line who withholds (Retencion).
  const withholding: Row =
    type === "41"
      ? [[`IndicadorAgenteRetencionoPercepcion[${n}]`, "1"]]
      : type === "47"
        ? [
            [`IndicadorAgenteRetencionoPercepcion[${n}]`, "1"],
            [`MontoISRRetenido[${n}]`, money(Math.round(line.quantity * line.price * 0.1))],
          ]
        : [];
  return [
    [`NumeroLinea[${n}]`, String(n)],
    [`IndicadorFacturacion[${n}]`, type === "46" ? "3" : exempt ? "4" : "1"],
    ...withholding,
    [`NombreItem[${n}]`, line.name],
    [`IndicadorBienoServicio[${n}]`, "1"],
    [`CantidadItem[${n}]`, `${line.quantity}.00`],
    [`PrecioUnitarioItem[${n}]`, `${money(line.price)}00`],
    ...(line.extra ?? []),
    [`MontoItem[${n}]`, money(line.quantity * line.price)],
  ];
}

/** One e-CF case: the set's values, totals from its lines (the fixture's arithmetic, not Sucursal's). */
export function ecfCase(type: string, sequence: number, lines: Line[], extra: { header?: Row; totals?: Row; reference?: Row } = {}): Row {
  const encf = `E${type}${String(sequence).padStart(10, "0")}`;
  // E43, E44 and E47 carry no ITBIS (MontoExento); an E46 is taxed at 0% (MontoGravadoI3, ITBIS3 0).
  const exempt = type === "43" || type === "44" || type === "47";
  const base = lines.reduce((sum, l) => sum + l.quantity * l.price, 0);
  const itbis = exempt ? 0 : Math.round(base * 0.18);
  const buyer: Row =
    type === "43" || type === "47"
      ? []
      : [
          ["RNCComprador", BUYER_RNC],
          ["RazonSocialComprador", "DOCUMENTOS ELECTRONICOS DE 03"],
        ];
  const totals: Row =
    type === "46"
      ? [
          ["MontoGravadoTotal", money(base)],
          ["MontoGravadoI3", money(base)],
          ["ITBIS3", "0"],
          ["TotalITBIS", "0.00"],
          ["TotalITBIS3", "0.00"],
          ["MontoTotal", money(base)],
        ]
      : exempt
        ? [
            ["MontoExento", money(base)],
            ["MontoTotal", money(base)],
          ]
        : [
            ["MontoGravadoTotal", money(base)],
            ["MontoGravadoI1", money(base)],
            ["ITBIS1", "18"],
            ["TotalITBIS", money(itbis)],
            ["TotalITBIS1", money(itbis)],
            ["MontoTotal", money(base + itbis)],
          ];
  return [
    ["CasoPrueba", `${ISSUER_RNC}${encf}`],
    ["Version", "1.0"],
    ["TipoeCF", type],
    ["ENCF", encf],
    ["FechaVencimientoSecuencia", type === "32" || type === "34" ? "#e" : "31-12-2028"],
    ...((type === "34" ? [["IndicadorNotaCredito", "0"]] : []) as Row),
    ["TipoIngresos", type === "41" || type === "43" || type === "47" ? "#e" : "01"],
    ["TipoPago", "1"],
    ["RNCEmisor", ISSUER_RNC],
    ["RazonSocialEmisor", "DOCUMENTOS ELECTRONICOS DE 02"],
    ["DireccionEmisor", "AVE. ISABEL AGUIAR NO. 269, ZONA INDUSTRIAL DE HERRERA"],
    ...(extra.header ?? []),
    ["FechaEmision", "01-04-2020"],
    ...buyer,
    ...totals,
    ...(extra.totals ?? []),
    ...lines.flatMap((line, i) => lineColumns(type, i + 1, line, exempt)),
    ...(extra.reference ?? []),
  ];
}

const reference = (ncf: string, code: string): Row => [
  ["NCFModificado", ncf],
  ["FechaNCFModificado", "01-04-2020"],
  ["CodigoModificacion", code],
];

/** The four E32 under RD$250,000, in sheet ECF among the others and, in a set that has sheet RFCE, as summaries there too. */
export const SMALL_E32 = [11, 12, 13, 15];

/**
 * Sheet ECF of DGII's layout: 29 rows, the 25 e-CF DGII's reception takes (E31 x6, E32 x2 over
 * RD$250,000, E33 x2, E34 x3, E41 x2, E43 x2, E44 x2, E45 x2, E46 x2, E47 x2) and, among them
 * where DGII's set has them, the four E32 under RD$250,000 (sent as summaries). The notes refer to
 * invoices of the set: E33 1 → E31 2, E33 2 → E32 5, E34 1 and 2 → E31 3 (crediting it in full
 * between them), E34 3 → the small E32 11.
 */
export function ecfCases(issuer = ISSUER_RNC): Row[] {
  return fixtureCases().map((row) =>
    row.map(([h, v]): [string, Value] => [h, h === "RNCEmisor" ? issuer : h === "CasoPrueba" && typeof v === "string" ? v.replace(ISSUER_RNC, issuer) : v]),
  );
}

function fixtureCases(): Row[] {
  const cases: Row[] = [];
  for (const [type, count] of TYPES_OF_THE_SET) {
    for (let k = 1; k <= count; k++) {
      const sequence = type === "32" ? [5, 6, ...SMALL_E32][k - 1]! : k;
      if (type === "31" && k === 1) {
        // Lines with sub-discounts ([n][m]) and a sub-surcharge under DGII's misspelled header.
        cases.push(
          ecfCase(
            type,
            sequence,
            [
              {
                name: "LAPICES",
                quantity: 10,
                price: 3500,
                extra: [
                  ["DescuentoMonto[1]", "52.50"],
                  ["TipoSubDescuento[1][1]", "%"],
                  ["SubDescuentoPorcentaje[1][1]", "1.00"],
                  ["MontoSubDescuento[1][1]", "35.00"],
                  ["TipoSubDescuento[1][2]", "$"],
                  ["SubDescuentoPorcentaje[1][2]", "#e"],
                  ["MontoSubDescuento[1][2]", "17.50"],
                ],
              },
              {
                name: "GALLETAS",
                quantity: 3,
                price: 14500,
                extra: [
                  ["RecargoMonto[2]", "43.50"],
                  ["TipoSubRecargo[2][1]", "%"],
                  ["SubRecargoPorcentaje[2][1]", "10.00"],
                  ["MontosubRecargo[2][1]", "43.50"],
                ],
              },
            ],
            {
              header: [
                ["TelefonoEmisor[1]", "809-472-7676"],
                ["TelefonoEmisor[2]", "809-491-1918"],
                ["NumeroContenedor ", "8019289"],
              ],
            },
          ),
        );
      } else if (type === "32" && k <= 2) {
        // Over RD$250,000: sent as a full e-CF, never as a summary.
        cases.push(
          ecfCase(type, sequence, [
            { name: "NEVERA", quantity: 10, price: 2_500_000 + k * 100 },
            { name: "ESTUFA", quantity: 2, price: 1_200_000 },
          ]),
        );
      } else if (type === "33") {
        const modified = k === 1 ? "E310000000002" : "E320000000005";
        cases.push(ecfCase(type, sequence, [{ name: "CARGO POR MORA", quantity: 1, price: 50_000 }], { reference: reference(modified, "3") }));
      } else if (type === "34") {
        // E31 3 is 118.00: its two notes of 59.00 credit it in full; the third credits part of the small E32 11 (118.00).
        const [modified, price] = k < 3 ? ["E310000000003", 5_000] : ["E320000000011", 2_000];
        cases.push(ecfCase(type, sequence, [{ name: "DEVOLUCION", quantity: 1, price }], { reference: reference(modified, "3") }));
      } else {
        const lines = Array.from({ length: (k % 3) + 1 }, (_, i) => ({ name: `ARTICULO ${type}-${k}-${i + 1}`, quantity: i + 1, price: 10_000 + 2_500 * i }));
        cases.push(ecfCase(type, sequence, lines));
      }
    }
  }
  return cases;
}

/** The summaries (RFCE) of the four small E32, with the columns of DGII's sheet RFCE. */
export function rfceCases(issuer = ISSUER_RNC): Row[] {
  return ecfCases(issuer)
    .filter((row) => SMALL_E32.some((n) => row.find(([h]) => h === "ENCF")?.[1] === `E32${String(n).padStart(10, "0")}`))
    .map((row) => {
      // The columns of DGII's sheet RFCE these cases use (its others: FormaPago[n], MontoPago[n], additional taxes, CodigoSeguridadeCF).
      const keep = new Set(
        "CasoPrueba Version TipoeCF ENCF TipoIngresos TipoPago RNCEmisor RazonSocialEmisor FechaEmision RNCComprador RazonSocialComprador MontoGravadoTotal MontoGravadoI1 TotalITBIS TotalITBIS1 MontoTotal".split(
          " ",
        ),
      );
      return row.filter(([h]) => keep.has(h));
    });
}

export interface ApprovalRow {
  encf: string;
  total: Value;
  state: Value;
  reason?: string;
  at?: Value;
}

/** The approvals the tenant (`buyer`, by default the fixture's issuer) gives of e-CF it received. */
export function approvalRows(rows: ApprovalRow[], buyer = ISSUER_RNC): Row[] {
  return rows.map((r) => [
    ["Version", "1.0"],
    ["RNCEmisor", BUYER_RNC],
    ["eNCF", r.encf],
    ["FechaEmision", "01-04-2020"],
    ["MontoTotal", r.total],
    ["RNCComprador", buyer],
    ["Estado", r.state],
    ["DetalleMotivoRechazo", r.reason ?? null],
    ["FechaHoraAprobacionComercial", r.at ?? "23-06-2026 17:45:47"],
  ]);
}

/**
 * A sheet as DGII lays it out: row 1 the union of the cases' columns in the order first seen, each
 * case's row `#e` where the case has no such column.
 */
export function sheetHeaders(rows: Row[]): string[] {
  const headers: string[] = [];
  for (const row of rows) for (const [h] of row) if (!headers.includes(h)) headers.push(h);
  return headers;
}

function sheetData(rows: Row[]) {
  const headers = sheetHeaders(rows);
  return [
    headers,
    ...rows.map((row) => {
      const cells = new Map(row);
      return headers.map((h) => {
        const value = cells.has(h) ? cells.get(h)! : "#e";
        return value instanceof Date ? { value, format: "dd-mm-yyyy" } : value;
      });
    }),
  ];
}

/** The .xlsx of the given sheets, as bytes. */
export async function workbook(sheets: Record<string, Row[]>): Promise<ArrayBuffer> {
  const blob = await writeXlsxFile(Object.entries(sheets).map(([sheet, rows]) => ({ sheet, data: sheetData(rows) }))).toBlob();
  return blob.arrayBuffer();
}

/** A multipart body with the file in field `file`, as a browser's form sends it. */
export function upload(bytes: ArrayBuffer | string, name = "SetPruebas.xlsx"): FormData {
  const form = new FormData();
  form.append("file", new File([bytes], name, { type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" }));
  return form;
}

/** The columns of DGII's approval sheet (ACEECF_Generadas), as DGII's test set heads them (Formato ACECF v1.0). */
export const APPROVAL_HEADERS = [
  "Version",
  "RNCEmisor",
  "eNCF",
  "FechaEmision",
  "MontoTotal",
  "RNCComprador",
  "Estado",
  "DetalleMotivoRechazo",
  "FechaHoraAprobacionComercial",
];

import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { TestSet, TestSetSummary } from "../../src/modules/certification/schemas";
import type { Data, DataWithMessage } from "../support/api";
import { ownerRow, seedTenant } from "../support/seed";
import { approvalRows, ecfCases, ISSUER_RNC, type Row, rfceCases, SMALL_E32, sheetHeaders, upload, workbook } from "../support/test-sets";

type TestSetData = import("zod").infer<typeof TestSet>;
type Summary = import("zod").infer<typeof TestSetSummary>;

const PATH = "/ecf/certification/test-sets";

async function post(tenant: Awaited<ReturnType<typeof seedTenant>>, body: FormData) {
  return tenant.api.post<DataWithMessage<TestSetData>>(PATH, undefined, { rawBody: body });
}

/** The row with these cells replaced (in place) or appended. */
function withCells(row: Row, cells: Row): Row {
  const out: Row = row.map(([h, v]) => [h, v]);
  for (const [h, v] of cells) {
    const at = out.findIndex(([name]) => name === h);
    if (at >= 0) out[at] = [h, v];
    else out.push([h, v]);
  }
  return out;
}

/** What the set's case holds for `row` of a sheet of `rows`: its cells in the sheet's column order, `#e` and empty ones left out. */
const fieldsOf = (row: Row, rows: Row[]) =>
  [...row]
    .sort((a, b) => sheetHeaders(rows).indexOf(a[0]) - sheetHeaders(rows).indexOf(b[0]))
    .filter(([, v]) => v !== "#e" && v !== null)
    .map(([name, value]) => ({ name: name.trim().replace("MontosubRecargo", "MontoSubRecargo"), value: String(value) }));

/**
 * DGII's test sets imported from the .xlsx DGII gives (issue 32, step 2, first part): one case per
 * row named by CasoPrueba, each row's elements as DGII gives them, in column order; a row that cannot
 * make a document refuses the file with its case, column and why.
 */
describe("importing DGII's test sets", () => {
  it("imports the e-CF set (29 cases of sheet ECF, the 4 E32 under RD$250,000 paired with their summaries of sheet RFCE), each case's elements as DGII gives them and how it is sent", async () => {
    const tenant = await seedTenant();
    const ecf = ecfCases();
    // Cells as another program may have saved them: numbers and dates stored as such, an empty cell.
    const e41 = ecf.findIndex((row) => row.some(([h, v]) => h === "ENCF" && v === "E410000000001"));
    ecf[e41] = withCells(ecf[e41]!, [
      ["FechaEmision", new Date(Date.UTC(2020, 3, 1))],
      ["MontoGravadoI1", 0.1 + 0.2],
      ["CantidadItem[1]", 1],
      ["FechaLimitePago", 44146],
      ["NombreComercial", null],
      ["NumeroPedidoInterno", 1234567890123456],
    ]);
    // A trailing row of `#e` cells only is no case.
    const res = await post(tenant, upload(await workbook({ ECF: [...ecf, [["CasoPrueba", "#e"]]], RFCE: rfceCases() })));
    expect(res.status, res.text).toBe(201);
    const set = res.body.data;
    expect(res.body.message).toBe("Test set imported: 29 cases: 25 sent whole to recepcion, 4 E32 under RD$250,000 as their summary (RFCE) to recepcionfc.");
    expect(set).toMatchObject({ kind: "ecf", file_name: "SetPruebas.xlsx", case_count: 29, uploaded_by: tenant.admin.id });
    expect(set.uploaded_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // Each row of sheet ECF is a case; an E32 under RD$250,000 is sent as its summary, whose values
    // sheet RFCE's row for it gives (rows 2-5 there).
    const encfs = ecf.map((row) => String(row.find(([h]) => h === "ENCF")![1]));
    const small = SMALL_E32.map((n) => `E32${String(n).padStart(10, "0")}`);
    expect(set.cases.map((c) => [c.position, c.sheet, c.row, c.document, c.type, c.encf, c.name, c.state, c.sent_as, c.sent_to, c.summary_row])).toEqual(
      encfs.map((encf, i) => {
        const summary = small.indexOf(encf);
        const how = summary >= 0 ? ["rfce", "recepcionfc", summary + 2] : ["ecf", "recepcion", null];
        return [i + 1, "ECF", i + 2, "ecf", encf.slice(1, 3), encf, `${ISSUER_RNC}${encf}`, "pending", ...how];
      }),
    );
    expect(set.cases.map((c) => c.type)).toEqual([
      ...["31", "31", "31", "31", "31", "31"],
      ...["32", "32", "32", "32", "32", "32"],
      ...["33", "33", "34", "34", "34"],
      ...["41", "41", "43", "43", "44", "44", "45", "45", "46", "46", "47", "47"],
    ]);

    // Field by field: each row's elements in column order, `#e` left out, DGII's misspelling corrected.
    for (const [i, row] of ecf.entries()) {
      if (i !== e41) expect(set.cases[i]!.fields, String(row[0]![1])).toEqual(fieldsOf(row, ecf));
    }
    const first = set.cases[0]!.fields;
    expect(first.slice(0, 4)).toEqual([
      { name: "CasoPrueba", value: "101010101E310000000001" },
      { name: "Version", value: "1.0" },
      { name: "TipoeCF", value: "31" },
      { name: "ENCF", value: "E310000000001" },
    ]);
    expect(first.filter((f) => /\[\d+\]\[\d+\]$/.test(f.name))).toEqual([
      { name: "TipoSubDescuento[1][1]", value: "%" },
      { name: "SubDescuentoPorcentaje[1][1]", value: "1.00" },
      { name: "MontoSubDescuento[1][1]", value: "35.00" },
      { name: "TipoSubDescuento[1][2]", value: "$" },
      { name: "MontoSubDescuento[1][2]", value: "17.50" },
      { name: "TipoSubRecargo[2][1]", value: "%" },
      { name: "SubRecargoPorcentaje[2][1]", value: "10.00" },
      { name: "MontoSubRecargo[2][1]", value: "43.50" },
    ]);
    expect(first).toContainEqual({ name: "NumeroContenedor", value: "8019289" });
    expect(first).toContainEqual({ name: "TelefonoEmisor[2]", value: "809-491-1918" });
    expect(first.find((f) => f.name === "MontoTotal")).toEqual({ name: "MontoTotal", value: "926.30" });
    // An E32 of RD$250,000 or more is sent whole.
    expect(set.cases[6]).toMatchObject({ encf: "E320000000005", sent_as: "ecf", sent_to: "recepcion", summary_row: null });
    expect(set.cases[6]!.fields.find((f) => f.name === "MontoTotal")).toEqual({ name: "MontoTotal", value: "323331.80" });

    // Numbers and dates stored as such come back as the text Excel shows; an empty cell is absent.
    const saved = set.cases[e41]!.fields;
    expect(saved.find((f) => f.name === "FechaEmision")?.value).toBe("01-04-2020");
    expect(saved.find((f) => f.name === "MontoGravadoI1")?.value).toBe("0.3");
    expect(saved.find((f) => f.name === "CantidadItem[1]")?.value).toBe("1");
    expect(saved.find((f) => f.name === "FechaLimitePago")?.value).toBe("11-11-2020");
    expect(saved.some((f) => f.name === "NombreComercial")).toBe(false);
    expect(saved.find((f) => f.name === "NumeroPedidoInterno")?.value).toBe("1234567890123456");

    const read = await tenant.api.get<Data<TestSetData>>(`${PATH}/${set.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toEqual(set);
    const list = await tenant.api.get<Data<Summary[]>>(PATH);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { id: set.id, kind: "ecf", file_name: "SetPruebas.xlsx", uploaded_by: tenant.admin.id, uploaded_at: set.uploaded_at, case_count: 29 },
    ]);

    // Certification step 2 stays as it was: importing is not running. The books are untouched.
    const certification = await tenant.api.get("/ecf/certification");
    expect(certification.body.data.steps[1]).toMatchObject({ number: 2, state: "pending" });
    const books = await ownerRow<{ invoices: number; ecf: number; movements: number }>(sql`
      SELECT (SELECT count(*)::int FROM invoices WHERE tenant_id = ${tenant.tenantId}) AS invoices,
             (SELECT count(*)::int FROM ecf_documents WHERE tenant_id = ${tenant.tenantId}) AS ecf,
             (SELECT count(*)::int FROM stock_movements WHERE tenant_id = ${tenant.tenantId}) AS movements`);
    expect(books).toEqual({ invoices: 0, ecf: 0, movements: 0 });
  });

  it("imports a set of DGII's size: 5,215 columns, a sheet of several MB (unpacked without a Web Worker, which workerd has not)", async () => {
    const tenant = await seedTenant();
    const cases = ecfCases();
    // DGII's e-CF workbook: 26 rows x 5,215 columns (lines up to 62 with 5 entries per table), `#e` where a case has nothing.
    const headers = new Set(cases.flatMap((row) => row.map(([h]) => h)));
    const padding: [string, string][] = [];
    const tables = ["TipoCodigo", "CodigoItem", "TipoSubDescuento", "SubDescuentoPorcentaje", "MontoSubDescuento", "TipoSubRecargo", "SubRecargoPorcentaje"];
    for (let n = 3; headers.size + padding.length < 5215; n++) {
      for (const t of tables) for (let m = 1; m <= 5 && headers.size + padding.length < 5215; m++) padding.push([`${t}[${n}][${m}]`, "#e"]);
    }
    const bytes = await workbook({ ECF: cases.map((row) => [...row, ...padding]), RFCE: rfceCases() });
    expect(bytes.byteLength).toBeGreaterThan(300 * 1024);
    const res = await post(tenant, upload(bytes));
    expect(res.status, res.text.slice(0, 500)).toBe(201);
    expect(res.body.data.case_count).toBe(29);
    expect(res.body.data.cases[0]!.fields).toEqual(fieldsOf(cases[0]!, cases));
  });

  it("imports the commercial approvals (sheet ACEECF_Generadas): numbers Excel stored as numbers come back as their text", async () => {
    const tenant = await seedTenant();
    const rows = approvalRows([
      { encf: "E310000000002", total: 4674.35, state: 1 },
      { encf: "E310000000003", total: "154003.47", state: "1" },
      { encf: "E310000000004", total: 18283.25, state: 2, reason: "Mercancía no recibida" },
      { encf: "E450000000001", total: 0.1 + 0.25, state: 1, at: "24-06-2026 08:05:00" },
    ]);
    const res = await post(tenant, upload(await workbook({ ACEECF_Generadas: rows }), "Aprobaciones.xlsx"));
    expect(res.status, res.text).toBe(201);
    const set = res.body.data;
    expect(set).toMatchObject({ kind: "approval", file_name: "Aprobaciones.xlsx", case_count: 4 });
    expect(set.cases.map((c) => [c.sheet, c.row, c.document, c.type, c.encf, c.name])).toEqual([
      ["ACEECF_Generadas", 2, "acecf", "31", "E310000000002", "E310000000002"],
      ["ACEECF_Generadas", 3, "acecf", "31", "E310000000003", "E310000000003"],
      ["ACEECF_Generadas", 4, "acecf", "31", "E310000000004", "E310000000004"],
      ["ACEECF_Generadas", 5, "acecf", "45", "E450000000001", "E450000000001"],
    ]);
    expect(set.cases[0]!.fields).toEqual([
      { name: "Version", value: "1.0" },
      { name: "RNCEmisor", value: "131880681" },
      { name: "eNCF", value: "E310000000002" },
      { name: "FechaEmision", value: "01-04-2020" },
      { name: "MontoTotal", value: "4674.35" },
      { name: "RNCComprador", value: ISSUER_RNC },
      { name: "Estado", value: "1" },
      { name: "FechaHoraAprobacionComercial", value: "23-06-2026 17:45:47" },
    ]);
    expect(set.cases[2]!.fields.slice(4, 8)).toEqual([
      { name: "MontoTotal", value: "18283.25" },
      { name: "RNCComprador", value: ISSUER_RNC },
      { name: "Estado", value: "2" },
      { name: "DetalleMotivoRechazo", value: "Mercancía no recibida" },
    ]);
    expect(set.cases[3]!.fields.find((f) => f.name === "MontoTotal")?.value).toBe("0.35");
  });

  it("refuses a set whose rows cannot make a document, naming each case, column and why; nothing is stored", async () => {
    const tenant = await seedTenant();
    const ecf = ecfCases();
    const at = (encf: string) => ecf.findIndex((row) => row.some(([h, v]) => h === "ENCF" && v === encf));
    const e312 = at("E310000000002");
    ecf[e312] = withCells(ecf[e312]!, [
      ["MontoTotall", "10.00"],
      ["FechaEmision", "2020-04-01"],
      ["NumeroLinea[2]", "3"],
    ]);
    const e313 = at("E310000000003");
    ecf[e313] = withCells(ecf[e313]!, [
      ["TipoeCF", "35"],
      ["ENCF", "E350000000001"],
    ]);
    // Line 3 without line 2, and a sub-discount entry 2 without entry 1.
    const e411 = at("E410000000002");
    ecf[e411] = withCells(ecf[e411]!, [
      ["NumeroLinea[2]", "#e"],
      ["IndicadorFacturacion[2]", "#e"],
      ["IndicadorAgenteRetencionoPercepcion[2]", "#e"],
      ["NombreItem[2]", "#e"],
      ["IndicadorBienoServicio[2]", "#e"],
      ["CantidadItem[2]", "#e"],
      ["PrecioUnitarioItem[2]", "#e"],
      ["MontoItem[2]", "#e"],
      ["TipoSubDescuento[1][2]", "$"],
      ["MontoSubDescuento[1][2]", "1.00"],
      ["NumeroLinea[3]", "3"],
      ["NombreItem[3]", "EXTRA"],
      ["MontoItem[3]", "-5"],
    ]);
    // Two rows of one e-NCF; a summary in sheet RFCE for an E32 that is sent whole.
    const e316 = at("E310000000006");
    ecf[e316] = withCells(ecf[e316]!, [["ENCF", "E310000000005"]]);
    const rfce = rfceCases();
    rfce[1] = withCells(rfce[1]!, [["MontoTotal", "250000.00"]]);
    rfce.push(
      withCells(rfce[0]!, [
        ["CasoPrueba", `${ISSUER_RNC}E320000000005`],
        ["ENCF", "E320000000005"],
      ]),
    );
    const res = await post(tenant, upload(await workbook({ ECF: ecf, RFCE: rfce })));
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({
      code: "validation_failed",
      message: "The test set has rows that cannot make a document (errors: each case, column and why); nothing was imported.",
    });
    expect((res.body as unknown as { errors: unknown }).errors).toEqual({
      "ECF[101010101E310000000002].MontoTotall": ["Row 3: MontoTotall is not an element of sheet ECF in DGII's test sets (unknown column)."],
      "ECF[101010101E310000000002].FechaEmision": ['Row 3: FechaEmision must be a date dd-MM-yyyy (FechaValidationType); "2020-04-01" is not.'],
      "ECF[101010101E310000000002].NumeroLinea[2]": ['Row 3: NumeroLinea[2] is "3": line 2\'s number is 2.'],
      "ECF[101010101E310000000003].TipoeCF": ['Row 4: TipoeCF is "35", not a TipoeCF of Formato e-CF v1.0 (31, 32, 33, 34, 41, 43, 44, 45, 46, 47).'],
      "ECF[101010101E310000000006].ENCF": ["Row 7: ENCF repeats the e-NCF of row 6 (E310000000005): DGII receives each e-NCF once."],
      "ECF[101010101E410000000002].MontoItem[3]": ['Row 20: MontoItem[3] must be an amount of up to 16 digits and 2 decimals, not negative; "-5" is not.'],
      "ECF[101010101E410000000002].NumeroLinea[3]": ["Row 20: NumeroLinea[3] is on line 3 but line 2 has no values: lines are numbered 1, 2, … without gaps."],
      "ECF[101010101E410000000002].TipoSubDescuento[1][2]": [
        "Row 20: TipoSubDescuento[1][2] is entry 2 of line 1's TablaSubDescuento but entry 1 has no values: entries are numbered 1, 2, … without gaps.",
      ],
      "RFCE[101010101E320000000012].MontoTotal": ["Row 3: MontoTotal is 250000.00: a summary (RFCE) is for an E32 under RD$250,000 (Formato RFCE v1.0)."],
      "RFCE[101010101E320000000005].ENCF": [
        "Row 6: ENCF is the e-NCF of row 8 of sheet ECF, an E32 of RD$250,000 or more (MontoTotal 323331.80): it is sent whole, with no summary.",
      ],
    });
    const list = await tenant.api.get<Data<Summary[]>>(PATH);
    expect(list.body.data).toEqual([]);

    const approvals = approvalRows([
      { encf: "E310000000002", total: "10.00", state: 3 },
      { encf: "E310000000002", total: "10.00", state: 2 },
      { encf: "X1", total: "10.00", state: 1, at: "2026-06-23T17:45:47" },
    ]);
    const refused = await post(tenant, upload(await workbook({ ACEECF_Generadas: approvals })));
    expect(refused.status, refused.text).toBe(422);
    expect((refused.body as unknown as { errors: unknown }).errors).toEqual({
      "ACEECF_Generadas[E310000000002].Estado": ['Row 2: Estado is "3": 1 (aprobado) or 2 (rechazado).'],
      "ACEECF_Generadas[E310000000002].eNCF": ["Row 3: eNCF repeats the approval of row 2."],
      "ACEECF_Generadas[E310000000002].DetalleMotivoRechazo": ["Row 3: DetalleMotivoRechazo is empty: a rejection (Estado 2) says why."],
      "ACEECF_Generadas[X1].eNCF": ['Row 4: eNCF is "X1", not an e-NCF (E, a TipoeCF and 10 digits).'],
      "ACEECF_Generadas[X1].FechaHoraAprobacionComercial": [
        'Row 4: FechaHoraAprobacionComercial must be a date and time dd-MM-yyyy HH:mm:ss; "2026-06-23T17:45:47" is not.',
      ],
    });
  });

  it("refuses a set whose case cannot make a valid document of its type (our schema check in the Worker), naming the case, the cell and why", async () => {
    const tenant = await seedTenant();
    const ecf = ecfCases();
    const at = (encf: string) => ecf.findIndex((row) => row.some(([h, v]) => h === "ENCF" && v === encf));
    // An E43 has no buyer (Formato e-CF v1.0: Comprador absent in gastos menores); TipoPago is 1-3.
    const e43 = at("E430000000001");
    ecf[e43] = withCells(ecf[e43]!, [["RNCComprador", "131880681"]]);
    const e45 = at("E450000000002");
    ecf[e45] = withCells(ecf[e45]!, [["TipoPago", "7"]]);
    // Required cells left empty: named by their column, in words (libxml2 would name Emisor and Item).
    const e314 = at("E310000000004");
    ecf[e314] = withCells(ecf[e314]!, [["FechaEmision", ""]]);
    const e441 = at("E440000000001");
    ecf[e441] = withCells(ecf[e441]!, [["MontoItem[1]", "#e"]]);
    const approvals = approvalRows([{ encf: "E310000000002", total: "10.5", state: "1" }]);
    const res = await post(tenant, upload(await workbook({ ECF: ecf, RFCE: rfceCases() })));
    expect(res.status, res.text).toBe(422);
    expect((res.body as unknown as { errors: Record<string, string[]> }).errors).toEqual({
      "ECF[101010101E310000000004].FechaEmision": ["Row 5: FechaEmision is empty (or #e), but an E31 (Formato e-CF v1.0) requires it: FechaEmision of Emisor."],
      "ECF[101010101E430000000001].RNCComprador": ["Row 21: RNCComprador is not an element of an E43 (Formato e-CF v1.0): the document has no place for it."],
      "ECF[101010101E440000000001].MontoItem[1]": ["Row 23: MontoItem[1] is empty (or #e), but an E44 (Formato e-CF v1.0) requires it: MontoItem of Item."],
      "ECF[101010101E450000000002].TipoPago": [
        "Row 26: TipoPago makes the document invalid against e-CF-45.xsd: Schemas validity error : Element 'TipoPago': [facet 'enumeration'] The value '7' is not an element of the set {'1', '2', '3'}.",
      ],
    });
    const refused = await post(tenant, upload(await workbook({ ACEECF_Generadas: approvals })));
    expect(refused.status, refused.text).toBe(422);
    expect(Object.keys((refused.body as unknown as { errors: Record<string, string[]> }).errors)).toEqual(["ACEECF_Generadas[E310000000002].MontoTotal"]);
    expect((await tenant.api.get<Data<Summary[]>>(PATH)).body.data).toEqual([]);
  });

  it("a multipart body its parser cannot read is 400 malformed_multipart with the parser's reason, not a JSON error (issue 44)", async () => {
    const tenant = await seedTenant();
    const boundary = "sucursal-boundary";
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="set.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\nPK\u0003\u0004`;
    const send = (body: string) =>
      tenant.api.post(PATH, undefined, { rawBody: body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } });
    // The closing boundary missing; the body cut inside the closing boundary; the opening boundary truncated.
    const truncatedOpening = part.replace(`--${boundary}`, `--${boundary.slice(0, 5)}`);
    for (const body of [part, `${part}\r\n--${boundary.slice(0, 5)}`, truncatedOpening]) {
      const res = await send(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe("malformed_multipart");
      expect(res.body.message).toMatch(/^The request body is not valid multipart\/form-data: \S/);
      expect(res.body.message).not.toContain("JSON");
    }
    // A well-formed multipart body without `file` stays a 422 naming it, another type a 415.
    const empty = await send(`--${boundary}\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--${boundary}--\r\n`);
    expect(empty.status, empty.text).toBe(422);
    expect(empty.body.errors).toEqual({ file: ["DGII's .xlsx is required in field `file`."] });
    const text = await tenant.api.post(PATH, undefined, { rawBody: "file=x", headers: { "content-type": "text/plain" } });
    expect(text.status, text.text).toBe(415);
    expect((await tenant.api.get<Data<Summary[]>>(PATH)).body.data).toEqual([]);
  });

  it("refuses what is not DGII's workbook: another file (422), another body type (415), a workbook without the set's sheets (422)", async () => {
    const tenant = await seedTenant();
    const text = await post(tenant, upload("CasoPrueba,ENCF\n1,E310000000001\n", "set.csv"));
    expect(text.status, text.text).toBe(422);
    expect(text.body).toMatchObject({ code: "validation_failed", errors: { file: ["The file is not an .xlsx workbook (DGII's test sets are .xlsx files)."] } });

    const json = await tenant.api.post(PATH, { file: "SetPruebas.xlsx" });
    expect(json.status, json.text).toBe(415);
    expect(json.body).toMatchObject({ code: "unsupported_media_type", message: "This endpoint takes the file as multipart/form-data, in field `file`." });

    const missing = await post(tenant, new FormData());
    expect(missing.status, missing.text).toBe(422);
    expect((missing.body as unknown as { errors: unknown }).errors).toEqual({ file: ["DGII's .xlsx is required in field `file`."] });

    const other = await post(tenant, upload(await workbook({ Hoja1: [[["CasoPrueba", "x"]]] })));
    expect(other.status, other.text).toBe(422);
    expect((other.body as unknown as { errors: unknown }).errors).toEqual({
      file: ["The workbook has no sheet ECF (the e-CF test set) nor ACEECF_Generadas (the commercial approvals); its sheets: Hoja1."],
    });

    // Over the API's 1 MiB body cap; a workbook that would unpack to more than 16 MiB (its zip's directory says so).
    const big = await post(tenant, upload(new Uint8Array(1024 * 1024 + 1).buffer));
    expect(big.status, big.text).toBe(413);
    expect(big.body).toMatchObject({ code: "payload_too_large", message: "Request bodies are limited to 1048576 bytes." });
    const bomb = new Uint8Array(await workbook({ ACEECF_Generadas: approvalRows([{ encf: "E310000000002", total: "10.00", state: 1 }]) }));
    const view = new DataView(bomb.buffer);
    for (let at = 0; at + 46 < bomb.length; at++) {
      // Each central directory entry (PK\x01\x02) declares 8 MiB unpacked: 3 or more entries pass 16 MiB.
      if (view.getUint32(at, true) === 0x02014b50) view.setUint32(at + 24, 8 * 1024 * 1024, true);
    }
    const unpacked = await post(tenant, upload(bomb.buffer));
    expect(unpacked.status, unpacked.text).toBe(413);
    expect(unpacked.body).toMatchObject({ code: "payload_too_large", errors: { file: ["unpacks to more than 16777216 bytes"] } });
    expect((await tenant.api.get<Data<Summary[]>>(PATH)).body.data).toEqual([]);
  });

  it("keeps each tenant's sets to itself", async () => {
    const owner = await seedTenant();
    const other = await seedTenant();
    const res = await post(owner, upload(await workbook({ ACEECF_Generadas: approvalRows([{ encf: "E310000000002", total: "10.00", state: 1 }]) })));
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.id;
    const seen = await other.api.get(`${PATH}/${id}`);
    expect(seen.status).toBe(404);
    expect(seen.body).toMatchObject({ code: "not_found", message: "Test set not found." });
    expect((await other.api.get<Data<Summary[]>>(PATH)).body.data).toEqual([]);
    expect((await owner.api.get<Data<Summary[]>>(PATH)).body.data.map((s) => s.id)).toEqual([id]);
  });
});

import readXlsxFile from "read-excel-file/universal";
import { describe, expect, it } from "vitest";
import writeXlsxFile from "write-excel-file/universal";

/**
 * read-excel-file's universal build (fflate + saxen, no Node API) inside workerd, as the Worker
 * reads DGII's test sets (issue 32): every sheet, strings as stored, numbers as the text of the
 * file (parseNumber), dates as Date.
 */
describe("the .xlsx reader in workerd", () => {
  it("reads every sheet of a workbook written by write-excel-file", async () => {
    const blob = await writeXlsxFile([
      {
        sheet: "ECF",
        data: [
          ["CasoPrueba", "MontoTotal", "FechaEmision", "NumeroContenedor "],
          ["A", 0.1 + 0.2, { value: new Date(Date.UTC(2020, 3, 1)), format: "dd-mm-yyyy" }, "#e"],
          ["B", 1818.0000000000002, 43922, null],
        ],
      },
      { sheet: "RFCE", data: [["CasoPrueba"], ["R"]] },
    ]).toBlob();
    const sheets = await readXlsxFile(await blob.arrayBuffer(), { parseNumber: (text) => text, trim: false });
    expect(sheets.map((s) => s.sheet)).toEqual(["ECF", "RFCE"]);
    expect(sheets[0]!.data).toEqual([
      ["CasoPrueba", "MontoTotal", "FechaEmision", "NumeroContenedor "],
      ["A", "0.30000000000000004", new Date(Date.UTC(2020, 3, 1)), "#e"],
      ["B", "1818.0000000000002", "43922", null],
    ]);
    expect(sheets[1]!.data).toEqual([["CasoPrueba"], ["R"]]);
  });
});

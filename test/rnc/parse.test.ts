import { describe, expect, it } from "vitest";
import { dgiiLine, dgiiText, dgiiZip, encodeWindows1252 } from "../../bench/rnc-generator";
import { type RncTuple, streamRegistryZip } from "../../src/modules/rnc/sync/parse";

const streamOf = (bytes: Uint8Array, chunkSize = 97) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
      controller.close();
    },
  });

async function parse(zip: Uint8Array, options: { maxBatchBytes?: number; chunkSize?: number } = {}) {
  const batches: RncTuple[][] = [];
  const stats = await streamRegistryZip(streamOf(zip, options.chunkSize), { maxBatchBytes: options.maxBatchBytes, onBatch: async (b) => void batches.push(b) });
  return { stats, batches, records: batches.flat() };
}

// Every quirk of the DGII file: Windows-1252 accents, ñ, € and curly quotes, NBSP, stray spaces,
// CRLF and a bare LF, 00/00/0000 dates, blank lines, malformed lines, and no newline at the end.
const QUIRKY = [
  dgiiLine({ identification: "101000001", name: "MARÍA  PEÑA   FERNÁNDEZ", comercialName: "  ", status: "ACTIVO", startDate: "00/00/0000" }),
  dgiiLine({ identification: " 101000002 ", name: "COMERCIAL ÑANDÚ\u00a0SRL", comercialName: "“EL MARTILLO” €", status: "suspendido" }),
  "101000003|SOLO|TRES",
  "",
  dgiiLine({ identification: "", name: "SIN IDENTIFICACIÓN", status: "ACTIVO" }),
  dgiiLine({ identification: "1-01000004", name: "CON GUIONES", status: "ACTIVO" }),
  dgiiLine({ identification: "40212345678", name: "JOSÉ NÚÑEZ", comercialName: "CAFETERÍA JOSÉ", status: "DADO DE BAJA" }),
];
const EXPECTED: RncTuple[] = [
  ["101000001", "MARÍA PEÑA FERNÁNDEZ", "", "ACTIVO"],
  ["101000002", "COMERCIAL ÑANDÚ SRL", "“EL MARTILLO” €", "SUSPENDIDO"],
  ["40212345678", "JOSÉ NÚÑEZ", "CAFETERÍA JOSÉ", "DADO DE BAJA"],
];

describe("DGII file parsing", () => {
  it("decodes Windows-1252, handles CRLF, blank and malformed lines, and counts what it rejects", async () => {
    // The last line has no line end at all, and one line ends with a bare LF.
    const text = `${QUIRKY.slice(0, 5)
      .map((l) => `${l}\r\n`)
      .join("")}${QUIRKY[5]}\n${QUIRKY[6]}`;
    const { stats, records } = await parse(dgiiZip(encodeWindows1252(text)));
    expect(records).toEqual(EXPECTED);
    expect(stats).toEqual({
      linesRead: 6,
      linesRejected: 3,
      recordsAccepted: 3,
      rejections: [
        { line: 3, reason: "expected 11 columns, found 3" },
        { line: 4, reason: "empty identification" },
        { line: 5, reason: "identification is not all digits" },
      ],
    });
  });

  it("reads a UTF-8 file with a byte-order mark the same way", async () => {
    const { records, stats } = await parse(dgiiZip(dgiiText(QUIRKY, { utf8Bom: true })), { chunkSize: 2 });
    expect(records).toEqual(EXPECTED);
    expect(stats.linesRejected).toBe(3);
  });

  it("splits records into batches under the byte budget, keeping order and dropping in-batch duplicates", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => dgiiLine({ identification: String(200000000 + i), name: `EMPRESA NÚMERO ${i}`, status: "ACTIVO" }));
    lines.push(dgiiLine({ identification: "200000399", name: "EMPRESA REPETIDA", status: "ACTIVO" }));
    const { batches, records } = await parse(dgiiZip(dgiiText(lines)), { maxBatchBytes: 2_000, chunkSize: 1024 });
    expect(batches.length).toBe(10);
    for (const batch of batches) expect(new TextEncoder().encode(JSON.stringify(batch)).length).toBeLessThanOrEqual(2_000 + batch.length + 2);
    expect(records.length).toBe(400);
    expect(records[0]).toEqual(["200000000", "EMPRESA NÚMERO 0", "", "ACTIVO"]);
    expect(records.at(-1)).toEqual(["200000399", "EMPRESA REPETIDA", "", "ACTIVO"]);
  });

  it("refuses a body that is not a ZIP, a corrupt or truncated ZIP, and a ZIP without the TXT", async () => {
    const good = dgiiZip(
      dgiiText(Array.from({ length: 2000 }, (_, i) => dgiiLine({ identification: String(300000000 + i), name: `NOMBRE ${i * 7919}`, status: "ACTIVO" }))),
    );
    const corrupt = good.slice();
    for (let i = 100; i < 300; i++) corrupt[i] = 0x55;
    const cases: [Uint8Array, RegExp][] = [
      [new TextEncoder().encode("<html>Servicio no disponible</html>"), /not a ZIP/],
      [new Uint8Array(0), /not a ZIP/],
      [corrupt, /corrupt ZIP/],
      [good.slice(0, Math.floor(good.length / 2)), /corrupt ZIP/],
      [dgiiZip(dgiiText(QUIRKY), "TMP/OTRO.TXT"), /holds no TMP\/DGII_RNC\.TXT/],
    ];
    for (const [bytes, message] of cases) await expect(parse(bytes)).rejects.toThrow(message);
  });
});

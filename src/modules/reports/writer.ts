import type { OpenedReport } from "./service";

/**
 * DGII's TXT (Norma General 07-2018 formats, docs/reports.md "The file"): a header line — format,
 * RNC, period, number of rows — then one line per row, fields separated by `|`, every line ending
 * in CRLF (the files of DGII's own tool, a Windows Excel macro, end their lines so).
 */
const SEPARATOR = "|";
const LINE_END = "\r\n";

const line = (values: readonly string[]) => `${values.join(SEPARATOR)}${LINE_END}`;

export interface ReportChunks {
  contentType: string;
  first: string;
  next(): Promise<string | null>;
}

/** The TXT, page by page: the header and the first page, then a page per call. */
export function txtChunks<Row extends Record<string, string>>(report: OpenedReport<Row>, columns: readonly (keyof Row & string)[]): ReportChunks {
  const lines = (rows: Row[]) => rows.map((row) => line(columns.map((column) => String(row[column])))).join("");
  const { format, rnc, period, count } = report.header;
  return {
    contentType: "text/plain; charset=utf-8",
    first: line([format, rnc, period, String(count)]) + lines(report.first),
    next: async () => {
      const rows = await report.next();
      return rows.length ? lines(rows) : null;
    },
  };
}

/** The same rows as JSON (each value the TXT's text), written page by page too. */
export function jsonChunks<Row extends Record<string, string>>(report: OpenedReport<Row>): ReportChunks {
  let written = report.first.length > 0;
  let closed = false;
  const head = JSON.stringify(report.header).slice(0, -1);
  return {
    contentType: "application/json",
    first: `${head},"rows":[${report.first.map((row) => JSON.stringify(row)).join(",")}`,
    next: async () => {
      if (closed) return null;
      const rows = await report.next();
      if (!rows.length) {
        closed = true;
        return "]}";
      }
      const chunk = (written ? "," : "") + rows.map((row) => JSON.stringify(row)).join(",");
      written = true;
      return chunk;
    },
  };
}

import { parseArgs } from "node:util";

/** `--name value` and `--flag` options of an operator script. */
export function cliOptions<T extends Record<string, { type: "string" | "boolean" }>>(options: T) {
  return parseArgs({ args: process.argv.slice(2), options, strict: true, allowPositionals: false }).values;
}

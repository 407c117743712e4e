import { parseArgs } from "node:util";

/** `--name value` and `--flag` options of an operator script. */
export function cliOptions<T extends Record<string, { type: "string" | "boolean" }>>(options: T) {
  return parseArgs({ args: process.argv.slice(2), options, strict: true, allowPositionals: false }).values;
}

/** Runs an operator script's main and exits with the number it returns (else 0; 1 on an uncaught error, printed). */
export function runMain(main: () => Promise<unknown>): void {
  main().then(
    (code) => process.exit(typeof code === "number" ? code : 0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

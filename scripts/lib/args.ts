import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

type OptionSpec = Record<string, { type: "string" | "boolean" }>;
type Values<T extends OptionSpec> = { [K in keyof T]?: T[K]["type"] extends "string" ? string : boolean };

/** A script's command line: what `--help` prints, and the options (and folders or files, with `positionals`) it takes. */
export interface Command<T extends OptionSpec = OptionSpec> {
  usage: string;
  options: T;
  positionals?: boolean;
}

export function command<T extends OptionSpec>(definition: Command<T>): Command<T> {
  return definition;
}

export type Parsed<T extends OptionSpec> = { help: true } | { error: string } | { values: Values<T>; positionals: string[] };

/**
 * The command line read strictly: `--help` (or `-h`) anywhere asks for the usage; an option the
 * script does not know, a value missing or given to a flag, or a stray word is an error of one
 * line (node's message, which names the option).
 */
export function parseCommandLine<T extends OptionSpec>(definition: Command<T>, argv: readonly string[]): Parsed<T> {
  if (argv.includes("--help") || argv.includes("-h")) return { help: true };
  try {
    const parsed = parseArgs({ args: [...argv], options: definition.options, strict: true, allowPositionals: definition.positionals === true });
    return { values: parsed.values as Values<T>, positionals: parsed.positionals };
  } catch (error) {
    return { error: (error as Error).message.split("\n")[0]! };
  }
}

/**
 * Every script's first step (issue 44): `--help` prints its usage and exits 0; a command line it
 * cannot read prints one line, and where the usage is, and exits 2 (a usage error, as Unix tools
 * do), before the script does anything.
 */
export function commandLine<T extends OptionSpec>(definition: Command<T>, argv: readonly string[] = process.argv.slice(2)) {
  const parsed = parseCommandLine(definition, argv);
  if ("help" in parsed) {
    console.log(definition.usage.trim());
    process.exit(0);
  }
  if ("error" in parsed) {
    console.error(`${parsed.error} (--help for the usage)`);
    process.exit(2);
  }
  return parsed;
}

/** `--name value` and `--flag` options of a bench (bench/); the scripts under scripts/ read theirs with commandLine. */
export function cliOptions<T extends OptionSpec>(options: T) {
  return parseArgs({ args: process.argv.slice(2), options, strict: true, allowPositionals: false }).values;
}

/** Whether the module at `url` is the script node was started with (not imported by a test or another script). */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(url) === path.resolve(process.argv[1]);
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

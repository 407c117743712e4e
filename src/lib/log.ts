/** Structured logs, one JSON line each. Never pass secrets (tokens, passwords, keys) in `fields`. */
type Fields = Record<string, unknown>;

function write(level: "info" | "warn" | "error", message: string, fields?: Fields): void {
  const line = JSON.stringify({ level, message, ...fields, at: new Date().toISOString() });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields?: Fields) => write("info", message, fields),
  warn: (message: string, fields?: Fields) => write("warn", message, fields),
  error: (message: string, fields?: Fields) => write("error", message, fields),
};

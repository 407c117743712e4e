import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./database";

const SECRET_FILE = path.join(ROOT, ".dev-data", "jwt-secret");

/**
 * The JWT secret tokens are signed with: JWT_SECRET when set (it must be the Worker's), else a
 * random one kept in .dev-data/ for `npm run dev` and the operator CLI to share.
 */
export function localJwtSecret(): string {
  if (process.env.JWT_SECRET) return process.env.JWT_SECRET;
  try {
    return fs.readFileSync(SECRET_FILE, "utf8").trim();
  } catch {
    const secret = randomBytes(32).toString("hex");
    fs.mkdirSync(path.dirname(SECRET_FILE), { recursive: true });
    fs.writeFileSync(SECRET_FILE, secret, { mode: 0o600 });
    return secret;
  }
}

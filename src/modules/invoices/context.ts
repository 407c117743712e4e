import type { Context } from "hono";
import { config } from "../../env";
import type { AppEnv } from "../../http/context";
import { dominicanToday } from "../../lib/dates";
import type { InvoiceContext } from "./service";

/** What issuing an invoice needs from the request (today's Dominican date, the app's URL for links). */
export const invoiceContext = (c: Context<AppEnv>): InvoiceContext => ({
  today: dominicanToday(),
  appUrl: config(c.env).APP_URL,
  encryptionKey: config(c.env).APP_ENCRYPTION_KEY,
  ecfIds: c.var.ecf,
});

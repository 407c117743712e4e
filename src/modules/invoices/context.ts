import type { Context } from "hono";
import type { AppEnv } from "../../http/context";
import { dominicanToday } from "../../lib/dates";
import type { InvoiceContext } from "./service";

/** What issuing an invoice needs from the request (today's Dominican date, the app's URL for links). */
export const invoiceContext = (c: Context<AppEnv>): InvoiceContext => ({
  today: dominicanToday(),
  appUrl: (c.env.APP_URL ?? "https://app.sucursal.do").replace(/\/$/, ""),
});

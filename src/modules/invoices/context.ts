import type { Context } from "hono";
import { config } from "../../env";
import type { AppEnv } from "../../http/context";
import { dominicanToday } from "../../lib/dates";
import { type EcfSubject, emitEcfTransitionEvent } from "../ecf/transitions";

/** What issuing a document (an invoice, a note) needs from the request. */
export interface InvoiceContext {
  /** Today in the Dominican Republic: sequences expire by local date. */
  today: string;
  /** Base of links in emails. */
  appUrl: string;
  /** The app key that opens the tenant's e-CF certificate. */
  encryptionKey: string | undefined;
  /** e-CF rows written by the request: sent through ECF_QUEUE once it has committed (jobs/ecf.ts). */
  ecfIds: number[];
  /** Records an e-CF signed now as its ecf.signed event, written with the request's COMMIT (ecf/transitions.ts). */
  ecfSigned: (subject: EcfSubject) => Promise<void>;
}

/** The request's InvoiceContext: today's Dominican date, the app's URL for links, its list of e-CF to send. */
export const invoiceContext = (c: Context<AppEnv>): InvoiceContext => ({
  today: dominicanToday(),
  appUrl: config(c.env).APP_URL,
  encryptionKey: config(c.env).APP_ENCRYPTION_KEY,
  ecfIds: c.var.ecf,
  ecfSigned: (subject) => emitEcfTransitionEvent(c, subject, "signed"),
});

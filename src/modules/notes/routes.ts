import { z } from "@hono/zod-openapi";
import { config } from "../../env";
import { idempotencyHeader, idempotent } from "../../http/idempotency";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { paginate, paginated } from "../../http/pagination";
import { dataOnly } from "../../http/schemas";
import { isElectronicNumber } from "../../lib/ncf";
import { printedEcf } from "../ecf/documents";
import { emitEvent } from "../events/service";
import { invoiceContext } from "../invoices/context";
import { invoiceEventData } from "../invoices/json";
import type { NoteKind } from "../invoices/schemas";
import { renderDocumentPdf } from "../sales/pdf";
import { CreateCreditNoteBody, CreateDebitNoteBody, NoteDetail, NoteListQuery, NoteSummary } from "./schemas";
import * as notes from "./service";
import { cancelVoidNote } from "./void";

export const notesRouter = createRouter();

/**
 * The same endpoints for each kind: create on an invoice, cancel a void one, list, show, PDF. Declared
 * once here and built per kind (creditNotes, debitNotes below), each route a constant and each
 * handler named (creditNotes.createNote), then mounted.
 */
function noteEndpoints(kind: NoteKind) {
  const collection = `${kind}-notes`;
  const name = kind === "credit" ? "Credit note" : "Debit note";
  const tags = [kind === "credit" ? "Credit notes" : "Debit notes"];

  const createNoteRoute = defineRoute(
    { permission: "invoices:create" },
    {
      method: "post",
      path: `${V1}/invoices/{id}/${collection}`,
      tags,
      summary:
        kind === "credit"
          ? "Issue a credit note (B04, or E34 as an e-CF) on an issued invoice: lines or full, stock returned, never more than the invoice"
          : "Issue a debit note (B03, or E33 as an e-CF) on an issued invoice: amounts added to what the buyer owes",
      request: { params: IdParam, headers: idempotencyHeader, ...jsonBody(kind === "credit" ? CreateCreditNoteBody : CreateDebitNoteBody) },
      responses: {
        201: jsonResponse(`${name} issued`, z.object({ data: NoteSummary, message: z.string() })),
        ...errorResponses(404, 409),
        ...commonErrors,
      },
    },
  );
  const createNote: AppRouteHandler<typeof createNoteRoute> = async (c) => {
    const db = c.var.db;
    const id = c.req.valid("param").id;
    const input = c.req.valid("json");
    return idempotent(c, db, async () => {
      const note = await notes.createNote(db, c.var.scope, id, kind, input, invoiceContext(c));
      if (kind === "credit") await emitEvent(c, "credit_note.created", note.workspace_id, () => notes.getNote(db, c.var.scope, "credit", note.id));
      // Either note changes its invoice (credited or debited amount, amount due, status, the notes it
      // embeds): a client that mirrors invoices learns it as any other change (a debit note has no
      // event of its own). A credit note that leaves nothing due is not invoice.paid: nothing was received.
      await emitEvent(c, "invoice.updated", note.workspace_id, invoiceEventData(c.var.scope, id));
      return { status: 201, body: { data: note, message: `${name} issued.` } };
    });
  };

  const cancelNoteRoute = defineRoute(
    { permission: "invoices:edit" },
    {
      method: "post",
      path: `${V1}/${collection}/{id}/cancel`,
      tags,
      summary: `Cancel a ${name.toLowerCase()} whose e-CF DGII rejected as void (its amounts leave the invoice${kind === "credit" ? ", what it restocked goes back out" : ""}); any other note stands (409)`,
      request: { params: IdParam },
      responses: {
        200: jsonResponse(`${name} cancelled`, z.object({ data: NoteSummary, message: z.string() })),
        ...errorResponses(404, 409),
        ...commonErrors,
      },
    },
  );
  const cancelNote: AppRouteHandler<typeof cancelNoteRoute> = async (c) => {
    const note = await cancelVoidNote(c.var.db, c.var.scope, kind, c.req.valid("param").id);
    await emitEvent(c, "invoice.updated", note.workspace_id, invoiceEventData(c.var.scope, note.invoice_id));
    return c.json({ data: note, message: `${name} ${note.document_number} cancelled.` }, 200);
  };

  const listNotesRoute = defineRoute(
    { permission: "invoices:view" },
    {
      method: "get",
      path: `${V1}/${collection}`,
      tags,
      summary: `${name}s of the request's workspace`,
      request: { query: NoteListQuery },
      responses: { 200: jsonResponse(`${name}s`, paginated(NoteSummary)), ...commonErrors },
    },
  );
  const listNotes: AppRouteHandler<typeof listNotesRoute> = async (c) => {
    const query = c.req.valid("query");
    const { data, total } = await notes.listNotes(c.var.db, c.var.scope, kind, query);
    return c.json(paginate(c, query, total, data), 200);
  };

  const getNoteRoute = defineRoute(
    { permission: "invoices:view" },
    {
      method: "get",
      path: `${V1}/${collection}/{id}`,
      tags,
      summary: `A ${name.toLowerCase()} with its lines and snapshot`,
      request: { params: IdParam },
      responses: { 200: jsonResponse(name, dataOnly(NoteDetail)), ...errorResponses(404), ...commonErrors },
    },
  );
  const getNote: AppRouteHandler<typeof getNoteRoute> = async (c) =>
    c.json({ data: await notes.getNote(c.var.db, c.var.scope, kind, c.req.valid("param").id) }, 200);

  const getNotePdfRoute = defineRoute(
    { permission: "invoices:view" },
    {
      method: "get",
      path: `${V1}/${collection}/{id}/pdf`,
      tags,
      summary: `The ${name.toLowerCase()} as a PDF`,
      request: { params: IdParam },
      responses: {
        200: { description: "PDF", content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } } },
        ...errorResponses(404),
        ...commonErrors,
      },
    },
  );
  const getNotePdf: AppRouteHandler<typeof getNotePdfRoute> = async (c) => {
    const { note, pdf } = await notes.notePdfData(c.var.db, c.var.scope, kind, c.req.valid("param").id);
    if (isElectronicNumber(note.document_number)) {
      pdf.ecf = (await printedEcf(c.var.db, { noteId: note.id }, config(c.env))) ?? undefined;
    }
    return c.body(await renderDocumentPdf(pdf), 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${note.document_number}.pdf"`,
    });
  };

  return {
    createNoteRoute,
    createNote,
    cancelNoteRoute,
    cancelNote,
    listNotesRoute,
    listNotes,
    getNoteRoute,
    getNote,
    getNotePdfRoute,
    getNotePdf,
  };
}

/** Credit notes (B04, E34): creditNotes.createNote, .cancelNote, .listNotes, .getNote, .getNotePdf. */
export const creditNotes = noteEndpoints("credit");
/** Debit notes (B03, E33): the same endpoints. */
export const debitNotes = noteEndpoints("debit");

for (const endpoints of [creditNotes, debitNotes]) {
  notesRouter.openapi(endpoints.createNoteRoute, endpoints.createNote);
  notesRouter.openapi(endpoints.cancelNoteRoute, endpoints.cancelNote);
  notesRouter.openapi(endpoints.listNotesRoute, endpoints.listNotes);
  notesRouter.openapi(endpoints.getNoteRoute, endpoints.getNote);
  notesRouter.openapi(endpoints.getNotePdfRoute, endpoints.getNotePdf);
}

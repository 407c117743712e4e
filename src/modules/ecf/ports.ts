import type { AnyDb } from "../../db/client";
import type { RequestScope } from "../../http/scope";
import { port } from "../../lib/port";

/*
 * What e-CF needs from the modules built on it, plugged in by src/app.ts: invoices sign their e-CF
 * inside their own transaction (so e-CF sits below them), and certification reads what e-CF did.
 */

/**
 * Refuses the switch to production while DGII's certification is not done (service.ts,
 * putSettings): certification/service.ts assertReadyForProduction.
 */
export const productionGate = port<(db: AnyDb, tenantId: number) => Promise<void>>("e-CF's production gate");

/**
 * Cancels the invoice whose e-NCF an ANECF annulled (annulments.ts): invoices/changes.ts
 * cancelForAnnulledEcf.
 */
export const annulledInvoices = port<(db: AnyDb, scope: RequestScope, invoiceId: number, encf: string) => Promise<void>>("e-CF's annulled invoices");

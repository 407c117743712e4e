import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow, orderBy, pageOf } from "../../db/queries";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { AppError, notFound } from "../../lib/errors";
import { decimal2, exchangeRateText, timestamp } from "../../lib/format";
import { documentTypeName, isElectronicPrefix } from "../../lib/ncf";
import { lineMoneyText, pdfLines, printedTotals } from "../sales/items";
import type { AppliedTax, TaxBreakdown } from "../sales/lines";
import { dueAmounts, purchaseAccount } from "../sales/money";
import type { PdfDocumentData } from "../sales/pdf";
import { totalsFields } from "../sales/serialize";
import { type PurchaseRow, pur } from "./prepare";
import type { PurchaseDetail, PurchaseSummary } from "./schemas";

/*
 * Supplier bills and the documents the buyer issues about its own purchases (issue 19;
 * docs/purchases.md). A purchase is entered (pending_payment) at once or kept as a draft; entering
 * it adds its products' stock to the request's workspace and moves their cost by weighted average,
 * in the statement that writes it.
 */

/*
 * Reading purchases: the list, one purchase, what its PDF prints; and the row a change works on
 * (lockPurchase). Entering is in enter.ts (create, enter a draft), changing and deleting in
 * changes.ts, payments in payments.ts, what a purchase is made of in prepare.ts.
 */

export function serializePurchase(row: PurchaseRow): PurchaseSummary {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    supplier_id: row.supplierId,
    supplier_ncf: row.supplierNcf,
    self_issued_subtype_id: row.selfIssuedSubtypeId,
    ncf: row.ncf,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    status: row.status as PurchaseSummary["status"],
    expense_type: row.expenseType,
    payment_method: row.paymentMethod,
    currency_id: row.currencyId,
    exchange_rate: exchangeRateText(row.exchangeRate),
    ...totalsFields(row),
    total_amount_dop: decimal2(row.totalAmountDop),
    itbis_withheld: decimal2(row.itbisWithheld),
    isr_withheld: decimal2(row.isrWithheld),
    withholding_date: row.withholdingDate,
    amount_paid: decimal2(row.amountPaid),
    // A voided purchase is owed nothing.
    amount_due: row.status === "voided" ? "0.00" : dueAmounts(purchaseAccount(row)).amount_due,
    notes: row.notes,
    void_reason: row.voidReason,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

const visible = (scope: RequestScope, id: number) => and(eq(pur.tenantId, scope.tenantId), eq(pur.workspaceId, scope.workspaceId), eq(pur.id, id));

/** The purchase row of the request's workspace, locked for the rest of the transaction. */
export function lockPurchase(db: AnyDb, scope: RequestScope, id: number): Promise<PurchaseRow> {
  return findRow(db, pur, visible(scope, id), "Purchase", true);
}

const LIST_SORT = { issue_date: pur.issueDate, total_amount: pur.totalAmount, created_at: pur.createdAt, updated_at: pur.updatedAt } as const;

export async function listPurchases(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"supplier_id" | "status" | "expense_type" | "issue_date_from" | "issue_date_to", keyof typeof LIST_SORT>,
): Promise<{ data: PurchaseSummary[]; total: number }> {
  const f = query.filters;
  const where = and(
    eq(pur.tenantId, scope.tenantId),
    eq(pur.workspaceId, scope.workspaceId),
    f.supplier_id ? eq(pur.supplierId, Number(f.supplier_id)) : undefined,
    f.status ? eq(pur.status, f.status) : undefined,
    f.expense_type ? eq(pur.expenseType, f.expense_type) : undefined,
    f.issue_date_from ? gte(pur.issueDate, f.issue_date_from) : undefined,
    f.issue_date_to ? lte(pur.issueDate, f.issue_date_to) : undefined,
  );
  const page = await pageOf(db, pur, where, orderBy(LIST_SORT[query.sort.field], pur.id, query.sort.descending), query);
  return { data: page.rows.map(serializePurchase), total: page.total };
}

/** GET /purchases/{id}: the purchase with its supplier, lines and payments, in one statement. */
export async function getPurchase(db: AnyDb, scope: RequestScope, id: number): Promise<PurchaseDetail> {
  const result = await db.execute(sql`
    SELECT row_to_json(p) AS purchase,
      (SELECT json_build_object('id', c.id, 'name', c.name, 'identification_type', c.identification_type, 'identification', c.identification)
       FROM contacts c WHERE c.id = p.supplier_id) AS supplier,
      (SELECT coalesce(json_agg(json_build_object('id', i.id, 'product_id', i.product_id, 'description', i.description, 'quantity', i.quantity,
          'unit_cost', i.unit_cost, 'discount', i.discount, 'discount_amount', i.discount_amount, 'subtotal', i.subtotal,
          'tax_amount', i.tax_amount, 'total', i.total, 'taxes', i.taxes) ORDER BY i.position), '[]')
       FROM purchase_items i WHERE i.purchase_id = p.id) AS items,
      (SELECT coalesce(json_agg(json_build_object('id', pm.id, 'amount', pm.amount, 'payment_date', pm.payment_date,
          'payment_method', pm.payment_method, 'bank_account_id', pm.bank_account_id) ORDER BY pm.id), '[]')
       FROM purchase_payments pm WHERE pm.purchase_id = p.id) AS payments
    FROM purchases p WHERE p.tenant_id = ${scope.tenantId} AND p.workspace_id = ${scope.workspaceId} AND p.id = ${id}`);
  const row = rowsOf<{
    purchase: Record<string, unknown>;
    supplier: PurchaseDetail["supplier"];
    items: PurchaseDetail["items"];
    payments: PurchaseDetail["payments"];
  }>(result)[0];
  if (!row) throw notFound("Purchase");
  const purchase = rowFromJson(pur, row.purchase);
  return {
    ...serializePurchase(purchase),
    supplier: row.supplier,
    items: row.items.map((it) => ({ ...it, ...lineMoneyText(it, "unit_cost", it.unit_cost) })),
    payments: row.payments.map((pm) => ({ ...pm, amount: decimal2(pm.amount) })),
    tax_breakdown: purchase.taxBreakdown as TaxBreakdown,
  };
}

/**
 * GET /purchases/{id}/pdf: the receipt of a document the company issued about its purchase (B11
 * comprobante de compras, B13 gastos menores, B17 pagos al exterior), printed as Norma General
 * 06-2018 wants an NCF printed: the company as issuer, the document type's name, the NCF and its
 * sequence's expiry, the supplier, the lines and taxes. A supplier's bill is the supplier's
 * document, not ours to print (409); a draft has no number yet (409).
 */
export async function purchasePdfData(db: AnyDb, scope: RequestScope, id: number): Promise<{ purchase: PurchaseDetail; pdf: PdfDocumentData }> {
  const purchase = await getPurchase(db, scope, id);
  if (purchase.ncf === null || purchase.self_issued_subtype_id === null) {
    throw new AppError(
      "purchase_not_printable",
      purchase.status === "draft"
        ? "A draft has no number yet: enter it first."
        : "Only a document the company issued (B11, B13, B17) is printed; this is a supplier's bill.",
    );
  }
  const result = await db.execute(sql`
    SELECT json_build_object('rnc', cp.rnc, 'legal_name', coalesce(cp.legal_name, t.name), 'trade_name', cp.trade_name, 'address', cp.address,
        'phone', cp.phone, 'email', cp.email) AS issuer,
      json_build_object('name', w.name, 'address', w.address, 'phone', w.phone) AS branch,
      json_build_object('prefix', s.prefix, 'name', s.name, 'valid_until', s.valid_until) AS sequence,
      (SELECT code FROM currencies WHERE id = ${purchase.currency_id}::int) AS currency_code
    FROM tenants t LEFT JOIN company_profiles cp ON cp.tenant_id = t.id
      JOIN workspaces w ON w.id = ${purchase.workspace_id} JOIN document_subtypes s ON s.id = ${purchase.self_issued_subtype_id}
    WHERE t.id = ${scope.tenantId}`);
  const row = oneRow(
    rowsOf<{
      issuer: { rnc: string | null; legal_name: string; trade_name: string | null; address: string | null; phone: string | null; email: string | null };
      branch: { name: string; address: string | null; phone: string | null };
      sequence: { prefix: string; name: string; valid_until: string | null };
      currency_code: string | null;
    }>(result),
  );
  const foreign = purchase.exchange_rate !== "1.00" && row.currency_code !== null;
  const supplier = purchase.supplier;
  const ecfType = isElectronicPrefix(row.sequence.prefix) ? row.sequence.prefix.slice(1) : null;
  const printedItems = purchase.items.map((item) => ({ ...item, unit_price: item.unit_cost, taxes: item.taxes as AppliedTax[] }));
  const withheld = [
    ...(purchase.itbis_withheld !== "0.00" ? [{ label: "ITBIS retenido", value: `-${purchase.itbis_withheld}` }] : []),
    ...(purchase.isr_withheld !== "0.00" ? [{ label: "ISR retenido", value: `-${purchase.isr_withheld}` }] : []),
  ];
  return {
    purchase,
    pdf: {
      title: documentTypeName(row.sequence.prefix) ?? "Comprobante de compras",
      issuer: {
        legalName: row.issuer.legal_name,
        tradeName: row.issuer.trade_name,
        rnc: row.issuer.rnc,
        address: row.issuer.address,
        phone: row.issuer.phone,
        email: row.issuer.email,
        branchName: row.branch.name,
        branchAddress: row.branch.address,
        branchPhone: row.branch.phone,
      },
      documentNumber: purchase.ncf,
      ecfType,
      numberLabel: ecfType ? "e-NCF" : undefined,
      subtypeName: row.sequence.name,
      validUntil: row.sequence.valid_until,
      issueDate: purchase.issue_date,
      dueDate: purchase.due_date,
      dueDateLabel: "Vence",
      currency: foreign ? { code: row.currency_code!, exchangeRate: purchase.exchange_rate } : null,
      customer: {
        name: supplier?.name ?? "Gastos menores (sin proveedor)",
        identification: supplier?.identification ?? null,
        identificationType: supplier?.identification_type ?? null,
      },
      customerLabel: "Proveedor",
      ...pdfLines(printedItems),
      totals: [
        ...printedTotals(
          printedItems,
          { subtotal: purchase.subtotal_amount, discount: purchase.discount_amount, total: purchase.total_amount },
          ecfType !== null,
        ),
        ...(foreign && purchase.total_amount_dop ? [{ label: "Total en DOP", value: purchase.total_amount_dop, dop: true }] : []),
        ...withheld,
        // What is paid is the company's bookkeeping, not part of an e-CF (DGII's models print none).
        ...(ecfType
          ? []
          : [
              { label: "Pagado", value: purchase.amount_paid },
              { label: "Pendiente", value: purchase.amount_due, bold: true },
            ]),
      ],
      notes: purchase.notes,
    },
  };
}

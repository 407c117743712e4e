-- A closed fiscal period is locked (issue 47; docs/reports.md, "Closing the month"): once the
-- month's returns are filed, no document, payment or withholding may be written into it, nor moved
-- out of it. Enforced here, by triggers on every table DGII's 606, 607 and 608 read, so that no
-- write path can forget it; the refusal (SQLSTATE P0001, constraint period_closed, the period in
-- DETAIL) is the API's 409 period_closed naming the period (src/db/errors.ts).
--
-- Each check takes a shared advisory lock on (tenant, period); a close takes it exclusively
-- (src/modules/fiscal-periods/service.ts) before it snapshots the reports: a close waits for the
-- writes into its month under way, and a write that comes after sees the close.
CREATE OR REPLACE FUNCTION assert_period_open(p_tenant integer, p_date date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_period text;
BEGIN
  IF p_date IS NULL THEN
    RETURN;
  END IF;
  v_period := to_char(p_date, 'YYYYMM');
  PERFORM pg_advisory_xact_lock_shared(p_tenant, hashtext('fiscal-period:' || v_period));
  IF EXISTS (SELECT 1 FROM fiscal_period_closes c WHERE c.tenant_id = p_tenant AND c.period = v_period AND c.reopened_at IS NULL) THEN
    RAISE EXCEPTION 'fiscal period % is closed', v_period USING ERRCODE = 'P0001', CONSTRAINT = 'period_closed', DETAIL = v_period;
  END IF;
END $$;
--> statement-breakpoint
-- Invoices: the 607 reads an issued invoice (not a draft) by its issue date, and the buyer's
-- withholdings by their date. What it reports of the invoice is the document group below; paying
-- it, crediting it by a note dated later, or editing its free text changes no closed 607 and
-- stays allowed (the payments' own dates are checked on invoice_payments).
CREATE OR REPLACE FUNCTION invoices_period_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'draft' THEN
      PERFORM assert_period_open(NEW.tenant_id, NEW.issue_date);
    END IF;
    PERFORM assert_period_open(NEW.tenant_id, NEW.withholding_date);
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF OLD.status <> 'draft' THEN
      PERFORM assert_period_open(OLD.tenant_id, OLD.issue_date);
    END IF;
    PERFORM assert_period_open(OLD.tenant_id, OLD.withholding_date);
    RETURN OLD;
  END IF;
  IF (OLD.document_number, OLD.issue_date, OLD.status IN ('draft', 'cancelled'), OLD.deleted_at IS NULL, OLD.contact_id, OLD.currency_id,
      OLD.exchange_rate, OLD.subtotal_amount_dop, OLD.discount_amount_dop, OLD.tax_amount_dop, OLD.total_amount_dop, OLD.income_type,
      OLD.replaced_ncf, OLD.tax_breakdown, OLD.snapshot -> 'buyer')
     IS DISTINCT FROM
     (NEW.document_number, NEW.issue_date, NEW.status IN ('draft', 'cancelled'), NEW.deleted_at IS NULL, NEW.contact_id, NEW.currency_id,
      NEW.exchange_rate, NEW.subtotal_amount_dop, NEW.discount_amount_dop, NEW.tax_amount_dop, NEW.total_amount_dop, NEW.income_type,
      NEW.replaced_ncf, NEW.tax_breakdown, NEW.snapshot -> 'buyer') THEN
    IF OLD.status <> 'draft' THEN
      PERFORM assert_period_open(OLD.tenant_id, OLD.issue_date);
    END IF;
    IF NEW.status <> 'draft' THEN
      PERFORM assert_period_open(NEW.tenant_id, NEW.issue_date);
    END IF;
  END IF;
  IF (OLD.itbis_withheld, OLD.isr_withheld, OLD.withholding_date) IS DISTINCT FROM (NEW.itbis_withheld, NEW.isr_withheld, NEW.withholding_date) THEN
    PERFORM assert_period_open(OLD.tenant_id, OLD.withholding_date);
    PERFORM assert_period_open(NEW.tenant_id, NEW.withholding_date);
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER invoices_period_lock BEFORE INSERT OR UPDATE OR DELETE ON invoices FOR EACH ROW EXECUTE FUNCTION invoices_period_lock();
--> statement-breakpoint
-- Credit and debit notes: documents of their own issue date (never edited once issued).
CREATE OR REPLACE FUNCTION invoice_notes_period_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM assert_period_open(NEW.tenant_id, NEW.issue_date);
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    PERFORM assert_period_open(OLD.tenant_id, OLD.issue_date);
    RETURN OLD;
  END IF;
  IF (OLD.document_number, OLD.issue_date, OLD.status, OLD.modified_ncf, OLD.exchange_rate, OLD.subtotal_amount_dop, OLD.discount_amount_dop,
      OLD.tax_amount_dop, OLD.total_amount_dop, OLD.tax_breakdown, OLD.snapshot -> 'buyer')
     IS DISTINCT FROM
     (NEW.document_number, NEW.issue_date, NEW.status, NEW.modified_ncf, NEW.exchange_rate, NEW.subtotal_amount_dop, NEW.discount_amount_dop,
      NEW.tax_amount_dop, NEW.total_amount_dop, NEW.tax_breakdown, NEW.snapshot -> 'buyer') THEN
    PERFORM assert_period_open(OLD.tenant_id, OLD.issue_date);
    PERFORM assert_period_open(NEW.tenant_id, NEW.issue_date);
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER invoice_notes_period_lock BEFORE INSERT OR UPDATE OR DELETE ON invoice_notes FOR EACH ROW EXECUTE FUNCTION invoice_notes_period_lock();
--> statement-breakpoint
-- Purchases: the 606 reads an entered purchase (not a draft, not voided) by its issue date, and its
-- withholdings by their date. Voiding an entered purchase takes it out of its month: refused too.
CREATE OR REPLACE FUNCTION purchases_period_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status IN ('pending_payment', 'partially_paid', 'paid') THEN
      PERFORM assert_period_open(NEW.tenant_id, NEW.issue_date);
    END IF;
    PERFORM assert_period_open(NEW.tenant_id, NEW.withholding_date);
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF OLD.status IN ('pending_payment', 'partially_paid', 'paid') THEN
      PERFORM assert_period_open(OLD.tenant_id, OLD.issue_date);
    END IF;
    PERFORM assert_period_open(OLD.tenant_id, OLD.withholding_date);
    RETURN OLD;
  END IF;
  IF (OLD.status IN ('pending_payment', 'partially_paid', 'paid'), OLD.status = 'voided', OLD.issue_date, OLD.ncf, OLD.supplier_ncf, OLD.supplier_id,
      OLD.expense_type, OLD.currency_id, OLD.exchange_rate, OLD.subtotal_amount, OLD.discount_amount, OLD.tax_amount, OLD.total_amount,
      OLD.total_amount_dop, OLD.tax_breakdown)
     IS DISTINCT FROM
     (NEW.status IN ('pending_payment', 'partially_paid', 'paid'), NEW.status = 'voided', NEW.issue_date, NEW.ncf, NEW.supplier_ncf, NEW.supplier_id,
      NEW.expense_type, NEW.currency_id, NEW.exchange_rate, NEW.subtotal_amount, NEW.discount_amount, NEW.tax_amount, NEW.total_amount,
      NEW.total_amount_dop, NEW.tax_breakdown) THEN
    IF OLD.status IN ('pending_payment', 'partially_paid', 'paid') THEN
      PERFORM assert_period_open(OLD.tenant_id, OLD.issue_date);
    END IF;
    IF NEW.status IN ('pending_payment', 'partially_paid', 'paid') THEN
      PERFORM assert_period_open(NEW.tenant_id, NEW.issue_date);
    END IF;
  END IF;
  IF (OLD.itbis_withheld, OLD.isr_withheld, OLD.withholding_date) IS DISTINCT FROM (NEW.itbis_withheld, NEW.isr_withheld, NEW.withholding_date) THEN
    PERFORM assert_period_open(OLD.tenant_id, OLD.withholding_date);
    PERFORM assert_period_open(NEW.tenant_id, NEW.withholding_date);
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER purchases_period_lock BEFORE INSERT OR UPDATE OR DELETE ON purchases FOR EACH ROW EXECUTE FUNCTION purchases_period_lock();
--> statement-breakpoint
-- Payments, of sales and of purchases: the 606 and 607 give each document's forms of payment from
-- the payments dated by the month's end.
CREATE OR REPLACE FUNCTION payments_period_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM assert_period_open(OLD.tenant_id, OLD.payment_date);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM assert_period_open(NEW.tenant_id, NEW.payment_date);
    RETURN NEW;
  END IF;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER invoice_payments_period_lock BEFORE INSERT OR UPDATE OR DELETE ON invoice_payments FOR EACH ROW EXECUTE FUNCTION payments_period_lock();
--> statement-breakpoint
CREATE TRIGGER purchase_payments_period_lock BEFORE INSERT OR UPDATE OR DELETE ON purchase_payments FOR EACH ROW EXECUTE FUNCTION payments_period_lock();
--> statement-breakpoint
-- The 608 reads the NCFs annulled in the month.
CREATE OR REPLACE FUNCTION ncf_annulments_period_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM assert_period_open(OLD.tenant_id, OLD.annulled_on);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM assert_period_open(NEW.tenant_id, NEW.annulled_on);
    RETURN NEW;
  END IF;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER ncf_annulments_period_lock BEFORE INSERT OR UPDATE OR DELETE ON ncf_annulments FOR EACH ROW EXECUTE FUNCTION ncf_annulments_period_lock();

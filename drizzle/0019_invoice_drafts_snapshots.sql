ALTER TABLE "invoices" ALTER COLUMN "document_number" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "snapshot" jsonb;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "exchange_rate" numeric(18, 6);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "subtotal_amount_dop" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "discount_amount_dop" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_amount_dop" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "total_amount_dop" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_number_unless_draft" CHECK (status = 'draft' OR document_number IS NOT NULL);--> statement-breakpoint
-- Invoices issued before this migration: their rate is the currency's rate now (the best record
-- left; 1 in the default currency or none), their DOP amounts computed with it. Their snapshot
-- stays NULL: their PDF reads the live profile and contact, as it always did (docs/fiscal.md).
UPDATE "invoices" i SET
  "exchange_rate" = r.rate,
  "subtotal_amount_dop" = round(i."subtotal_amount" * r.rate, 2),
  "discount_amount_dop" = round(i."discount_amount" * r.rate, 2),
  "tax_amount_dop" = round(i."tax_amount" * r.rate, 2),
  "total_amount_dop" = round(i."total_amount" * r.rate, 2)
FROM (
  SELECT x."id", coalesce(CASE WHEN c."is_default" THEN 1 ELSE c."exchange_rate" END, 1)::numeric(18, 6) AS rate
  FROM "invoices" x LEFT JOIN "currencies" c ON c."id" = x."currency_id"
) r
WHERE r."id" = i."id";

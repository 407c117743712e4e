ALTER TABLE "taxes" ADD COLUMN "dgii_code" text;--> statement-breakpoint
ALTER TABLE "taxes" ADD COLUMN "amount_per_unit" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "invoice_notes" ADD COLUMN "tax_breakdown" jsonb;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_breakdown" jsonb;--> statement-breakpoint
ALTER TABLE "quotations" ADD COLUMN "tax_breakdown" jsonb;--> statement-breakpoint
-- Propina legal is Tabla I's code 001 (Formato e-CF v1.0) whatever its name; other taxes keep no
-- code until someone gives them one (their lines compute as before).
UPDATE "taxes" SET "dgii_code" = '001' WHERE "type" = 'propina_legal';

ALTER TABLE "invoice_items" ALTER COLUMN "unit_price" SET DATA TYPE numeric(14, 4);--> statement-breakpoint
ALTER TABLE "quotation_items" ALTER COLUMN "unit_price" SET DATA TYPE numeric(14, 4);
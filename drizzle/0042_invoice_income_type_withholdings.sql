ALTER TABLE "invoices" ADD COLUMN "itbis_withheld" numeric(14, 2) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "isr_withheld" numeric(14, 2) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "withholding_date" date;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "income_type" text DEFAULT '01' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_income_type" CHECK (income_type IN ('01', '02', '03', '04', '05', '06'));
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "sent_as" text DEFAULT 'ecf' NOT NULL;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "summary_row" integer;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "summary_fields" jsonb;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "summary_xml" text;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD CONSTRAINT "ecf_certification_test_cases_sent_as" CHECK ("ecf_certification_test_cases"."sent_as" IN ('ecf', 'rfce', 'acecf'));--> statement-breakpoint
-- Cases imported before: sent as they were read (an RFCE row as a summary, an approval as an ACECF).
UPDATE "ecf_certification_test_cases" SET "sent_as" = "document" WHERE "document" <> 'ecf';

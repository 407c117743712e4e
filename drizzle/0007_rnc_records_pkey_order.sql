ALTER TABLE "rnc_records" DROP CONSTRAINT "rnc_records_pkey";
--> statement-breakpoint
ALTER TABLE "rnc_records" ADD CONSTRAINT "rnc_records_pkey" PRIMARY KEY("identification","run_id");
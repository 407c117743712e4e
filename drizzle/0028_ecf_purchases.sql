ALTER TABLE "ecf_documents" DROP CONSTRAINT "ecf_documents_one_document";--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "purchase_id" integer;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_purchase_id_purchases_id_fk" FOREIGN KEY ("purchase_id") REFERENCES "public"."purchases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_documents_purchase_idx" ON "ecf_documents" USING btree ("purchase_id");--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_one_document" CHECK (num_nonnulls("ecf_documents"."invoice_id", "ecf_documents"."note_id", "ecf_documents"."purchase_id") = 1);
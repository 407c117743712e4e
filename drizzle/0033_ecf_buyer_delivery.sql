ALTER TABLE "ecf_documents" ADD COLUMN "delivery_status" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_url" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_receipt" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_reason" integer;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_error" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_unreachable_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivery_next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "ecf_documents_delivery_due_idx" ON "ecf_documents" USING btree ("delivery_next_attempt_at") WHERE "ecf_documents"."delivery_status" = 'pending';--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_delivery_status" CHECK ("ecf_documents"."delivery_status" IN ('pending', 'delivered', 'not_received', 'refused', 'not_electronic', 'failed'));--> statement-breakpoint
CREATE OR REPLACE FUNCTION ecf_due_deliveries(max_rows integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT d.tenant_id, d.id FROM ecf_documents d
  WHERE d.delivery_status = 'pending' AND d.delivery_next_attempt_at <= due_before
  ORDER BY d.delivery_next_attempt_at, d.id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION ecf_due_deliveries(integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ecf_due_deliveries(integer, timestamptz) TO sucursal_app;

CREATE TABLE "ecf_documents" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_documents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"workspace_id" integer NOT NULL,
	"invoice_id" integer,
	"note_id" integer,
	"ecf_type" text NOT NULL,
	"encf" text NOT NULL,
	"environment" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"xml" text NOT NULL,
	"summary_xml" text,
	"security_code" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"issuer_rnc" text NOT NULL,
	"buyer_rnc" text,
	"issue_date" date NOT NULL,
	"total_amount" numeric(14, 2) NOT NULL,
	"track_id" text,
	"dgii_messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sequence_used" boolean,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_error" text,
	"unreachable_since" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ecf_documents_one_document" CHECK (("ecf_documents"."invoice_id" IS NULL) <> ("ecf_documents"."note_id" IS NULL)),
	CONSTRAINT "ecf_documents_status" CHECK ("ecf_documents"."status" IN ('pending', 'in_process', 'accepted', 'accepted_conditional', 'rejected', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "ecf_documents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_note_id_invoice_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."invoice_notes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_documents_encf_idx" ON "ecf_documents" USING btree ("tenant_id","encf");--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_documents_invoice_idx" ON "ecf_documents" USING btree ("invoice_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_documents_note_idx" ON "ecf_documents" USING btree ("note_id");--> statement-breakpoint
CREATE INDEX "ecf_documents_due_idx" ON "ecf_documents" USING btree ("next_attempt_at") WHERE "ecf_documents"."status" IN ('pending', 'in_process');--> statement-breakpoint
CREATE INDEX "ecf_documents_list_idx" ON "ecf_documents" USING btree ("tenant_id","issue_date","id");--> statement-breakpoint
CREATE POLICY "ecf_documents_tenant_isolation" ON "ecf_documents" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- The e-CF sweep reads due documents across tenants (like outbox_due_messages, drizzle/0008): the
-- function sees past RLS and returns only references; each document is then sent in its tenant's
-- transaction.
CREATE OR REPLACE FUNCTION ecf_due_documents(max_rows integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT e.tenant_id, e.id FROM ecf_documents e
  WHERE e.status IN ('pending', 'in_process') AND e.next_attempt_at <= due_before
  ORDER BY e.next_attempt_at, e.id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION ecf_due_documents(integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ecf_due_documents(integer, timestamptz) TO sucursal_app;

CREATE TABLE "ncf_annulments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ncf_annulments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"workspace_id" integer NOT NULL,
	"invoice_id" integer NOT NULL,
	"ncf" text NOT NULL,
	"annulled_on" date NOT NULL,
	"reason_code" text NOT NULL,
	"action" text NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ncf_annulments_reason_code" CHECK ("ncf_annulments"."reason_code" ~ '^(0[1-9]|10)$')
);
--> statement-breakpoint
ALTER TABLE "ncf_annulments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ncf_annulments" ADD CONSTRAINT "ncf_annulments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ncf_annulments" ADD CONSTRAINT "ncf_annulments_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ncf_annulments" ADD CONSTRAINT "ncf_annulments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ncf_annulments" ADD CONSTRAINT "ncf_annulments_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ncf_annulments_tenant_ncf_key" ON "ncf_annulments" USING btree ("tenant_id","ncf");--> statement-breakpoint
CREATE INDEX "ncf_annulments_tenant_date_idx" ON "ncf_annulments" USING btree ("tenant_id","annulled_on");--> statement-breakpoint
CREATE POLICY "ncf_annulments_tenant_isolation" ON "ncf_annulments" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
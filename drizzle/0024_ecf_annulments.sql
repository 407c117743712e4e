CREATE TABLE "ecf_annulments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_annulments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"document_subtype_id" integer NOT NULL,
	"ecf_type" text NOT NULL,
	"from_encf" text NOT NULL,
	"to_encf" text NOT NULL,
	"count" integer NOT NULL,
	"environment" text NOT NULL,
	"xml" text NOT NULL,
	"dgii_messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ecf_annulments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_annulments" ADD CONSTRAINT "ecf_annulments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_annulments" ADD CONSTRAINT "ecf_annulments_document_subtype_id_document_subtypes_id_fk" FOREIGN KEY ("document_subtype_id") REFERENCES "public"."document_subtypes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ecf_annulments_subtype_idx" ON "ecf_annulments" USING btree ("tenant_id","document_subtype_id","id");--> statement-breakpoint
CREATE POLICY "ecf_annulments_tenant_isolation" ON "ecf_annulments" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
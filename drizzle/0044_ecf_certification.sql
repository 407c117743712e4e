CREATE TABLE "ecf_certification_marks" (
	"tenant_id" integer NOT NULL,
	"step" integer NOT NULL,
	"note" text NOT NULL,
	"marked_by" integer,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ecf_certification_marks_tenant_id_step_pk" PRIMARY KEY("tenant_id","step"),
	CONSTRAINT "ecf_certification_marks_step" CHECK ("ecf_certification_marks"."step" BETWEEN 1 AND 14)
);
--> statement-breakpoint
ALTER TABLE "ecf_certification_marks" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "received_ecf" ADD COLUMN "environment" text;--> statement-breakpoint
ALTER TABLE "ecf_settings" ADD COLUMN "uses_certified_provider" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "ecf_certification_marks" ADD CONSTRAINT "ecf_certification_marks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "ecf_certification_marks_tenant_isolation" ON "ecf_certification_marks" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
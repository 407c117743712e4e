CREATE TABLE "ecf_settings" (
	"tenant_id" integer PRIMARY KEY NOT NULL,
	"environment" text DEFAULT 'testecf' NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"certificate_encrypted" text,
	"certificate_subject" text,
	"certificate_serial_number" text,
	"certificate_issuer" text,
	"certificate_not_before" timestamp with time zone,
	"certificate_not_after" timestamp with time zone,
	"certificate_fingerprint" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ecf_settings_environment" CHECK ("ecf_settings"."environment" IN ('testecf', 'certecf', 'ecf'))
);
--> statement-breakpoint
ALTER TABLE "ecf_settings" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_settings" ADD CONSTRAINT "ecf_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "ecf_settings_tenant_isolation" ON "ecf_settings" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
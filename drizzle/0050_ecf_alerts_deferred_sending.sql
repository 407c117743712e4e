CREATE TABLE "ecf_alerts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"due_at" timestamp with time zone,
	"raised_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ecf_alerts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "offline_issued_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "deferred_deadline" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_settings" ADD COLUMN "deferred_sending_authorization" text;--> statement-breakpoint
ALTER TABLE "ecf_alerts" ADD CONSTRAINT "ecf_alerts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_alerts_subject_key" ON "ecf_alerts" USING btree ("tenant_id","kind","subject");--> statement-breakpoint
CREATE INDEX "ecf_alerts_open_idx" ON "ecf_alerts" USING btree ("tenant_id","raised_at") WHERE "ecf_alerts"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX "ecf_documents_deferred_idx" ON "ecf_documents" USING btree ("tenant_id","deferred_deadline") WHERE "ecf_documents"."deferred_deadline" IS NOT NULL;--> statement-breakpoint
CREATE POLICY "ecf_alerts_tenant_isolation" ON "ecf_alerts" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- The database keeps updated_at (drizzle/0036): the new table gets its trigger.
CREATE TRIGGER "ecf_alerts_set_updated_at" BEFORE UPDATE ON "ecf_alerts" FOR EACH ROW EXECUTE FUNCTION set_updated_at();--> statement-breakpoint
-- The hourly alert sweep (jobs/ecf-alerts.ts) finds, across tenants, those it has to look at: e-CF
-- turned on, or an alert still open (its cause may be gone). Like ecf_due_documents (drizzle/0023),
-- the function sees past RLS and returns only ids; each tenant is then swept in its own transaction.
CREATE OR REPLACE FUNCTION ecf_alert_tenants(after_tenant integer, max_rows integer)
RETURNS TABLE (tenant_id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT t.tenant_id FROM (
    SELECT s.tenant_id FROM ecf_settings s WHERE s.enabled
    UNION
    SELECT a.tenant_id FROM ecf_alerts a WHERE a.resolved_at IS NULL
  ) t
  WHERE t.tenant_id > after_tenant
  ORDER BY t.tenant_id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION ecf_alert_tenants(integer, integer) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ecf_alert_tenants(integer, integer) TO sucursal_app;

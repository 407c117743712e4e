CREATE TABLE "ecf_contingencies" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_contingencies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"workspace_ids" integer[],
	"reason" text NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"opened_by" integer,
	"closed_at" timestamp with time zone,
	"closed_by" integer,
	"closed_how" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ecf_contingencies_closed_how" CHECK ("ecf_contingencies"."closed_how" IN ('manual', 'dgii')),
	CONSTRAINT "ecf_contingencies_closed" CHECK (("ecf_contingencies"."closed_at" IS NULL) = ("ecf_contingencies"."closed_how" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "ecf_contingencies" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "document_subtypes" ADD COLUMN "contingency_workspace_id" integer;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "replaced_ncf" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "replaced_ncf_date" date;--> statement-breakpoint
ALTER TABLE "ecf_contingencies" ADD CONSTRAINT "ecf_contingencies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ecf_contingencies_open_idx" ON "ecf_contingencies" USING btree ("tenant_id") WHERE "ecf_contingencies"."closed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "ecf_contingencies_list_idx" ON "ecf_contingencies" USING btree ("tenant_id","opened_at","id");--> statement-breakpoint
ALTER TABLE "document_subtypes" ADD CONSTRAINT "document_subtypes_contingency_workspace_id_workspaces_id_fk" FOREIGN KEY ("contingency_workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_tenant_replaced_ncf_key" ON "invoices" USING btree ("tenant_id","replaced_ncf");--> statement-breakpoint
CREATE POLICY "ecf_contingencies_tenant_isolation" ON "ecf_contingencies" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
--> statement-breakpoint
CREATE TRIGGER ecf_contingencies_set_updated_at BEFORE UPDATE ON ecf_contingencies FOR EACH ROW EXECUTE FUNCTION set_updated_at();--> statement-breakpoint
-- A total contingency closes by itself when DGII's status service reports reception available
-- again (jobs/dgii-status.ts; issue 33): across tenants, for those signing in that environment, as
-- the e-CF sweep reads due documents (drizzle/0023). Their held e-CF become due at once, except a
-- branch still covered by an open contingency of its own.
CREATE OR REPLACE FUNCTION close_total_ecf_contingencies(dgii_environment text, closed timestamptz)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public
AS $$
DECLARE
  closed_count integer;
BEGIN
  WITH closed_rows AS (
    UPDATE ecf_contingencies c SET closed_at = closed, closed_how = 'dgii'
    WHERE c.closed_at IS NULL AND c.workspace_ids IS NULL
      AND EXISTS (SELECT 1 FROM ecf_settings s WHERE s.tenant_id = c.tenant_id AND s.environment = dgii_environment)
    RETURNING c.tenant_id
  ), released AS (
    UPDATE ecf_documents d SET next_attempt_at = closed
    WHERE d.tenant_id IN (SELECT tenant_id FROM closed_rows) AND d.status IN ('pending', 'in_process') AND d.next_attempt_at > closed
      AND NOT EXISTS (SELECT 1 FROM ecf_contingencies o
        WHERE o.tenant_id = d.tenant_id AND o.closed_at IS NULL AND o.workspace_ids IS NOT NULL AND d.workspace_id = ANY (o.workspace_ids))
    RETURNING d.id
  )
  -- A data-modifying WITH entry runs whether or not it is read.
  SELECT count(*) INTO closed_count FROM closed_rows;
  RETURN closed_count;
END;
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION close_total_ecf_contingencies(text, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION close_total_ecf_contingencies(text, timestamptz) TO sucursal_app;

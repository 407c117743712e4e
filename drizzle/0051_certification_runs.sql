CREATE TABLE "ecf_certification_runs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_certification_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"test_set_id" integer NOT NULL,
	"number" integer NOT NULL,
	"environment" text NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"started_by" integer,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"stopped_case_id" integer,
	"stop_reason" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"unreachable_since" timestamp with time zone,
	CONSTRAINT "ecf_certification_runs_state" CHECK ("ecf_certification_runs"."state" IN ('running', 'completed', 'stopped'))
);
--> statement-breakpoint
ALTER TABLE "ecf_certification_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" DROP CONSTRAINT "ecf_certification_test_cases_state";--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "run_id" integer;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "run_encf" text;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "xml" text;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "security_code" text;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "track_id" text;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "dgii_state" text;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "dgii_messages" jsonb;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD COLUMN "answered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_certification_runs" ADD CONSTRAINT "ecf_certification_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_certification_runs" ADD CONSTRAINT "ecf_certification_runs_test_set_id_ecf_certification_test_sets_id_fk" FOREIGN KEY ("test_set_id") REFERENCES "public"."ecf_certification_test_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_certification_runs_number_idx" ON "ecf_certification_runs" USING btree ("test_set_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_certification_runs_running_idx" ON "ecf_certification_runs" USING btree ("test_set_id") WHERE "ecf_certification_runs"."state" = 'running';--> statement-breakpoint
CREATE INDEX "ecf_certification_runs_due_idx" ON "ecf_certification_runs" USING btree ("next_attempt_at") WHERE "ecf_certification_runs"."state" = 'running';--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD CONSTRAINT "ecf_certification_test_cases_state" CHECK ("ecf_certification_test_cases"."state" IN ('pending', 'sent', 'accepted', 'accepted_conditional', 'rejected'));--> statement-breakpoint
CREATE POLICY "ecf_certification_runs_tenant_isolation" ON "ecf_certification_runs" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- The minute sweep's due runs across tenants (jobs/certification-runs.ts), as ecf_due_documents (0023).
CREATE OR REPLACE FUNCTION ecf_due_certification_runs(max_rows integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT r.tenant_id, r.id FROM ecf_certification_runs r
  WHERE r.state = 'running' AND r.next_attempt_at <= due_before
  ORDER BY r.next_attempt_at, r.id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION ecf_due_certification_runs(integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ecf_due_certification_runs(integer, timestamptz) TO sucursal_app;

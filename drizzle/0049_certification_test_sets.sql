CREATE TABLE "ecf_certification_test_cases" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_certification_test_cases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"test_set_id" integer NOT NULL,
	"position" integer NOT NULL,
	"sheet" text NOT NULL,
	"row" integer NOT NULL,
	"case_name" text NOT NULL,
	"document" text NOT NULL,
	"ecf_type" text NOT NULL,
	"encf" text NOT NULL,
	"fields" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	CONSTRAINT "ecf_certification_test_cases_document" CHECK ("ecf_certification_test_cases"."document" IN ('ecf', 'rfce', 'acecf')),
	CONSTRAINT "ecf_certification_test_cases_state" CHECK ("ecf_certification_test_cases"."state" IN ('pending'))
);
--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "ecf_certification_test_sets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_certification_test_sets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"kind" text NOT NULL,
	"file_name" text NOT NULL,
	"uploaded_by" integer,
	"uploaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"case_count" integer NOT NULL,
	CONSTRAINT "ecf_certification_test_sets_kind" CHECK ("ecf_certification_test_sets"."kind" IN ('ecf', 'approval'))
);
--> statement-breakpoint
ALTER TABLE "ecf_certification_test_sets" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD CONSTRAINT "ecf_certification_test_cases_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_cases" ADD CONSTRAINT "ecf_certification_test_cases_test_set_id_ecf_certification_test_sets_id_fk" FOREIGN KEY ("test_set_id") REFERENCES "public"."ecf_certification_test_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_certification_test_sets" ADD CONSTRAINT "ecf_certification_test_sets_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_certification_test_cases_case_idx" ON "ecf_certification_test_cases" USING btree ("test_set_id","sheet","case_name");--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_certification_test_cases_position_idx" ON "ecf_certification_test_cases" USING btree ("test_set_id","position");--> statement-breakpoint
CREATE INDEX "ecf_certification_test_sets_tenant_idx" ON "ecf_certification_test_sets" USING btree ("tenant_id","uploaded_at");--> statement-breakpoint
CREATE POLICY "ecf_certification_test_cases_tenant_isolation" ON "ecf_certification_test_cases" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE POLICY "ecf_certification_test_sets_tenant_isolation" ON "ecf_certification_test_sets" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
CREATE TABLE "fiscal_period_closes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fiscal_period_closes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"period" text NOT NULL,
	"version" integer NOT NULL,
	"closed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_by" integer NOT NULL,
	"reopened_at" timestamp with time zone,
	"reopened_by" integer,
	"reopen_reason" text,
	CONSTRAINT "fiscal_period_closes_period" CHECK ("fiscal_period_closes"."period" ~ '^[0-9]{4}(0[1-9]|1[0-2])$'),
	CONSTRAINT "fiscal_period_closes_reopen" CHECK (("fiscal_period_closes"."reopened_at" IS NULL) = ("fiscal_period_closes"."reopened_by" IS NULL) AND ("fiscal_period_closes"."reopened_at" IS NULL) = ("fiscal_period_closes"."reopen_reason" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "fiscal_period_closes" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "fiscal_period_snapshots" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fiscal_period_snapshots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"close_id" integer NOT NULL,
	"report" text NOT NULL,
	"format" text NOT NULL,
	"content_type" text NOT NULL,
	"body" text NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fiscal_period_snapshots" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "fiscal_period_closes" ADD CONSTRAINT "fiscal_period_closes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_period_closes" ADD CONSTRAINT "fiscal_period_closes_closed_by_users_id_fk" FOREIGN KEY ("closed_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_period_closes" ADD CONSTRAINT "fiscal_period_closes_reopened_by_users_id_fk" FOREIGN KEY ("reopened_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_period_snapshots" ADD CONSTRAINT "fiscal_period_snapshots_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_period_snapshots" ADD CONSTRAINT "fiscal_period_snapshots_close_id_fiscal_period_closes_id_fk" FOREIGN KEY ("close_id") REFERENCES "public"."fiscal_period_closes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_period_closes_version_key" ON "fiscal_period_closes" USING btree ("tenant_id","period","version");--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_period_closes_standing_key" ON "fiscal_period_closes" USING btree ("tenant_id","period") WHERE reopened_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_period_snapshots_key" ON "fiscal_period_snapshots" USING btree ("close_id","report","format");--> statement-breakpoint
CREATE INDEX "fiscal_period_snapshots_tenant_idx" ON "fiscal_period_snapshots" USING btree ("tenant_id");--> statement-breakpoint
CREATE POLICY "fiscal_period_closes_tenant_isolation" ON "fiscal_period_closes" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE POLICY "fiscal_period_snapshots_tenant_isolation" ON "fiscal_period_snapshots" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
CREATE TABLE "chat_accounts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chat_accounts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"workspace_id" integer NOT NULL,
	"name" text NOT NULL,
	"phone_number" text NOT NULL,
	"phone_number_id" text NOT NULL,
	"business_account_id" text NOT NULL,
	"access_token_encrypted" text NOT NULL,
	"access_token_last4" text NOT NULL,
	"app_secret_encrypted" text NOT NULL,
	"webhook_verify_token_encrypted" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_accounts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "chat_templates" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chat_templates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"language" text NOT NULL,
	"category" text NOT NULL,
	"components" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"platform_template_id" text,
	"rejected_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_templates" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "inbound_updates" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "inbound_updates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"source" text NOT NULL,
	"bot_id" integer,
	"account_id" integer,
	"update_id" bigint,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inbound_updates" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "messaging_bots" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "messaging_bots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"workspace_id" integer NOT NULL,
	"name" text NOT NULL,
	"token_encrypted" text NOT NULL,
	"token_last4" text NOT NULL,
	"webhook_secret_encrypted" text NOT NULL,
	"webhook_url" text,
	"platform_bot_id" bigint,
	"platform_username" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messaging_bots" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "chat_accounts" ADD CONSTRAINT "chat_accounts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_accounts" ADD CONSTRAINT "chat_accounts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_templates" ADD CONSTRAINT "chat_templates_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_templates" ADD CONSTRAINT "chat_templates_account_id_chat_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."chat_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_updates" ADD CONSTRAINT "inbound_updates_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_updates" ADD CONSTRAINT "inbound_updates_bot_id_messaging_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."messaging_bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_updates" ADD CONSTRAINT "inbound_updates_account_id_chat_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."chat_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_bots" ADD CONSTRAINT "messaging_bots_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_bots" ADD CONSTRAINT "messaging_bots_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_accounts_workspace_idx" ON "chat_accounts" USING btree ("tenant_id","workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_accounts_phone_number_id_key" ON "chat_accounts" USING btree ("tenant_id","phone_number_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_templates_account_name_language_key" ON "chat_templates" USING btree ("account_id","name","language");--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_updates_bot_update_key" ON "inbound_updates" USING btree ("bot_id","update_id");--> statement-breakpoint
CREATE INDEX "inbound_updates_account_idx" ON "inbound_updates" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "messaging_bots_workspace_idx" ON "messaging_bots" USING btree ("tenant_id","workspace_id");--> statement-breakpoint
CREATE POLICY "chat_accounts_tenant_isolation" ON "chat_accounts" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE POLICY "chat_templates_tenant_isolation" ON "chat_templates" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE POLICY "inbound_updates_tenant_isolation" ON "inbound_updates" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE POLICY "messaging_bots_tenant_isolation" ON "messaging_bots" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- The outbox sweep (cron) re-enqueues due messages of every tenant. Row-level security hides
-- outbox rows from the app role unless one tenant is set, so this function (owned by the
-- migration role, which owns the table) answers only the ids and tenants of due pending messages;
-- the consumer then reads and updates each one inside its tenant's transaction.
CREATE OR REPLACE FUNCTION outbox_due_messages(max_rows integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT o.tenant_id, o.id FROM outbox_messages o
  WHERE o.status = 'pending' AND o.next_attempt_at <= due_before
  ORDER BY o.next_attempt_at, o.id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION outbox_due_messages(integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION outbox_due_messages(integer, timestamptz) TO sucursal_app;

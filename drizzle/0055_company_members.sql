CREATE TABLE "company_members" (
	"tenant_id" integer NOT NULL,
	"user_id" integer PRIMARY KEY NOT NULL,
	"role_id" integer NOT NULL,
	"is_owner" boolean DEFAULT false NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_members" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "company_members" ADD CONSTRAINT "company_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_members" ADD CONSTRAINT "company_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_members" ADD CONSTRAINT "company_members_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "company_members_one_owner_key" ON "company_members" USING btree ("tenant_id") WHERE is_owner;--> statement-breakpoint
CREATE INDEX "company_members_role_idx" ON "company_members" USING btree ("role_id");--> statement-breakpoint
CREATE POLICY "company_members_tenant_isolation" ON "company_members" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE TRIGGER company_members_set_updated_at BEFORE UPDATE ON company_members FOR EACH ROW EXECUTE FUNCTION set_updated_at();--> statement-breakpoint
-- The companies that exist already (issue 41). Their owner: the owner of their first workspace, the
-- one created with the tenant for its first admin (src/modules/tenants/service.ts), holding admin.
INSERT INTO company_members (tenant_id, user_id, role_id, is_owner)
SELECT DISTINCT ON (w.tenant_id) w.tenant_id, w.owner_id, r.id, true
FROM workspaces w JOIN roles r ON r.tenant_id = w.tenant_id AND r.is_builtin AND r.name = 'admin'
ORDER BY w.tenant_id, w.id
ON CONFLICT DO NOTHING;--> statement-breakpoint
-- And whoever could already do a company-level act in every branch keeps it: a user who is a member
-- of every workspace of the company with one same role, when that role holds a permission the
-- company-level routes ask for at this migration. Nobody gains anything: a branch role gave them
-- the act everywhere before. An administrator of some branches only (the case issue 41 closes) gets
-- nothing; the owner grants them a company role if they should have one.
INSERT INTO company_members (tenant_id, user_id, role_id, is_owner)
SELECT m.tenant_id, m.user_id, min(m.role_id), false
FROM workspace_members m
GROUP BY m.tenant_id, m.user_id
HAVING count(DISTINCT m.role_id) = 1
  AND count(*) = (SELECT count(*) FROM workspaces w WHERE w.tenant_id = m.tenant_id)
  AND EXISTS (SELECT 1 FROM roles r WHERE r.id = min(m.role_id) AND r.permissions && ARRAY['company:edit', 'ecf:manage', 'webhooks:manage', 'received_ecf:approve',
    'taxes:create', 'taxes:edit', 'taxes:delete', 'currencies:create', 'currencies:edit', 'currencies:delete',
    'document_subtypes:create', 'document_subtypes:edit', 'document_subtypes:delete', 'salesmen:create', 'salesmen:edit', 'salesmen:delete',
    'bank_accounts:create', 'bank_accounts:edit', 'bank_accounts:delete']::text[])
ON CONFLICT (user_id) DO NOTHING;

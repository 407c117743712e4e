-- DGII's monthly reports (issue 20): the permission `reports:view` and the built-in role
-- `accountant` (src/lib/permissions.ts). A tenant's built-in roles are rows written when the tenant
-- is created (tenants/service.ts) and cannot be edited through the API (403 builtin_role_immutable),
-- so tenants that exist already get them here: their admin role gains `reports:view` (the admin holds
-- every permission), and the accountant role is added with the permissions of the catalog's
-- definition at this migration. A tenant that already has a custom role named `accountant` keeps it
-- (the name is unique per tenant) and gets no built-in one.
UPDATE roles SET permissions = array_append(permissions, 'reports:view'), updated_at = now()
WHERE is_builtin AND name = 'admin' AND NOT ('reports:view' = ANY(permissions));--> statement-breakpoint
INSERT INTO roles (tenant_id, name, display_name, permissions, is_builtin)
SELECT t.id, 'accountant', 'Contador', ARRAY[
  'workspaces:view', 'members:view', 'roles:view', 'invitations:view', 'products:view', 'contacts:view',
  'invoices:view', 'payments:view', 'quotations:view', 'purchases:view', 'inventory:view',
  'document_subtypes:view', 'taxes:view', 'currencies:view', 'salesmen:view', 'bank_accounts:view',
  'integrations:view', 'rnc:view', 'received_ecf:view', 'reports:view', 'view_all_locations'
]::text[], true
FROM tenants t
ON CONFLICT (tenant_id, name) DO NOTHING;

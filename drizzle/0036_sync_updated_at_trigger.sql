-- Incremental sync (docs/api.md): updated_at is kept by the database, not by each service, so no
-- UPDATE path can forget it. BEFORE UPDATE sets it to now() (the transaction's start: every row a
-- transaction changes shares one instant, the same clock as the column's DEFAULT on insert).
CREATE OR REPLACE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$$;
--> statement-breakpoint
DO $$
DECLARE
  t text;
BEGIN
  FOR t IN
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name AND tb.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.column_name = 'updated_at'
  LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', t || '_set_updated_at', t);
    EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION set_updated_at()', t || '_set_updated_at', t);
  END LOOP;
END;
$$;
--> statement-breakpoint
-- filter[updated_since] / sort=updated_at of the lists: (tenant_id, updated_at) per listed table.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'taxes', 'currencies', 'document_subtypes', 'products', 'contacts', 'salesmen', 'bank_accounts',
    'invoices', 'invoice_notes', 'quotations', 'purchases', 'ecf_documents', 'received_ecf',
    'workspaces', 'roles', 'workspace_members', 'invitations', 'access_tokens', 'webhook_endpoints',
    'webhook_deliveries', 'users'
  ]
  LOOP
    IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = t AND column_name = 'tenant_id') THEN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (tenant_id, updated_at)', t || '_tenant_updated_idx', t);
    END IF;
  END LOOP;
END;
$$;

-- The application connects as sucursal_app: no BYPASSRLS, not the owner of any table, so the
-- tenant_isolation policies apply to every query it makes. Whether it may log in directly is an
-- environment decision (tests and production: yes; PGlite: the app sets it with SET LOCAL ROLE).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sucursal_app') THEN
    CREATE ROLE sucursal_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
END
$$;--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO sucursal_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO sucursal_app;--> statement-breakpoint
REVOKE INSERT, UPDATE, DELETE ON tenants FROM sucursal_app;--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO sucursal_app;--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO sucursal_app;--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO sucursal_app;

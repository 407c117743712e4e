CREATE TABLE "ecf_dgii_backoff" (
	"tenant_id" integer PRIMARY KEY NOT NULL,
	"until" timestamp with time zone NOT NULL,
	"failures" integer DEFAULT 1 NOT NULL,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ecf_dgii_backoff" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "sweep_cursors" (
	"sweep" text PRIMARY KEY NOT NULL,
	"after_tenant" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "outbox_messages_status_idx";--> statement-breakpoint
DROP INDEX "ecf_approvals_due_idx";--> statement-breakpoint
DROP INDEX "ecf_certification_runs_due_idx";--> statement-breakpoint
DROP INDEX "ecf_documents_delivery_due_idx";--> statement-breakpoint
DROP INDEX "ecf_documents_due_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
ALTER TABLE "invoice_status_counts" ADD COLUMN "folded" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "ecf_dgii_backoff" ADD CONSTRAINT "ecf_dgii_backoff_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invoice_status_counts_unfolded_idx" ON "invoice_status_counts" USING btree ("tenant_id","workspace_id","status") WHERE NOT "invoice_status_counts"."folded";--> statement-breakpoint
CREATE INDEX "outbox_messages_due_idx" ON "outbox_messages" USING btree ("tenant_id","next_attempt_at") WHERE "outbox_messages"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "ecf_approvals_due_idx" ON "ecf_approvals" USING btree ("tenant_id","next_attempt_at") WHERE "ecf_approvals"."dgii_status" = 'pending' OR "ecf_approvals"."issuer_status" = 'pending';--> statement-breakpoint
CREATE INDEX "ecf_certification_runs_due_idx" ON "ecf_certification_runs" USING btree ("tenant_id","next_attempt_at") WHERE "ecf_certification_runs"."state" = 'running';--> statement-breakpoint
CREATE INDEX "ecf_documents_delivery_due_idx" ON "ecf_documents" USING btree ("tenant_id","delivery_next_attempt_at") WHERE "ecf_documents"."delivery_status" = 'pending';--> statement-breakpoint
CREATE INDEX "ecf_documents_due_idx" ON "ecf_documents" USING btree ("tenant_id","next_attempt_at") WHERE "ecf_documents"."status" IN ('pending', 'in_process');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("tenant_id","next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE POLICY "ecf_dgii_backoff_tenant_isolation" ON "ecf_dgii_backoff" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- Only sweep_due reads and writes the cursors (SECURITY DEFINER): the app role needs no grant.
REVOKE ALL ON TABLE sweep_cursors FROM sucursal_app;--> statement-breakpoint
-- The minute sweeps (src/jobs/due.ts) across tenants, fairly and bounded by what is due (issue 48).
-- The tenants with open rows are found by a skip scan of the sweep's partial index (one index probe
-- per such tenant: a tenant with nothing open is never read, however many there are); each gives at
-- most `per_tenant` of its due rows, oldest first (a LIMIT on the same index); the rows are then
-- dealt round-robin — every tenant's first row, then every tenant's second… — up to `max_rows`.
-- One tenant's backlog therefore never pushes another tenant's single due row out of a sweep. When
-- the sweep is cut at `max_rows`, the last tenant served is kept (sweep_cursors) and the next
-- minute's round starts after it, so more tenants with work than one sweep takes are all reached in
-- turn. The e-CF sweep passes over a company DGII asked to wait (ecf_dgii_backoff: a 429 or 503 to
-- it) until its wait is over. Past RLS, ids only, as the functions it replaces (0008, 0023, 0027,
-- 0031, 0033, 0051).
CREATE OR REPLACE FUNCTION sweep_due(which text, max_rows integer, per_tenant integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public
AS $fn$
DECLARE
  source text;
  open_rows text;
  due_column text;
  waiting text := 'false';
  start_after integer;
  picked_tenants integer[];
  picked_ids integer[];
  most integer := least(greatest(max_rows, 1), 1000);
  each_tenant integer := least(greatest(per_tenant, 1), 1000);
BEGIN
  CASE which
    WHEN 'ecf' THEN
      source := 'ecf_documents'; open_rows := $$r.status IN ('pending', 'in_process')$$; due_column := 'next_attempt_at';
      waiting := $$EXISTS (SELECT 1 FROM ecf_dgii_backoff b WHERE b.tenant_id = t.tenant_id AND b.until > $1)$$;
    WHEN 'ecf_deliveries' THEN
      source := 'ecf_documents'; open_rows := $$r.delivery_status = 'pending'$$; due_column := 'delivery_next_attempt_at';
    WHEN 'ecf_approvals' THEN
      source := 'ecf_approvals'; open_rows := $$(r.dgii_status = 'pending' OR r.issuer_status = 'pending')$$; due_column := 'next_attempt_at';
    WHEN 'ecf_certification_runs' THEN
      source := 'ecf_certification_runs'; open_rows := $$r.state = 'running'$$; due_column := 'next_attempt_at';
    WHEN 'outbox' THEN
      source := 'outbox_messages'; open_rows := $$r.status = 'pending'$$; due_column := 'next_attempt_at';
    WHEN 'webhooks' THEN
      source := 'webhook_deliveries'; open_rows := $$r.status = 'pending'$$; due_column := 'next_attempt_at';
    ELSE
      RAISE EXCEPTION 'sweep_due: unknown sweep %', which;
  END CASE;
  SELECT c.after_tenant INTO start_after FROM sweep_cursors c WHERE c.sweep = which;
  start_after := coalesce(start_after, 0);
  EXECUTE format($q$
    WITH RECURSIVE tenants AS (
      (SELECT r.tenant_id FROM %1$I r WHERE %2$s ORDER BY r.tenant_id LIMIT 1)
      UNION ALL
      SELECT (SELECT r.tenant_id FROM %1$I r WHERE %2$s AND r.tenant_id > t.tenant_id ORDER BY r.tenant_id LIMIT 1)
      FROM tenants t WHERE t.tenant_id IS NOT NULL
    ), serving AS (
      SELECT t.tenant_id FROM tenants t WHERE t.tenant_id IS NOT NULL AND NOT (%4$s)
    ), due AS (
      SELECT s.tenant_id, d.id, row_number() OVER (PARTITION BY s.tenant_id ORDER BY d.due_at, d.id) AS turn, s.tenant_id <= $3 AS wrapped
      FROM serving s
      CROSS JOIN LATERAL (
        SELECT r.id, r.%3$I AS due_at FROM %1$I r
        WHERE r.tenant_id = s.tenant_id AND %2$s AND r.%3$I <= $1
        ORDER BY r.%3$I, r.id LIMIT $2
      ) d
    ), dealt AS (
      SELECT due.tenant_id, due.id, row_number() OVER (ORDER BY due.turn, due.wrapped, due.tenant_id) AS place
      FROM due ORDER BY place LIMIT $4
    )
    SELECT array_agg(dealt.tenant_id ORDER BY dealt.place), array_agg(dealt.id ORDER BY dealt.place) FROM dealt
  $q$, source, open_rows, due_column, waiting)
  INTO picked_tenants, picked_ids
  USING due_before, each_tenant, start_after, most;
  IF coalesce(cardinality(picked_ids), 0) >= most THEN
    INSERT INTO sweep_cursors AS c (sweep, after_tenant, updated_at) VALUES (which, picked_tenants[cardinality(picked_tenants)], now())
    ON CONFLICT (sweep) DO UPDATE SET after_tenant = excluded.after_tenant, updated_at = excluded.updated_at;
  ELSIF start_after <> 0 THEN
    UPDATE sweep_cursors c SET after_tenant = 0, updated_at = now() WHERE c.sweep = which;
  END IF;
  RETURN QUERY SELECT u.tenant_id, u.id FROM unnest(picked_tenants, picked_ids) AS u(tenant_id, id);
END
$fn$;--> statement-breakpoint
REVOKE ALL ON FUNCTION sweep_due(text, integer, integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION sweep_due(text, integer, integer, timestamptz) TO sucursal_app;--> statement-breakpoint
DROP FUNCTION outbox_due_messages(integer, timestamptz);--> statement-breakpoint
DROP FUNCTION webhook_due_deliveries(integer, timestamptz);--> statement-breakpoint
DROP FUNCTION ecf_due_documents(integer, timestamptz);--> statement-breakpoint
DROP FUNCTION ecf_due_approvals(integer, timestamptz);--> statement-breakpoint
DROP FUNCTION ecf_due_deliveries(integer, timestamptz);--> statement-breakpoint
DROP FUNCTION ecf_due_certification_runs(integer, timestamptz);--> statement-breakpoint
-- The minute's fold of the invoice count deltas (0012) reads only the keys with a delta not folded
-- yet (the partial index invoice_status_counts_unfolded_idx), at most 5,000 keys a minute, instead of
-- grouping every key of every tenant; the sum it writes is marked folded.
CREATE OR REPLACE FUNCTION compact_invoice_status_counts() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public
AS $fn$
  WITH busy AS (
    SELECT DISTINCT u.tenant_id, u.workspace_id, u.status FROM invoice_status_counts u WHERE NOT u.folded LIMIT 5000
  ), moved AS (
    DELETE FROM invoice_status_counts c USING busy b
    WHERE c.tenant_id = b.tenant_id AND c.workspace_id = b.workspace_id AND c.status = b.status
    RETURNING c.tenant_id, c.workspace_id, c.status, c.delta
  ), folded AS (
    INSERT INTO invoice_status_counts (tenant_id, workspace_id, status, delta, folded)
    SELECT m.tenant_id, m.workspace_id, m.status, sum(m.delta), true FROM moved m GROUP BY 1, 2, 3 HAVING sum(m.delta) <> 0
    RETURNING 1
  )
  SELECT count(*)::integer FROM moved;
$fn$;

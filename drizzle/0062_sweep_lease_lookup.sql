-- sweep_due (0061) with the leased rows read once per sweep: a hashed set that each candidate row
-- is looked up in, instead of a lookup of sweep_leases per candidate row. The planner took that
-- lookup as a nested loop over the sweep's leases (a small table, often not analyzed yet): a
-- backlog's 20,000 due e-CF against its 300 leased ones was 6 million comparisons a minute
-- (npm run bench:scale, 1,000 tenants: the minute cron read 6,068,578 rows). Now each candidate
-- costs a hash probe, and the leases one index scan (sweep_leases_pkey, on sweep) per sweep.
CREATE OR REPLACE FUNCTION sweep_due(
  which text, max_rows integer, per_tenant integer, due_before timestamptz,
  at timestamptz, lease_until timestamptz, spent_tenants integer[] DEFAULT '{}', spent_rows integer[] DEFAULT '{}'
)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public
AS $fn$
DECLARE
  source text;
  open_rows text;
  due_column text;
  waiting text := $$EXISTS (SELECT 1 FROM ecf_dgii_backoff b WHERE b.tenant_id = t.tenant_id AND b.until > $5)$$;
  start_after integer;
  picked_tenants integer[];
  picked_ids integer[];
  most integer := least(greatest(max_rows, 1), 1000);
  each_tenant integer := least(greatest(per_tenant, 1), 1000);
BEGIN
  CASE which
    WHEN 'ecf' THEN
      source := 'ecf_documents'; open_rows := $$r.status IN ('pending', 'in_process')$$; due_column := 'next_attempt_at';
    WHEN 'ecf_deliveries' THEN
      source := 'ecf_documents'; open_rows := $$r.delivery_status = 'pending'$$; due_column := 'delivery_next_attempt_at';
    WHEN 'ecf_approvals' THEN
      source := 'ecf_approvals'; open_rows := $$(r.dgii_status = 'pending' OR r.issuer_status = 'pending')$$; due_column := 'next_attempt_at';
    WHEN 'ecf_certification_runs' THEN
      source := 'ecf_certification_runs'; open_rows := $$r.state = 'running'$$; due_column := 'next_attempt_at';
    WHEN 'outbox' THEN
      source := 'outbox_messages'; open_rows := $$r.status = 'pending'$$; due_column := 'next_attempt_at'; waiting := 'false';
    WHEN 'webhooks' THEN
      source := 'webhook_deliveries'; open_rows := $$r.status = 'pending'$$; due_column := 'next_attempt_at'; waiting := 'false';
    ELSE
      RAISE EXCEPTION 'sweep_due: unknown sweep %', which;
  END CASE;
  -- Leases past their end: their messages were lost (or their rows closed another way).
  DELETE FROM sweep_leases l WHERE l.sweep = which AND l.until <= at;
  SELECT c.after_tenant INTO start_after FROM sweep_cursors c WHERE c.sweep = which;
  start_after := coalesce(start_after, 0);
  EXECUTE format($q$
    WITH RECURSIVE leased AS MATERIALIZED (
      SELECT l.row_id FROM sweep_leases l WHERE l.sweep = %5$L AND l.until > $5
    ), tenants AS (
      (SELECT r.tenant_id FROM %1$I r WHERE %2$s ORDER BY r.tenant_id LIMIT 1)
      UNION ALL
      SELECT (SELECT r.tenant_id FROM %1$I r WHERE %2$s AND r.tenant_id > t.tenant_id ORDER BY r.tenant_id LIMIT 1)
      FROM tenants t WHERE t.tenant_id IS NOT NULL
    ), serving AS (
      SELECT t.tenant_id, greatest($2 - coalesce(sp.n, 0), 0) AS share
      FROM tenants t LEFT JOIN unnest($6::integer[], $7::integer[]) AS sp(tenant_id, n) ON sp.tenant_id = t.tenant_id
      WHERE t.tenant_id IS NOT NULL AND NOT (%4$s)
    ), due AS (
      SELECT s.tenant_id, d.id, row_number() OVER (PARTITION BY s.tenant_id ORDER BY d.due_at, d.id) AS turn, s.tenant_id <= $3 AS wrapped
      FROM serving s
      CROSS JOIN LATERAL (
        SELECT r.id, r.%3$I AS due_at FROM %1$I r
        WHERE r.tenant_id = s.tenant_id AND %2$s AND r.%3$I <= $1
          AND r.id NOT IN (SELECT leased.row_id FROM leased)
        ORDER BY r.%3$I, r.id LIMIT s.share
      ) d
    ), dealt AS (
      SELECT due.tenant_id, due.id, row_number() OVER (ORDER BY due.turn, due.wrapped, due.tenant_id) AS place
      FROM due ORDER BY place LIMIT $4
    )
    SELECT array_agg(dealt.tenant_id ORDER BY dealt.place), array_agg(dealt.id ORDER BY dealt.place) FROM dealt
  $q$, source, open_rows, due_column, waiting, which)
  INTO picked_tenants, picked_ids
  USING due_before, each_tenant, start_after, most, at, coalesce(spent_tenants, '{}'), coalesce(spent_rows, '{}');
  IF coalesce(cardinality(picked_ids), 0) >= most THEN
    INSERT INTO sweep_cursors AS c (sweep, after_tenant, updated_at) VALUES (which, picked_tenants[cardinality(picked_tenants)], now())
    ON CONFLICT (sweep) DO UPDATE SET after_tenant = excluded.after_tenant, updated_at = excluded.updated_at;
  ELSIF start_after <> 0 THEN
    UPDATE sweep_cursors c SET after_tenant = 0, updated_at = now() WHERE c.sweep = which;
  END IF;
  IF lease_until IS NOT NULL AND picked_ids IS NOT NULL THEN
    INSERT INTO sweep_leases AS l (sweep, row_id, tenant_id, until)
    SELECT which, u.id, u.tenant_id, lease_until FROM unnest(picked_tenants, picked_ids) AS u(tenant_id, id)
    ON CONFLICT (sweep, row_id) DO UPDATE SET until = excluded.until;
  END IF;
  RETURN QUERY SELECT u.tenant_id, u.id FROM unnest(picked_tenants, picked_ids) AS u(tenant_id, id);
END
$fn$;

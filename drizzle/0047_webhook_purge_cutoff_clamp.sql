-- webhook_purge_events (0040) is SECURITY DEFINER and took its cutoff on trust: a caller holding
-- the application role could pass now() and delete every tenant's events, ignoring the 30 days
-- that GET /events and resend promise (docs/webhooks.md). The cutoff is now clamped inside the
-- function to the retention: never later than 31 days ago (30 days shown, a day's margin for a
-- resend at the edge, as EVENT_PURGE_AFTER_MS in src/jobs/webhooks.ts). An older cutoff passes.
CREATE OR REPLACE FUNCTION webhook_purge_events(created_before timestamptz, max_rows integer)
RETURNS integer
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public
AS $$
  WITH doomed AS (
    SELECT e.id FROM webhook_events e
    WHERE e.created_at < least(created_before, now() - interval '31 days')
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
    ORDER BY e.created_at
    LIMIT least(greatest(max_rows, 1), 5000)
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_events e USING doomed WHERE e.id = doomed.id RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;

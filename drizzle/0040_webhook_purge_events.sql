-- Events are kept 30 days (GET /events, resend; docs/webhooks.md). The minute sweep
-- (src/jobs/webhooks.ts purgeWebhookEvents) deletes older ones across tenants, as
-- webhook_due_deliveries (0031) finds due deliveries: SECURITY DEFINER, bounded per call. An event
-- with a delivery still pending (a late resend) waits until that delivery ends; its deliveries and
-- their attempts go with it (ON DELETE CASCADE).
CREATE OR REPLACE FUNCTION webhook_purge_events(created_before timestamptz, max_rows integer)
RETURNS integer
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public
AS $$
  WITH doomed AS (
    SELECT e.id FROM webhook_events e
    WHERE e.created_at < created_before
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
    ORDER BY e.created_at
    LIMIT least(greatest(max_rows, 1), 5000)
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_events e USING doomed WHERE e.id = doomed.id RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION webhook_purge_events(timestamptz, integer) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION webhook_purge_events(timestamptz, integer) TO sucursal_app;

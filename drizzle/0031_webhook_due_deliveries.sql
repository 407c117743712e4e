-- The minute sweep (src/jobs/webhooks.ts sweepWebhooks) finds due deliveries across tenants, as
-- outbox_due_messages (0008) does for the outbox: SECURITY DEFINER, ids only.
CREATE OR REPLACE FUNCTION webhook_due_deliveries(max_rows integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT d.tenant_id, d.id FROM webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at <= due_before
  ORDER BY d.next_attempt_at, d.id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION webhook_due_deliveries(integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION webhook_due_deliveries(integer, timestamptz) TO sucursal_app;

ALTER TABLE "ecf_annulments" ADD COLUMN "not_annulled" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "transition" jsonb;--> statement-breakpoint
ALTER TABLE "ecf_transitions" ADD COLUMN "code" text;--> statement-breakpoint
ALTER TABLE "ecf_transitions" ADD COLUMN "attempt" integer;--> statement-breakpoint
ALTER TABLE "ecf_transitions" ADD COLUMN "track_id" text;--> statement-breakpoint
ALTER TABLE "ecf_transitions" ADD COLUMN "user_id" integer;--> statement-breakpoint
ALTER TABLE "invoice_notes" ADD COLUMN "replaced_ncf" text;--> statement-breakpoint
ALTER TABLE "invoice_notes" ADD COLUMN "replaced_ncf_date" date;--> statement-breakpoint
CREATE UNIQUE INDEX "invoice_notes_tenant_replaced_ncf_key" ON "invoice_notes" USING btree ("tenant_id","replaced_ncf");--> statement-breakpoint
-- Every entry says why (issue 43): the statement that changes an e-CF writes the entries it adds as
-- `transition` ([{state, code, cause, attempt, track_id, user_id}], in order), and this trigger turns
-- them into rows, in the same statement. A status change whose statement wrote none (or left the
-- previous value) still gets its entry, with the cause 0046 gave it. A new `transition` without a
-- status change is a course entry (held, unanswered, used_number…): what DGII said or did that
-- changed what happens next.
CREATE OR REPLACE FUNCTION ecf_record_transition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_state text;
  reason text;
  entry jsonb;
  given jsonb := '[]'::jsonb;
  has_state boolean := false;
  at_time timestamptz := CASE WHEN TG_OP = 'INSERT' THEN NEW.signed_at ELSE NEW.updated_at END;
BEGIN
  IF jsonb_typeof(NEW.transition) = 'array' AND (TG_OP = 'INSERT' OR NEW.transition IS DISTINCT FROM OLD.transition) THEN
    given := NEW.transition;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status AND jsonb_array_length(given) = 0 THEN
    RETURN NEW;
  END IF;
  next_state := CASE
    WHEN TG_OP = 'INSERT' THEN 'signed'
    WHEN NEW.status IS NOT DISTINCT FROM OLD.status THEN NULL
    WHEN NEW.status = 'pending' THEN 'retried'
    WHEN NEW.status = 'in_process' THEN 'sent'
    ELSE NEW.status
  END;
  FOR entry IN SELECT value FROM jsonb_array_elements(given) LOOP
    IF entry ->> 'state' = next_state THEN has_state := true; END IF;
    INSERT INTO ecf_transitions (tenant_id, ecf_document_id, state, code, cause, attempt, track_id, user_id, at)
    VALUES (NEW.tenant_id, NEW.id, entry ->> 'state', entry ->> 'code', left(entry ->> 'cause', 2000), (entry ->> 'attempt')::integer,
      entry ->> 'track_id', (entry ->> 'user_id')::integer, at_time);
  END LOOP;
  IF next_state IS NULL OR has_state THEN
    RETURN NEW;
  END IF;
  reason := CASE
    WHEN NEW.status IN ('rejected', 'accepted_conditional') THEN coalesce(
      nullif((SELECT string_agg(m ->> 'valor', ' | ') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW.dgii_messages) = 'array' THEN NEW.dgii_messages ELSE '[]'::jsonb END) AS m), ''),
      NEW.last_error)
    WHEN NEW.status = 'failed' THEN NEW.last_error
    ELSE NULL
  END;
  INSERT INTO ecf_transitions (tenant_id, ecf_document_id, state, cause, at)
  VALUES (NEW.tenant_id, NEW.id, next_state, left(reason, 2000), at_time);
  RETURN NEW;
END
$$;--> statement-breakpoint
DROP TRIGGER ecf_documents_transition ON ecf_documents;--> statement-breakpoint
CREATE TRIGGER ecf_documents_transition AFTER INSERT OR UPDATE OF status, transition ON ecf_documents FOR EACH ROW EXECUTE FUNCTION ecf_record_transition();--> statement-breakpoint
-- DGII's status service closing total contingencies (drizzle/0053) now also answers which e-CF it
-- released, so the status sweep puts them on the queue at once instead of leaving them to the next
-- minute's e-CF sweep; each is told, in its timeline, what held it.
DROP FUNCTION close_total_ecf_contingencies(text, timestamptz);--> statement-breakpoint
CREATE FUNCTION close_total_ecf_contingencies(dgii_environment text, closed timestamptz)
RETURNS TABLE (closed_count integer, released_tenant_id integer, released_ecf_id integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public
AS $$
BEGIN
  RETURN QUERY
  WITH closed_rows AS (
    UPDATE ecf_contingencies c SET closed_at = closed, closed_how = 'dgii'
    WHERE c.closed_at IS NULL AND c.workspace_ids IS NULL
      AND EXISTS (SELECT 1 FROM ecf_settings s WHERE s.tenant_id = c.tenant_id AND s.environment = dgii_environment)
    RETURNING c.tenant_id
  ), released AS (
    UPDATE ecf_documents d SET next_attempt_at = closed
    WHERE d.tenant_id IN (SELECT r.tenant_id FROM closed_rows r) AND d.status IN ('pending', 'in_process') AND d.next_attempt_at > closed
      AND NOT EXISTS (SELECT 1 FROM ecf_contingencies o
        WHERE o.tenant_id = d.tenant_id AND o.closed_at IS NULL AND o.workspace_ids IS NOT NULL AND d.workspace_id = ANY (o.workspace_ids))
    RETURNING d.tenant_id, d.id
  )
  SELECT (SELECT count(*) FROM closed_rows)::integer, released.tenant_id, released.id FROM released
  UNION ALL
  -- Contingencies closed with nothing held still count.
  SELECT (SELECT count(*) FROM closed_rows)::integer, NULL::integer, NULL::integer WHERE NOT EXISTS (SELECT 1 FROM released);
END;
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION close_total_ecf_contingencies(text, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION close_total_ecf_contingencies(text, timestamptz) TO sucursal_app;

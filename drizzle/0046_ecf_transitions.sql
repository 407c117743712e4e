CREATE TABLE "ecf_transitions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_transitions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"ecf_document_id" integer NOT NULL,
	"state" text NOT NULL,
	"cause" text,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ecf_transitions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_transitions" ADD CONSTRAINT "ecf_transitions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_transitions" ADD CONSTRAINT "ecf_transitions_ecf_document_id_ecf_documents_id_fk" FOREIGN KEY ("ecf_document_id") REFERENCES "public"."ecf_documents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ecf_transitions_document_idx" ON "ecf_transitions" USING btree ("ecf_document_id","id");--> statement-breakpoint
CREATE POLICY "ecf_transitions_tenant_isolation" ON "ecf_transitions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- Every INSERT of an e-CF and every change of its status leaves a transition (issue 33), whichever
-- statement made it: `signed` at signed_at, then `sent` (in_process), `retried` (back to pending),
-- or the status itself at the row's updated_at (the time the change was made, as the code saw it).
CREATE FUNCTION ecf_record_transition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_state text;
  reason text;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
    RETURN NEW;
  END IF;
  next_state := CASE
    WHEN TG_OP = 'INSERT' THEN 'signed'
    WHEN NEW.status = 'pending' THEN 'retried'
    WHEN NEW.status = 'in_process' THEN 'sent'
    ELSE NEW.status
  END;
  reason := CASE
    WHEN NEW.status IN ('rejected', 'accepted_conditional') THEN coalesce(
      nullif((SELECT string_agg(m ->> 'valor', ' | ') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW.dgii_messages) = 'array' THEN NEW.dgii_messages ELSE '[]'::jsonb END) AS m), ''),
      NEW.last_error)
    WHEN NEW.status = 'failed' THEN NEW.last_error
    ELSE NULL
  END;
  INSERT INTO ecf_transitions (tenant_id, ecf_document_id, state, cause, at)
  VALUES (NEW.tenant_id, NEW.id, next_state, left(reason, 2000), CASE WHEN TG_OP = 'INSERT' THEN NEW.signed_at ELSE NEW.updated_at END);
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER ecf_documents_transition AFTER INSERT OR UPDATE OF status ON ecf_documents FOR EACH ROW EXECUTE FUNCTION ecf_record_transition();--> statement-breakpoint
-- The e-CF signed before: their signature, and their state now when it is not pending.
INSERT INTO ecf_transitions (tenant_id, ecf_document_id, state, cause, at)
SELECT tenant_id, id, 'signed', NULL, signed_at FROM ecf_documents
UNION ALL
SELECT tenant_id, id, CASE status WHEN 'in_process' THEN 'sent' ELSE status END, CASE WHEN status = 'failed' THEN left(last_error, 2000) END, updated_at
FROM ecf_documents WHERE status <> 'pending'
ORDER BY 5;

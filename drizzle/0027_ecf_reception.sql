CREATE TABLE "ecf_approvals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ecf_approvals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"received_ecf_id" integer NOT NULL,
	"approved" boolean NOT NULL,
	"reason" text,
	"environment" text NOT NULL,
	"xml" text NOT NULL,
	"dgii_status" text DEFAULT 'pending' NOT NULL,
	"issuer_status" text DEFAULT 'pending' NOT NULL,
	"issuer_url" text,
	"dgii_messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"unreachable_since" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ecf_approvals_dgii_status" CHECK ("ecf_approvals"."dgii_status" IN ('pending', 'delivered', 'refused', 'failed')),
	CONSTRAINT "ecf_approvals_issuer_status" CHECK ("ecf_approvals"."issuer_status" IN ('pending', 'delivered', 'refused', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "ecf_approvals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "received_ecf" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "received_ecf_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tenant_id" integer NOT NULL,
	"ecf_type" text NOT NULL,
	"encf" text NOT NULL,
	"issuer_rnc" text NOT NULL,
	"issuer_name" text NOT NULL,
	"buyer_rnc" text NOT NULL,
	"issue_date" date NOT NULL,
	"total_amount" numeric(14, 2) NOT NULL,
	"itbis_amount" numeric(14, 2),
	"security_code" text NOT NULL,
	"signer" text NOT NULL,
	"xml" text NOT NULL,
	"xml_sha256" text NOT NULL,
	"receipt_xml" text NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"purchase_id" integer,
	"commercial_status" text DEFAULT 'pending' NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "received_ecf_status" CHECK ("received_ecf"."status" IN ('received', 'purchased')),
	CONSTRAINT "received_ecf_commercial_status" CHECK ("received_ecf"."commercial_status" IN ('pending', 'approved', 'rejected'))
);
--> statement-breakpoint
ALTER TABLE "received_ecf" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "commercial_status" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "commercial_reason" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "commercial_xml" text;--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD COLUMN "commercial_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ecf_approvals" ADD CONSTRAINT "ecf_approvals_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ecf_approvals" ADD CONSTRAINT "ecf_approvals_received_ecf_id_received_ecf_id_fk" FOREIGN KEY ("received_ecf_id") REFERENCES "public"."received_ecf"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_ecf" ADD CONSTRAINT "received_ecf_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ecf_approvals_received_idx" ON "ecf_approvals" USING btree ("received_ecf_id");--> statement-breakpoint
CREATE INDEX "ecf_approvals_due_idx" ON "ecf_approvals" USING btree ("next_attempt_at") WHERE "ecf_approvals"."dgii_status" = 'pending' OR "ecf_approvals"."issuer_status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "received_ecf_encf_idx" ON "received_ecf" USING btree ("tenant_id","issuer_rnc","encf");--> statement-breakpoint
CREATE INDEX "received_ecf_list_idx" ON "received_ecf" USING btree ("tenant_id","received_at","id");--> statement-breakpoint
ALTER TABLE "ecf_documents" ADD CONSTRAINT "ecf_documents_commercial_status" CHECK ("ecf_documents"."commercial_status" IN ('approved', 'rejected'));--> statement-breakpoint
CREATE POLICY "ecf_approvals_tenant_isolation" ON "ecf_approvals" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE POLICY "received_ecf_tenant_isolation" ON "received_ecf" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
CREATE OR REPLACE FUNCTION ecf_due_approvals(max_rows integer, due_before timestamptz)
RETURNS TABLE (tenant_id integer, id integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT a.tenant_id, a.id FROM ecf_approvals a
  WHERE (a.dgii_status = 'pending' OR a.issuer_status = 'pending') AND a.next_attempt_at <= due_before
  ORDER BY a.next_attempt_at, a.id
  LIMIT least(greatest(max_rows, 1), 1000)
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION ecf_due_approvals(integer, timestamptz) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ecf_due_approvals(integer, timestamptz) TO sucursal_app;

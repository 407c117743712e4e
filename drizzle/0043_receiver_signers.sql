CREATE TABLE "receiver_seed_uses" (
	"tenant_id" integer NOT NULL,
	"seed_digest" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "receiver_seed_uses_tenant_id_seed_digest_pk" PRIMARY KEY("tenant_id","seed_digest")
);
--> statement-breakpoint
ALTER TABLE "receiver_seed_uses" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "received_ecf_encf_idx";--> statement-breakpoint
ALTER TABLE "received_ecf" ADD COLUMN "authenticated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "received_ecf" ADD COLUMN "signer_fingerprint" text;--> statement-breakpoint
ALTER TABLE "receiver_seed_uses" ADD CONSTRAINT "receiver_seed_uses_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "received_ecf_authenticated_encf_idx" ON "received_ecf" USING btree ("tenant_id","issuer_rnc","encf") WHERE "received_ecf"."authenticated";--> statement-breakpoint
CREATE INDEX "received_ecf_encf_idx" ON "received_ecf" USING btree ("tenant_id","issuer_rnc","encf");--> statement-breakpoint
CREATE POLICY "receiver_seed_uses_tenant_isolation" ON "receiver_seed_uses" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);
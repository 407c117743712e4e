CREATE TABLE "company_profiles" (
	"tenant_id" integer PRIMARY KEY NOT NULL,
	"rnc" text,
	"legal_name" text,
	"trade_name" text,
	"address" text,
	"municipality_code" text,
	"province_code" text,
	"phone" text,
	"email" text,
	"website" text,
	"economic_activity" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_profiles" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "address" text;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "document_subtypes" ADD COLUMN "authorization_number" text;--> statement-breakpoint
ALTER TABLE "document_subtypes" ADD COLUMN "authorized_at" date;--> statement-breakpoint
ALTER TABLE "document_subtypes" ADD COLUMN "is_demo" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "company_profiles" ADD CONSTRAINT "company_profiles_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "company_profiles_tenant_isolation" ON "company_profiles" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id')::integer) WITH CHECK (tenant_id = current_setting('app.tenant_id')::integer);--> statement-breakpoint
-- Ranges of one NCF prefix never overlap within a tenant: DGII authorizes each number once
-- (Norma 06-2018, art. 4), so two subtypes handing out the same B0100000001 would duplicate a
-- fiscal document. An exclusion constraint holds under concurrent writes where a read-then-insert
-- check would not; btree_gist (a trusted extension, created by the owner) lets it mix = on
-- tenant_id/prefix with && on the range. Quotation prefixes (free, non-fiscal) are left out.
-- It fails on a database already holding overlapping NCF ranges: fix those rows first (docs/fiscal.md).
CREATE EXTENSION IF NOT EXISTS btree_gist;--> statement-breakpoint
ALTER TABLE "document_subtypes" ADD CONSTRAINT "document_subtypes_ncf_range_excl" EXCLUDE USING gist (
  "tenant_id" WITH =, "prefix" WITH =, int8range("start_number", "end_number", '[]') WITH &&
) WHERE ("type" <> 'quotation');
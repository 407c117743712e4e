CREATE TABLE "rnc_records" (
	"run_id" integer NOT NULL,
	"identification" text NOT NULL,
	"name" text NOT NULL,
	"comercial_name" text NOT NULL,
	"status" text NOT NULL,
	"search" text NOT NULL,
	CONSTRAINT "rnc_records_pkey" PRIMARY KEY("run_id","identification")
);
--> statement-breakpoint
CREATE TABLE "rnc_sync_batches" (
	"run_id" integer NOT NULL,
	"seq" integer NOT NULL,
	"records" integer NOT NULL,
	CONSTRAINT "rnc_sync_batches_pkey" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "rnc_sync_runs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "rnc_sync_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"parsed_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"lines_read" integer DEFAULT 0 NOT NULL,
	"lines_rejected" integer DEFAULT 0 NOT NULL,
	"rejections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"records_written" integer DEFAULT 0 NOT NULL,
	"batches_expected" integer,
	"batches_done" integer DEFAULT 0 NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE INDEX "rnc_sync_runs_status_idx" ON "rnc_sync_runs" USING btree ("status","id");
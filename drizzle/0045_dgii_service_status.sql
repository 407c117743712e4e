CREATE TABLE "dgii_maintenance_windows" (
	"environment" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "dgii_maintenance_windows_environment_starts_at_pk" PRIMARY KEY("environment","starts_at")
);
--> statement-breakpoint
CREATE TABLE "dgii_service_status" (
	"environment" text NOT NULL,
	"service" text NOT NULL,
	"available" boolean NOT NULL,
	"status" text NOT NULL,
	"down_since" timestamp with time zone,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "dgii_service_status_environment_service_pk" PRIMARY KEY("environment","service")
);
--> statement-breakpoint
CREATE INDEX "dgii_maintenance_windows_end_idx" ON "dgii_maintenance_windows" USING btree ("ends_at");
ALTER TABLE "access_tokens" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "invitations" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_members" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Existing rows: last known change is their creation (or their addition, for members).
UPDATE "access_tokens" SET "updated_at" = coalesce("revoked_at", "created_at");--> statement-breakpoint
UPDATE "invitations" SET "updated_at" = coalesce("accepted_at", "revoked_at", "created_at");--> statement-breakpoint
UPDATE "workspace_members" SET "updated_at" = "added_at";--> statement-breakpoint
UPDATE "webhook_deliveries" SET "updated_at" = coalesce("delivered_at", "created_at");

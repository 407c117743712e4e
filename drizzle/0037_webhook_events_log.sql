DROP INDEX "webhook_deliveries_endpoint_event_key";--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "resource_type" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "resource_id" integer;--> statement-breakpoint
CREATE INDEX "webhook_events_resource_idx" ON "webhook_events" USING btree ("tenant_id","resource_type","resource_id");
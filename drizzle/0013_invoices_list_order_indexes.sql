DROP INDEX "invoices_live_workspace_issue_date_idx";--> statement-breakpoint
DROP INDEX "invoices_live_workspace_status_idx";--> statement-breakpoint
CREATE INDEX "invoices_live_workspace_issue_date_id_idx" ON "invoices" USING btree ("workspace_id","issue_date","id") WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX "invoices_live_workspace_status_id_idx" ON "invoices" USING btree ("workspace_id","status","issue_date","id") WHERE deleted_at IS NULL;
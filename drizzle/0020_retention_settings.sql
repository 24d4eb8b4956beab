ALTER TABLE "tenants" ADD COLUMN "context_log_retention_days" integer;--> statement-breakpoint
CREATE INDEX "context_log_created_idx" ON "context_log" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "context_log_parts_idx" ON "context_log" USING gin ("payload_parts");
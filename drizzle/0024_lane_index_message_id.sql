-- message_id after ts: a lane read in (ts, message_id) order stops at its limit on the index (retrieval's neighbours).
DROP INDEX "channel_messages_lane_idx";--> statement-breakpoint
CREATE INDEX "channel_messages_lane_idx" ON "channel_messages" USING btree ("tenant_id","lane_key","ts","message_id");
CREATE TABLE "agent_sections" (
	"tenant_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"content" text NOT NULL,
	"cacheable" boolean DEFAULT true NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"sha256" text NOT NULL,
	"token_estimate" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_sections_tenant_id_agent_id_name_pk" PRIMARY KEY("tenant_id","agent_id","name")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"tenant_id" text NOT NULL,
	"id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "attachment_manifest" (
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"artifact_id" uuid NOT NULL,
	"display_name" text,
	"media_type" text,
	"content_hash" text NOT NULL,
	"source_message_id" text,
	"source_thread_id" text,
	"included_at_turn" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachment_manifest_tenant_id_session_id_artifact_id_pk" PRIMARY KEY("tenant_id","session_id","artifact_id")
);
--> statement-breakpoint
CREATE TABLE "blobs" (
	"tenant_id" text NOT NULL,
	"artifact_id" uuid NOT NULL,
	"sha256" text NOT NULL,
	"media_type" text NOT NULL,
	"filename" text,
	"byte_length" integer NOT NULL,
	"kind" text NOT NULL,
	"content" "bytea" NOT NULL,
	"session_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "blobs_tenant_id_artifact_id_pk" PRIMARY KEY("tenant_id","artifact_id")
);
--> statement-breakpoint
CREATE TABLE "channel_messages" (
	"tenant_id" text NOT NULL,
	"platform" text NOT NULL,
	"channel_id" text NOT NULL,
	"message_id" text NOT NULL,
	"thread_id" text,
	"reply_to_id" text,
	"topic_id" text,
	"lane_key" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"author_id" text,
	"author_name" text,
	"author_is_bot" boolean DEFAULT false NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce("text", ''))) STORED,
	"reactions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"media" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reply_count" integer DEFAULT 0 NOT NULL,
	"last_reply_ts" timestamp with time zone,
	"edited_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"is_placeholder" boolean DEFAULT false NOT NULL,
	"token_estimate" integer DEFAULT 0 NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "channel_messages_tenant_id_platform_channel_id_message_id_pk" PRIMARY KEY("tenant_id","platform","channel_id","message_id")
);
--> statement-breakpoint
CREATE TABLE "channels" (
	"tenant_id" text NOT NULL,
	"platform" text NOT NULL,
	"channel_id" text NOT NULL,
	"name" text,
	"kind" text,
	"first_ts" timestamp with time zone,
	"last_ts" timestamp with time zone,
	CONSTRAINT "channels_tenant_id_platform_channel_id_pk" PRIMARY KEY("tenant_id","platform","channel_id")
);
--> statement-breakpoint
CREATE TABLE "context_log" (
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"turn_seq" integer NOT NULL,
	"lane_key" text NOT NULL,
	"lane_version" integer NOT NULL,
	"payload_sha256" text NOT NULL,
	"budget" jsonb NOT NULL,
	"model" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "context_log_tenant_id_session_id_turn_seq_pk" PRIMARY KEY("tenant_id","session_id","turn_seq")
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"tenant_id" text NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status_code" integer NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_records_tenant_id_scope_key_pk" PRIMARY KEY("tenant_id","scope","key")
);
--> statement-breakpoint
CREATE TABLE "ingest_events" (
	"tenant_id" text NOT NULL,
	"source" text NOT NULL,
	"event_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ingest_events_tenant_id_source_event_id_pk" PRIMARY KEY("tenant_id","source","event_id")
);
--> statement-breakpoint
CREATE TABLE "lane_states" (
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"lane_key" text NOT NULL,
	"summary" text,
	"summary_version" integer DEFAULT 0 NOT NULL,
	"summary_updated_at" timestamp with time zone,
	"summary_stale" boolean DEFAULT false NOT NULL,
	"first_kept_seq" integer DEFAULT 0 NOT NULL,
	"cleared_before_seq" integer DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"context_attached_version" integer DEFAULT -1 NOT NULL,
	"pending_slot" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lane_states_tenant_id_session_id_lane_key_pk" PRIMARY KEY("tenant_id","session_id","lane_key")
);
--> statement-breakpoint
CREATE TABLE "lock_fences" (
	"resource" text PRIMARY KEY NOT NULL,
	"fence" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"tenant_id" text NOT NULL,
	"id" uuid NOT NULL,
	"scope" text NOT NULL,
	"scope_key" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"text" text NOT NULL,
	"text_key" text NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	CONSTRAINT "memories_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"tenant_id" text NOT NULL,
	"id" uuid NOT NULL,
	"session_key" text NOT NULL,
	"agent_id" text,
	"platform" text,
	"channel_id" text,
	"user_id" text,
	"chat_type" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_turn_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"turn_count" integer DEFAULT 0 NOT NULL,
	"compaction_count" integer DEFAULT 0 NOT NULL,
	"total_tokens" bigint DEFAULT 0 NOT NULL,
	"next_seq" integer DEFAULT 1 NOT NULL,
	"reset_from" uuid,
	"calibration" jsonb DEFAULT '{"models":{}}'::jsonb NOT NULL,
	"turn_state" jsonb DEFAULT '{"last_role":null,"last_lane_key":null,"pending_tool_uses":{}}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "sessions_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "tenant_secrets" (
	"tenant_id" text NOT NULL,
	"platform" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_secrets_tenant_id_platform_pk" PRIMARY KEY("tenant_id","platform")
);
--> statement-breakpoint
CREATE TABLE "tenant_usage" (
	"tenant_id" text NOT NULL,
	"period" text NOT NULL,
	"summary_input_tokens" bigint DEFAULT 0 NOT NULL,
	"summary_output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "tenant_usage_tenant_id_period_pk" PRIMARY KEY("tenant_id","period")
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"retention_days" integer,
	"summary_token_cap" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transcript_chunks" (
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"first_seq" integer NOT NULL,
	"last_seq" integer NOT NULL,
	"lane_key" text NOT NULL,
	"session_key" text NOT NULL,
	"text" text NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED,
	"start_ts" timestamp with time zone,
	"end_ts" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transcript_chunks_tenant_id_session_id_first_seq_pk" PRIMARY KEY("tenant_id","session_id","first_seq")
);
--> statement-breakpoint
CREATE TABLE "transcript_entries" (
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"lane_key" text NOT NULL,
	"kind" text NOT NULL,
	"role" text,
	"content" jsonb NOT NULL,
	"token_estimate" integer DEFAULT 0 NOT NULL,
	"idempotency_key" text,
	"request_hash" text,
	"author" jsonb,
	"usage" jsonb,
	"model" text,
	"source" jsonb,
	"turn_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transcript_entries_tenant_id_session_id_seq_pk" PRIMARY KEY("tenant_id","session_id","seq")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_secrets" ADD CONSTRAINT "tenant_secrets_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "attachment_manifest_hash_idx" ON "attachment_manifest" USING btree ("tenant_id","session_id","content_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "blobs_sha256_uq" ON "blobs" USING btree ("tenant_id","sha256");--> statement-breakpoint
CREATE INDEX "blobs_session_idx" ON "blobs" USING btree ("tenant_id","session_id");--> statement-breakpoint
CREATE INDEX "channel_messages_ts_idx" ON "channel_messages" USING btree ("tenant_id","platform","channel_id","ts");--> statement-breakpoint
CREATE INDEX "channel_messages_thread_idx" ON "channel_messages" USING btree ("tenant_id","platform","channel_id","thread_id","ts");--> statement-breakpoint
CREATE INDEX "channel_messages_lane_idx" ON "channel_messages" USING btree ("tenant_id","lane_key","ts");--> statement-breakpoint
CREATE INDEX "channel_messages_tsv_idx" ON "channel_messages" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "ingest_events_received_idx" ON "ingest_events" USING btree ("received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "memories_text_key_uq" ON "memories" USING btree ("tenant_id","scope","scope_key","type","text_key");--> statement-breakpoint
CREATE INDEX "memories_scope_idx" ON "memories" USING btree ("tenant_id","scope","scope_key","updated_at");--> statement-breakpoint
CREATE INDEX "memories_tsv_idx" ON "memories" USING gin ("tenant_id","tsv");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_live_key_uq" ON "sessions" USING btree ("tenant_id","session_key") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "sessions_key_idx" ON "sessions" USING btree ("tenant_id","session_key","created_at");--> statement-breakpoint
CREATE INDEX "transcript_chunks_tsv_idx" ON "transcript_chunks" USING gin ("tenant_id","tsv");--> statement-breakpoint
CREATE INDEX "transcript_chunks_lane_idx" ON "transcript_chunks" USING btree ("tenant_id","lane_key");--> statement-breakpoint
CREATE UNIQUE INDEX "transcript_entries_idem_uq" ON "transcript_entries" USING btree ("tenant_id","session_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "transcript_entries_lane_idx" ON "transcript_entries" USING btree ("tenant_id","session_id","lane_key","seq");
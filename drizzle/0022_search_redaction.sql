CREATE TABLE "search_redaction" (
	"tenant_id" text NOT NULL,
	"source" text NOT NULL,
	"rules_version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_redaction_tenant_id_source_pk" PRIMARY KEY("tenant_id","source")
);
--> statement-breakpoint
ALTER TABLE "channel_messages" ADD COLUMN "search_text" text;--> statement-breakpoint
ALTER TABLE "channel_messages" DROP COLUMN "tsv";--> statement-breakpoint
ALTER TABLE "channel_messages" ADD COLUMN "tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce("search_text", "text", ''))) STORED;--> statement-breakpoint
CREATE INDEX "channel_messages_tsv_idx" ON "channel_messages" USING gin ("tsv");

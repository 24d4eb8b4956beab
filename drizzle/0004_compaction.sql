CREATE TABLE "compaction_runs" (
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"token" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	CONSTRAINT "compaction_runs_tenant_id_session_id_pk" PRIMARY KEY("tenant_id","session_id")
);
--> statement-breakpoint
ALTER TABLE "lane_states" ADD COLUMN "summarized_through_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "lane_states" ADD COLUMN "purge_texts" jsonb;
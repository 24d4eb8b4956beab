CREATE TABLE "content_erasures" (
	"tenant_id" text NOT NULL,
	"id" uuid NOT NULL,
	"target_kind" text NOT NULL,
	"target_key" text NOT NULL,
	"target" jsonb NOT NULL,
	"actor" jsonb NOT NULL,
	"touched" jsonb NOT NULL,
	"erased_at" timestamp with time zone NOT NULL,
	CONSTRAINT "content_erasures_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "lane_states" ADD COLUMN "scrub_texts" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX "content_erasures_target_uq" ON "content_erasures" USING btree ("tenant_id","target_kind","target_key");
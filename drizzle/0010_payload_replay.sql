CREATE TABLE "payload_parts" (
	"tenant_id" text NOT NULL,
	"sha256" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payload_parts_tenant_id_sha256_pk" PRIMARY KEY("tenant_id","sha256")
);
--> statement-breakpoint
ALTER TABLE "context_log" ADD COLUMN "anchor_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "context_log" ADD COLUMN "payload_layout" text;--> statement-breakpoint
ALTER TABLE "context_log" ADD COLUMN "payload_parts" text[];--> statement-breakpoint
-- Before this migration created_at held the anchor's time; the calls' own times are not known.
UPDATE "context_log" SET "anchor_at" = "created_at";

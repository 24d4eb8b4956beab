-- The context log and its payload parts partitioned by week (docs/operations.md, "Partitions"):
-- context_log by the call's created_at, payload_parts by the week of the calls that name a part (a
-- part is stored once per tenant and week), so that retention drops a week of calls and the parts
-- they name together. The weekly partitions are created ahead and dropped by the retention pass
-- (src/db/partitions.ts); the default partition takes any row no weekly partition covers, so no
-- insert fails. Existing rows move to the default partition and age out row by row. Each unique
-- key gains its partition column (kept leading with tenant_id, for Citus).
ALTER TABLE "context_log" RENAME TO "context_log_unpartitioned";--> statement-breakpoint
DROP INDEX "context_log_created_idx";--> statement-breakpoint
DROP INDEX "context_log_parts_idx";--> statement-breakpoint
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
	"anchor_at" timestamp with time zone,
	"payload_layout" text,
	"payload_parts" text[],
	"assembly" jsonb,
	CONSTRAINT "context_log_tenant_id_session_id_turn_seq_created_at_pk" PRIMARY KEY("tenant_id","session_id","turn_seq","created_at")
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
CREATE TABLE "context_log_default" PARTITION OF "context_log" DEFAULT;--> statement-breakpoint
CREATE INDEX "context_log_created_idx" ON "context_log" USING btree ("tenant_id","created_at");--> statement-breakpoint
INSERT INTO "context_log" ("tenant_id", "session_id", "turn_seq", "lane_key", "lane_version", "payload_sha256",
    "budget", "model", "created_at", "anchor_at", "payload_layout", "payload_parts", "assembly")
  SELECT "tenant_id", "session_id", "turn_seq", "lane_key", "lane_version", "payload_sha256",
    "budget", "model", "created_at", "anchor_at", "payload_layout", "payload_parts", "assembly"
  FROM "context_log_unpartitioned";--> statement-breakpoint
ALTER TABLE "payload_parts" RENAME TO "payload_parts_unpartitioned";--> statement-breakpoint
CREATE TABLE "payload_parts" (
	"tenant_id" text NOT NULL,
	"week" timestamp with time zone NOT NULL,
	"sha256" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payload_parts_tenant_id_week_sha256_pk" PRIMARY KEY("tenant_id","week","sha256")
) PARTITION BY RANGE ("week");--> statement-breakpoint
CREATE TABLE "payload_parts_default" PARTITION OF "payload_parts" DEFAULT;--> statement-breakpoint
-- Each part once in every week (Monday 00:00 UTC) with a call that names it; parts no call names go.
INSERT INTO "payload_parts" ("tenant_id", "week", "sha256", "body", "created_at")
  SELECT p."tenant_id", n."week", p."sha256", p."body", p."created_at"
  FROM (SELECT DISTINCT "tenant_id", date_trunc('week', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS "week",
      unnest("payload_parts") AS "sha256" FROM "context_log_unpartitioned") n
  JOIN "payload_parts_unpartitioned" p ON p."tenant_id" = n."tenant_id" AND p."sha256" = n."sha256";--> statement-breakpoint
DROP TABLE "context_log_unpartitioned";--> statement-breakpoint
DROP TABLE "payload_parts_unpartitioned";

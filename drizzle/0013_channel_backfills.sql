CREATE TABLE "channel_backfills" (
	"tenant_id" text NOT NULL,
	"platform" text NOT NULL,
	"channel_id" text NOT NULL,
	"thread_id" text DEFAULT '' NOT NULL,
	"messages" integer NOT NULL,
	"calls" integer NOT NULL,
	"complete" boolean NOT NULL,
	"backfilled_at" timestamp with time zone NOT NULL,
	CONSTRAINT "channel_backfills_tenant_id_platform_channel_id_thread_id_pk" PRIMARY KEY("tenant_id","platform","channel_id","thread_id")
);

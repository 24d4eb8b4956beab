CREATE TABLE "agent_settings" (
	"tenant_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"history_turns" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_settings_tenant_id_agent_id_pk" PRIMARY KEY("tenant_id","agent_id")
);

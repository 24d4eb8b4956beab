CREATE TABLE "platform_credentials" (
	"tenant_id" text NOT NULL,
	"platform" text NOT NULL,
	"workspace_id" text,
	"token" text NOT NULL,
	"token_hint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_credentials_tenant_id_platform_pk" PRIMARY KEY("tenant_id","platform")
);
--> statement-breakpoint
CREATE TABLE "platform_users" (
	"tenant_id" text NOT NULL,
	"platform" text NOT NULL,
	"user_id" text NOT NULL,
	"display_name" text,
	"real_name" text,
	"is_bot" boolean DEFAULT false NOT NULL,
	"source" text NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "platform_users_tenant_id_platform_user_id_pk" PRIMARY KEY("tenant_id","platform","user_id")
);
--> statement-breakpoint
ALTER TABLE "platform_credentials" ADD CONSTRAINT "platform_credentials_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
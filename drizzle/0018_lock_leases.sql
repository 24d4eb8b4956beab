-- The PostgreSQL lease locks (src/coord/pg-lock.ts): one row per held (tenant, resource), no advisory
-- lock and no pinned connection, so they hold through a transaction pooler.
CREATE TABLE "lock_leases" (
	"tenant_id" text NOT NULL,
	"resource" text NOT NULL,
	"holder" text,
	"expires_at" timestamp with time zone,
	CONSTRAINT "lock_leases_tenant_id_resource_pk" PRIMARY KEY("tenant_id","resource")
);

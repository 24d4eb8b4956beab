CREATE TABLE "blob_owners" (
	"tenant_id" text NOT NULL,
	"artifact_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	CONSTRAINT "blob_owners_tenant_id_artifact_id_session_id_pk" PRIMARY KEY("tenant_id","artifact_id","session_id")
);
--> statement-breakpoint
CREATE INDEX "blob_owners_session_idx" ON "blob_owners" USING btree ("tenant_id","session_id");--> statement-breakpoint
-- Each session-scoped blob is held by the session that stored it.
INSERT INTO "blob_owners" ("tenant_id", "artifact_id", "session_id")
  SELECT "tenant_id", "artifact_id", "session_id" FROM "blobs" WHERE "session_id" IS NOT NULL
  ON CONFLICT DO NOTHING;

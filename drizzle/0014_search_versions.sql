CREATE TABLE "search_versions" (
	"tenant_id" text NOT NULL,
	"source" text NOT NULL,
	"scope_key" text NOT NULL,
	"version" bigint NOT NULL,
	CONSTRAINT "search_versions_tenant_id_source_scope_key_pk" PRIMARY KEY("tenant_id","source","scope_key")
);
--> statement-breakpoint
-- Versions come from one sequence: a scope's version never repeats, not even when its row is
-- deleted and written again, so an in-process copy of a scope's documents is valid exactly while
-- its version is unchanged (docs/memory.md "Scope cache").
CREATE SEQUENCE "search_version_seq";--> statement-breakpoint
-- One statement-level trigger function for both tables: the changed rows' scopes (the old and the
-- new ones) get a new version, in key order, in the writing transaction.
CREATE FUNCTION "search_versions_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'memories' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
        SELECT k.tenant_id, 'memories', k.scope_key, nextval('search_version_seq')
        FROM (SELECT DISTINCT n.tenant_id, n.scope || ':' || n.scope_key AS scope_key FROM new_rows n ORDER BY 1, 2) k
        ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = excluded.version;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
        SELECT k.tenant_id, 'memories', k.scope_key, nextval('search_version_seq')
        FROM (SELECT DISTINCT o.tenant_id, o.scope || ':' || o.scope_key AS scope_key FROM old_rows o ORDER BY 1, 2) k
        ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = excluded.version;
    ELSE
      INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
        SELECT k.tenant_id, 'memories', k.scope_key, nextval('search_version_seq')
        FROM (SELECT n.tenant_id, n.scope || ':' || n.scope_key AS scope_key FROM new_rows n
          UNION SELECT o.tenant_id, o.scope || ':' || o.scope_key FROM old_rows o ORDER BY 1, 2) k
        ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = excluded.version;
    END IF;
  ELSE
    IF TG_OP = 'INSERT' THEN
      INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
        SELECT k.tenant_id, 'transcript_chunks', k.session_key, nextval('search_version_seq')
        FROM (SELECT DISTINCT n.tenant_id, n.session_key FROM new_rows n ORDER BY 1, 2) k
        ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = excluded.version;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
        SELECT k.tenant_id, 'transcript_chunks', k.session_key, nextval('search_version_seq')
        FROM (SELECT DISTINCT o.tenant_id, o.session_key FROM old_rows o ORDER BY 1, 2) k
        ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = excluded.version;
    ELSE
      INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
        SELECT k.tenant_id, 'transcript_chunks', k.session_key, nextval('search_version_seq')
        FROM (SELECT n.tenant_id, n.session_key FROM new_rows n
          UNION SELECT o.tenant_id, o.session_key FROM old_rows o ORDER BY 1, 2) k
        ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = excluded.version;
    END IF;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "memories_search_version_insert" AFTER INSERT ON "memories"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_versions_bump"();--> statement-breakpoint
CREATE TRIGGER "memories_search_version_update" AFTER UPDATE ON "memories"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_versions_bump"();--> statement-breakpoint
CREATE TRIGGER "memories_search_version_delete" AFTER DELETE ON "memories"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_versions_bump"();--> statement-breakpoint
CREATE TRIGGER "transcript_chunks_search_version_insert" AFTER INSERT ON "transcript_chunks"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_versions_bump"();--> statement-breakpoint
CREATE TRIGGER "transcript_chunks_search_version_update" AFTER UPDATE ON "transcript_chunks"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_versions_bump"();--> statement-breakpoint
CREATE TRIGGER "transcript_chunks_search_version_delete" AFTER DELETE ON "transcript_chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_versions_bump"();--> statement-breakpoint
-- Scopes written before this migration: a version each (a scope without a row has no documents).
INSERT INTO "search_versions" ("tenant_id", "source", "scope_key", "version")
  SELECT k.tenant_id, 'memories', k.scope_key, nextval('search_version_seq')
  FROM (SELECT DISTINCT tenant_id, scope || ':' || scope_key AS scope_key FROM memories ORDER BY 1, 2) k;--> statement-breakpoint
INSERT INTO "search_versions" ("tenant_id", "source", "scope_key", "version")
  SELECT k.tenant_id, 'transcript_chunks', k.session_key, nextval('search_version_seq')
  FROM (SELECT DISTINCT tenant_id, session_key FROM transcript_chunks ORDER BY 1, 2) k;

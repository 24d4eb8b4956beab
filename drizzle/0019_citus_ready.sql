-- A schema distributable by tenant_id (docs/operations.md, "Citus"): row-level triggers in place of
-- statement-level ones with transition tables, and no free-standing sequence.
--
-- search_versions: a scope's version is the writing moment in µs since the epoch, or its previous
-- version + 1 when that is later, so it never repeats while the row lives, and a scope written again
-- after its row was deleted starts past every version it had (unless the database clock stepped
-- back by more than the time since). Versions stay below 2^53 (exact in JavaScript).
CREATE FUNCTION "search_version_bump"(p_tenant text, p_source text, p_key text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO search_versions AS v (tenant_id, source, scope_key, version)
    VALUES (p_tenant, p_source, p_key, (extract(epoch from clock_timestamp()) * 1000000)::bigint)
    ON CONFLICT (tenant_id, source, scope_key) DO UPDATE SET version = greatest(v.version + 1, excluded.version)
$$;--> statement-breakpoint
CREATE FUNCTION "search_versions_bump_row"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_key text;
  new_key text;
BEGIN
  IF TG_TABLE_NAME = 'memories' THEN
    IF TG_OP <> 'INSERT' THEN old_key := OLD.scope || ':' || OLD.scope_key; END IF;
    IF TG_OP <> 'DELETE' THEN new_key := NEW.scope || ':' || NEW.scope_key; END IF;
  ELSE
    IF TG_OP <> 'INSERT' THEN old_key := OLD.session_key; END IF;
    IF TG_OP <> 'DELETE' THEN new_key := NEW.session_key; END IF;
  END IF;
  IF new_key IS NOT NULL THEN PERFORM search_version_bump(NEW.tenant_id, TG_TABLE_NAME, new_key); END IF;
  IF old_key IS NOT NULL AND (new_key IS NULL OR old_key <> new_key OR OLD.tenant_id <> NEW.tenant_id) THEN
    PERFORM search_version_bump(OLD.tenant_id, TG_TABLE_NAME, old_key);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER "memories_search_version_insert" ON "memories";--> statement-breakpoint
DROP TRIGGER "memories_search_version_update" ON "memories";--> statement-breakpoint
DROP TRIGGER "memories_search_version_delete" ON "memories";--> statement-breakpoint
DROP TRIGGER "transcript_chunks_search_version_insert" ON "transcript_chunks";--> statement-breakpoint
DROP TRIGGER "transcript_chunks_search_version_update" ON "transcript_chunks";--> statement-breakpoint
DROP TRIGGER "transcript_chunks_search_version_delete" ON "transcript_chunks";--> statement-breakpoint
DROP FUNCTION "search_versions_bump"();--> statement-breakpoint
DROP SEQUENCE "search_version_seq";--> statement-breakpoint
CREATE TRIGGER "memories_search_version" AFTER INSERT OR UPDATE OR DELETE ON "memories"
  FOR EACH ROW EXECUTE FUNCTION "search_versions_bump_row"();--> statement-breakpoint
CREATE TRIGGER "transcript_chunks_search_version" AFTER INSERT OR UPDATE OR DELETE ON "transcript_chunks"
  FOR EACH ROW EXECUTE FUNCTION "search_versions_bump_row"();--> statement-breakpoint
-- sessions.entries_removed: each deleted transcript entry counts into its session's row, in the
-- deleting transaction, as before (docs/assembly.md, "Lane entries").
DROP TRIGGER "transcript_entries_removed" ON "transcript_entries";--> statement-breakpoint
DROP FUNCTION "transcript_entries_removed"();--> statement-breakpoint
CREATE FUNCTION "transcript_entry_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sessions SET entries_removed = entries_removed + 1
    WHERE tenant_id = OLD.tenant_id AND id = OLD.session_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "transcript_entry_removed" AFTER DELETE ON "transcript_entries"
  FOR EACH ROW EXECUTE FUNCTION "transcript_entry_removed"();

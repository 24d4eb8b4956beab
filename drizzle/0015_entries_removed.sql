ALTER TABLE "sessions" ADD COLUMN "entries_removed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A statement-level trigger counts each session's deleted transcript entries into its row, in the
-- deleting transaction (retention, session deletion, hand-run SQL alike), sessions in key order.
-- The context call's lane entries held in a process are whole while this count is unchanged:
-- appends take the session row's lock, so entries commit in seq order and only a delete can take
-- one away (docs/assembly.md, "Lane entries").
CREATE FUNCTION "transcript_entries_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sessions s SET entries_removed = s.entries_removed + d.n
    FROM (SELECT o.tenant_id, o.session_id, count(*) AS n FROM old_rows o GROUP BY 1, 2 ORDER BY 1, 2) d
    WHERE s.tenant_id = d.tenant_id AND s.id = d.session_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "transcript_entries_removed" AFTER DELETE ON "transcript_entries"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "transcript_entries_removed"();

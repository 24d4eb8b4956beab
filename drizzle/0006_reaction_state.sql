ALTER TABLE "channel_messages" ADD COLUMN "reaction_state" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
-- Reaction state used to live inside the caller's metadata: move it out (what a caller sent under
-- those names is sanitized when read, see reactionStateOf).
UPDATE "channel_messages" SET
  "reaction_state" = jsonb_strip_nulls(jsonb_build_object(
    'reactors', "metadata"->'reactors',
    'anonymous_reactions', "metadata"->'anonymous_reactions')),
  "metadata" = "metadata" - 'reactors' - 'anonymous_reactions'
WHERE "metadata" ?| array['reactors', 'anonymous_reactions'];

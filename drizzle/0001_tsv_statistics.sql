-- Large-scope search picks the rare lexemes of a query from the planner's statistics of the tsv
-- columns (most_common_elems). At the default target (100) they list the 1,000 most common
-- lexemes, so every lexeme in less than ~2% of a large table looks equally rare; at 1000 they
-- list 10,000 (down to ~0.5% at 1M transcript chunks) and the rarest lexemes can be told apart.
-- ANALYZE samples more rows for these columns (seconds at 1M rows).
ALTER TABLE "transcript_chunks" ALTER COLUMN "tsv" SET STATISTICS 1000;--> statement-breakpoint
ALTER TABLE "memories" ALTER COLUMN "tsv" SET STATISTICS 1000;--> statement-breakpoint
ALTER TABLE "channel_messages" ALTER COLUMN "tsv" SET STATISTICS 1000;

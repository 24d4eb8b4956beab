// Transcript turns joined into blocks of text, to find which of them may contain a needle with one
// strpos a block instead of one a turn (the ingest change hooks: lanes.markChangedMessages,
// chunks.spansForMessages).
import { sql } from 'drizzle-orm';

/**
 * Turns of one session a block joins. Bounded, because one text value holds at most 1 GB (a
 * channel's whole transcript joined could reach it); large, because the gain is in few, long
 * haystacks.
 */
export const TURN_BLOCK = 256;

/**
 * The CTE `turn_blocks` (platform, channel_id, session_id, block, body) over a CTE `turns` with
 * those columns, seq and body (a turn's jsonb text form). U+0001 separates the turns: jsonb's text
 * form escapes it, so no match spans two turns. A turn is in block `seq / TURN_BLOCK`.
 */
export const TURN_BLOCKS = sql.raw(`turn_blocks as materialized (
              select platform, channel_id, session_id, seq / ${TURN_BLOCK} as block, string_agg(body, chr(1)) as body
              from turns group by platform, channel_id, session_id, seq / ${TURN_BLOCK})`);

/** A join condition: turn `t` is in the block of row `f` (session_id, block). */
export const IN_BLOCK = sql.raw(`t.session_id = f.session_id and t.seq / ${TURN_BLOCK} = f.block`);

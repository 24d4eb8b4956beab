// SQL of lane state (docs/design.md §6.10), the only writer of lane_states: a lane's summary and
// kept range, the channel-context marker, the pending slot, the staleness marks of edits and
// deletes, and `version`, the fence every change that alters a lane's payload bumps and a
// compaction's commit compares and sets.
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { sharedStatement, slot } from '../../db/prepared.js';
import { IN_BLOCK, TURN_BLOCKS } from '../../db/turn-blocks.js';
import { laneStates } from '../../db/schema.js';
import type { PendingSlot } from './core/pending-slot.js';
import { scrubText } from '../../shared/scrub-texts.js';

export type LaneStateRow = typeof laneStates.$inferSelect;

/** A lane of a session: its size since the first kept entry. */
interface LaneSize {
  laneKey: string;
  /** Conversation turns (message/context_attachment) from first_kept_seq on. */
  entries: number;
  tokens: number;
  lastSeq: number;
}

interface LaneCommit {
  tenantId: string;
  sessionId: string;
  laneKey: string;
  /** The version the compaction read; the commit applies only if the lane is still at it. */
  expectedVersion: number;
  summary: string | null;
  /** Raise summary_version (a new summary: the channel context is attached again). */
  newSummary: boolean;
  summarizedThroughSeq: number;
  firstKeptSeq: number;
  clearedBeforeSeq: number;
  at: Date;
}

/** One lane's state row: the condition of a statement that reads or changes it. */
function laneStateOf(tenantId: unknown, sessionId: unknown, laneKey: unknown) {
  return and(
    eq(laneStates.tenantId, tenantId as string),
    eq(laneStates.sessionId, sessionId as string),
    eq(laneStates.laneKey, laneKey as string),
  );
}

/**
 * The lane state table and its join condition, for a statement that reads a lane's state with
 * other rows (the context call's load statement): `on` takes columns, placeholders or values.
 */
export const laneStateJoin = { table: laneStates, on: laneStateOf };

/** Deletes every lane state of a session (the session's cascade delete, inside its transaction). */
export async function deleteLaneStatesOfSession(tx: Executor, tenantId: string, sessionId: string) {
  await tx
    .delete(laneStates)
    .where(and(eq(laneStates.tenantId, tenantId), eq(laneStates.sessionId, sessionId)));
}

/**
 * markChangedMessages' statement, built once (it runs in every ingest transaction with an edit or
 * delete). The channel's turns are read once, with their text form; a needle is looked for in
 * their texts joined by blocks of a session's turns (db/turn-blocks.ts: U+0001 between turns, so
 * a match never spans two; a block, not the whole channel, because one text value holds at most
 * 1 GB), and only in a block where it is found, turn by turn.
 * Testing every needle against every turn rendered the turn's text once per needle: ~6.7 ms of
 * PostgreSQL a batch of ~6 changes in a channel whose sessions hold 1,800 turns.
 */
const markChangedStatement = sharedStatement<{
  session_id: string;
  lane_key: string;
  session_key: string;
  deleted_in_summary: boolean;
  texts: string[] | null;
}>(
  () => sql`with changed as materialized (
              select * from jsonb_to_recordset(${slot('changes')}::jsonb)
                as c("platform" text, "channelId" text, "messageId" text, "needle" text, "deletedText" text)
            ), turns as materialized (
              select e.session_id, e.lane_key, e.seq, ss.session_key, ss.platform, ss.channel_id,
                e.source->>'platform' as source_platform, e.source->>'channel_id' as source_channel,
                e.source->>'message_id' as source_message, e.content::text as body
              from sessions ss
              join transcript_entries e on e.tenant_id = ss.tenant_id and e.session_id = ss.id
                and e.kind in ('message', 'context_attachment')
              where ss.tenant_id = ${slot('tenantId')} and exists (select from changed c
                where c."platform" = ss.platform and c."channelId" = ss.channel_id)
            ), ${TURN_BLOCKS}, found as materialized (
              select c."needle", c."deletedText", b.session_id, b.block from changed c
              join turn_blocks b on b.platform = c."platform" and b.channel_id = c."channelId"
                and strpos(b.body, c."needle") > 0
            ), matches as (
              select c."deletedText", t.session_id, t.lane_key, t.seq, t.session_key from changed c
              join turns t on t.platform = c."platform" and t.channel_id = c."channelId"
                and t.source_platform = c."platform" and t.source_channel = c."channelId"
                and t.source_message = c."messageId"
              union all
              select f."deletedText", t.session_id, t.lane_key, t.seq, t.session_key from found f
              join turns t on ${IN_BLOCK}
                and strpos(t.body, f."needle") > 0
            ), hits as (
              select m.session_id, m.lane_key, min(m.session_key) as session_key,
                bool_or(s.summary is not null and m.seq <= s.summarized_through_seq) as in_summary,
                bool_or(m."deletedText" is not null and s.summary is not null
                  and m.seq <= s.summarized_through_seq) as deleted_in_summary,
                bool_or(m."deletedText" is not null) as deleted,
                coalesce(jsonb_agg(distinct m."deletedText") filter (where m."deletedText" is not null),
                  '[]'::jsonb) as texts
              from matches m
              left join lane_states s on s.tenant_id = ${slot('tenantId')} and s.session_id = m.session_id
                and s.lane_key = m.lane_key
              group by m.session_id, m.lane_key
            )
            insert into lane_states as l (tenant_id, session_id, lane_key, summary_stale, purge_texts,
              scrub_texts, version, updated_at)
            select ${slot('tenantId')}::text, h.session_id, h.lane_key, h.in_summary,
              case when h.deleted then h.texts end, case when h.deleted then h.texts end,
              1, ${slot('at')}::timestamptz
            from hits h where h.in_summary or h.deleted
            on conflict (tenant_id, session_id, lane_key) do update set
              summary_stale = l.summary_stale or excluded.summary_stale,
              purge_texts = case when excluded.purge_texts is null then l.purge_texts
                else coalesce(l.purge_texts, '[]'::jsonb) || excluded.purge_texts end,
              scrub_texts = case when excluded.scrub_texts is null then l.scrub_texts
                else (select jsonb_agg(distinct t) from jsonb_array_elements(
                  coalesce(l.scrub_texts, '[]'::jsonb) || excluded.scrub_texts) as x(t)) end,
              version = l.version + 1,
              updated_at = excluded.updated_at
            returning l.session_id::text as session_id, l.lane_key,
              (select h.session_key from hits h where h.session_id = l.session_id and h.lane_key = l.lane_key) as session_key,
              (select h.deleted_in_summary from hits h where h.session_id = l.session_id and h.lane_key = l.lane_key) as deleted_in_summary,
              (select h.texts from hits h where h.session_id = l.session_id and h.lane_key = l.lane_key) as texts`,
);

export function createLanesRepository(db: Executor) {
  /**
   * Replaces deleted or erased texts in the lane's summary by the marker (the rebuild that the
   * stale mark asks for removes what the marker cannot: names and numbers the summary indexed),
   * and removes the lane's summary memory, which that rebuild writes again.
   */
  async function scrubLaneSummary(
    lane: { tenantId: string; sessionId: string; laneKey: string; sessionKey: string },
    texts: readonly string[],
    tx: Executor,
  ): Promise<number> {
    const [state] = await tx
      .select({ summary: laneStates.summary })
      .from(laneStates)
      .where(laneStateOf(lane.tenantId, lane.sessionId, lane.laneKey));
    let n = 0;
    if (state?.summary) {
      const scrubbed = scrubText(state.summary, texts);
      if (scrubbed !== state.summary) {
        await tx
          .update(laneStates)
          .set({ summary: scrubbed })
          .where(laneStateOf(lane.tenantId, lane.sessionId, lane.laneKey));
        n += 1;
      }
    }
    const removed = await queryRows<{ n: number }>(
      tx,
      sql`delete from memories where tenant_id = ${lane.tenantId} and scope = 'session'
            and scope_key = ${lane.sessionKey} and type = 'lane_summary'
            and metadata->>'lane_key' = ${lane.laneKey}
          returning 1 as n`,
    );
    return n + removed.length;
  }

  return {
    async getLaneState(
      { tenantId, sessionId, laneKey }: { tenantId: string; sessionId: string; laneKey: string },
      tx: Executor = db,
    ): Promise<LaneStateRow | null> {
      const [row] = await tx
        .select()
        .from(laneStates)
        .where(laneStateOf(tenantId, sessionId, laneKey))
        .limit(1);
      return row ?? null;
    },

    /** The lane's state, created at version 0 when it has none (so the commit is always an update). */
    async ensureLaneState(
      {
        tenantId,
        sessionId,
        laneKey,
        at,
      }: { tenantId: string; sessionId: string; laneKey: string; at: Date },
      tx: Executor = db,
    ): Promise<LaneStateRow> {
      await tx
        .insert(laneStates)
        .values({ tenantId, sessionId, laneKey, updatedAt: at })
        .onConflictDoNothing();
      const [row] = await tx
        .select()
        .from(laneStates)
        .where(laneStateOf(tenantId, sessionId, laneKey));
      return row!;
    },

    /** Every lane of the session with its size from its first kept entry; one statement. */
    async laneSizes(
      { tenantId, sessionId, laneKeys }: { tenantId: string; sessionId: string; laneKeys?: string[] },
      tx: Executor = db,
    ): Promise<LaneSize[]> {
      const rows = await queryRows<{ lane_key: string; entries: number; tokens: number; last_seq: number }>(
        tx,
        sql`select e.lane_key, count(*)::int as entries, coalesce(sum(e.token_estimate), 0)::int as tokens,
              max(e.seq)::int as last_seq
            from transcript_entries e
            left join lane_states s on s.tenant_id = e.tenant_id and s.session_id = e.session_id
              and s.lane_key = e.lane_key
            where e.tenant_id = ${tenantId} and e.session_id = ${sessionId}
              and e.kind in ('message', 'context_attachment')
              and e.seq >= coalesce(s.first_kept_seq, 0)
              ${laneKeys ? sql`and e.lane_key in (select jsonb_array_elements_text(${JSON.stringify(laneKeys)}::jsonb))` : sql``}
            group by e.lane_key
            order by e.lane_key`,
      );
      return rows.map((r) => ({
        laneKey: r.lane_key,
        entries: Number(r.entries),
        tokens: Number(r.tokens),
        lastSeq: Number(r.last_seq),
      }));
    },

    /**
     * The lane version compare-and-set, which is the fence: rewrites the lane state only if it is
     * still at `expectedVersion`, and bumps the version. Null when another change got there first
     * (the caller commits nothing else). No lock token is checked: the lock is only a lease.
     */
    async commitLane(commit: LaneCommit, tx: Executor): Promise<LaneStateRow | null> {
      const [row] = await tx
        .update(laneStates)
        .set({
          summary: commit.summary,
          ...(commit.newSummary
            ? {
                summaryVersion: sql`${laneStates.summaryVersion} + 1`,
                summaryUpdatedAt: commit.at,
                summaryStale: false,
                purgeTexts: null,
              }
            : {}),
          summarizedThroughSeq: commit.summarizedThroughSeq,
          firstKeptSeq: commit.firstKeptSeq,
          clearedBeforeSeq: commit.clearedBeforeSeq,
          version: sql`${laneStates.version} + 1`,
          updatedAt: commit.at,
        })
        .where(
          and(
            laneStateOf(commit.tenantId, commit.sessionId, commit.laneKey),
            eq(laneStates.version, commit.expectedVersion),
          ),
        )
        .returning();
      return row ?? null;
    },

    /**
     * Records that channel context was attached for the lane's current summary version, by the
     * user turn at `seq`. Not a fenced change: it does not bump `version`, so a running
     * compaction's compare-and-set still commits (a compaction raises summary_version, which makes
     * the next turn attach again; so does truncation leaving the turn at `seq` out of a payload).
     */
    async markContextAttached(
      params: {
        tenantId: string;
        sessionId: string;
        laneKey: string;
        summaryVersion: number;
        seq: number;
        at: Date;
      },
      tx: Executor = db,
    ): Promise<void> {
      const marker = {
        contextAttachedVersion: params.summaryVersion,
        contextAttachedSeq: params.seq,
        updatedAt: params.at,
      };
      await tx
        .insert(laneStates)
        .values({
          tenantId: params.tenantId,
          sessionId: params.sessionId,
          laneKey: params.laneKey,
          ...marker,
        })
        .onConflictDoUpdate({
          target: [laneStates.tenantId, laneStates.sessionId, laneStates.laneKey],
          set: marker,
        });
    },

    /**
     * Sets the lane's pending slot (§6.10), creating the lane state when the lane has none. A
     * fenced change: it bumps `version`, like every change of what the lane's payload depends on.
     */
    async setPendingSlot(
      params: { tenantId: string; sessionId: string; laneKey: string; slot: PendingSlot; at: Date },
      tx: Executor = db,
    ): Promise<LaneStateRow> {
      const [row] = await tx
        .insert(laneStates)
        .values({
          tenantId: params.tenantId,
          sessionId: params.sessionId,
          laneKey: params.laneKey,
          pendingSlot: params.slot,
          version: 1,
          updatedAt: params.at,
        })
        .onConflictDoUpdate({
          target: [laneStates.tenantId, laneStates.sessionId, laneStates.laneKey],
          set: { pendingSlot: params.slot, version: sql`${laneStates.version} + 1`, updatedAt: params.at },
        })
        .returning();
      return row!;
    },

    /**
     * Clears the lane's pending slot (bumping `version`). With `version`, only if the lane state is
     * still at that version: a context call consumes the slot it applied, never a newer one set
     * meanwhile. False when there was nothing to clear.
     */
    async clearPendingSlot(
      params: { tenantId: string; sessionId: string; laneKey: string; at: Date; version?: number },
      tx: Executor = db,
    ): Promise<boolean> {
      const rows = await tx
        .update(laneStates)
        .set({ pendingSlot: null, version: sql`${laneStates.version} + 1`, updatedAt: params.at })
        .where(
          and(
            laneStateOf(params.tenantId, params.sessionId, params.laneKey),
            isNotNull(laneStates.pendingSlot),
            ...(params.version !== undefined ? [eq(laneStates.version, params.version)] : []),
          ),
        )
        .returning({ version: laneStates.version });
      return rows.length > 0;
    },

    /**
     * Edits and deletes of channel messages: a lane whose summary covers a turn that is (or quotes)
     * one of them becomes stale; a lane whose entries hold a deleted text (in its sent history or
     * in what its summary covers) gets it in `purge_texts`, so its next payload compacts first with
     * the text scrubbed, and in `scrub_texts`, which its chunks and every later summary scrub. A
     * summary holding a deleted text has it replaced by the marker at once, and the lane's summary
     * memory goes (the rebuild writes it again). Both bump the version, fencing out a compaction
     * that read the lane before. `needle` is a prefix of the old text long enough to be specific
     * (the snapshot quotes messages as snippets); JSON-escaped like jsonb's text form.
     */
    async markChangedMessages(
      params: {
        tenantId: string;
        changes: {
          platform: string;
          channelId: string;
          messageId: string;
          needle: string | null;
          deletedText: string | null;
        }[];
        at: Date;
      },
      tx: Executor,
    ): Promise<{ sessionId: string; laneKey: string }[]> {
      if (params.changes.length === 0) return [];
      const rows = await markChangedStatement(tx, {
        tenantId: params.tenantId,
        changes: JSON.stringify(params.changes),
        at: params.at.toISOString(),
      });
      for (const row of rows.filter((r) => r.deleted_in_summary && (r.texts?.length ?? 0) > 0)) {
        await scrubLaneSummary(
          {
            tenantId: params.tenantId,
            sessionId: row.session_id,
            laneKey: row.lane_key,
            sessionKey: row.session_key,
          },
          row.texts!,
          tx,
        );
      }
      // A summary covering a deleted message (quoting it, or saying it in other words) is rebuilt
      // now, not at the lane's next compaction: the caller queues it after the commit.
      return rows
        .filter((r) => r.deleted_in_summary)
        .map((r) => ({ sessionId: r.session_id, laneKey: r.lane_key }));
    },

    scrubLaneSummary,
  };
}

export type LanesRepository = ReturnType<typeof createLanesRepository>;

// SQL of erasure: the audit rows (content_erasures), the target's reads, and the scrub of every
// place an erased text is stored (transcript entries, payload parts, the context log's assembly,
// stored replies, lane summaries, memories, chunks are rebuilt by the chunks service).
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { contentErasures } from '../../db/schema.js';
import { ERASED_MARKER, eraseFrom } from './core/tombstone.js';

export type ErasureRow = typeof contentErasures.$inferSelect;

/** A condition: `column`'s text holds one of the forms (a jsonb array parameter). */
const holdsAny = (column: ReturnType<typeof sql>, forms: string) =>
  sql`exists (select 1 from jsonb_array_elements_text(${forms}::jsonb) as f(form) where strpos(${column}, f.form) > 0)`;

export function createErasureRepository(db: Executor) {
  return {
    async find(
      params: { tenantId: string; targetKind: string; targetKey: string },
      tx: Executor = db,
    ): Promise<ErasureRow | null> {
      const [row] = await tx
        .select()
        .from(contentErasures)
        .where(
          and(
            eq(contentErasures.tenantId, params.tenantId),
            eq(contentErasures.targetKind, params.targetKind),
            eq(contentErasures.targetKey, params.targetKey),
          ),
        );
      return row ?? null;
    },

    async insert(row: typeof contentErasures.$inferInsert, tx: Executor): Promise<ErasureRow> {
      const [inserted] = await tx.insert(contentErasures).values(row).returning();
      return inserted!;
    },

    /** The channel message's current text (locked for the erase), or null when it is not stored. */
    async channelMessage(
      p: { tenantId: string; platform: string; channelId: string; messageId: string },
      tx: Executor,
    ): Promise<{ text: string } | null> {
      const [row] = await queryRows<{ text: string }>(
        tx,
        sql`select text from channel_messages where tenant_id = ${p.tenantId} and platform = ${p.platform}
              and channel_id = ${p.channelId} and message_id = ${p.messageId} for update`,
      );
      return row ?? null;
    },

    /** Empties the message's text and media (the delete that follows sees nothing to remember). */
    async blankMessage(
      p: { tenantId: string; platform: string; channelId: string; messageId: string },
      tx: Executor,
    ): Promise<void> {
      await queryRows(
        tx,
        sql`update channel_messages set text = '', search_text = null, media = '[]'::jsonb
            where tenant_id = ${p.tenantId} and platform = ${p.platform}
              and channel_id = ${p.channelId} and message_id = ${p.messageId}`,
      );
    },

    /** Transcript entries that are this channel message (their source). */
    async sourceEntries(
      p: { tenantId: string; platform: string; channelId: string; messageId: string },
      tx: Executor,
    ): Promise<{ session_id: string; seq: number; content: unknown }[]> {
      return queryRows(
        tx,
        sql`select session_id::text as session_id, seq, content from transcript_entries
            where tenant_id = ${p.tenantId} and source->>'platform' = ${p.platform}
              and source->>'channel_id' = ${p.channelId} and source->>'message_id' = ${p.messageId}`,
      );
    },

    /** One transcript entry of a session of the tenant (null: no such session or entry). */
    async entry(
      p: { tenantId: string; sessionId: string; seq: number },
      tx: Executor,
    ): Promise<{ content: unknown; kind: string } | null> {
      const [row] = await queryRows<{ content: unknown; kind: string }>(
        tx,
        sql`select content, kind from transcript_entries
            where tenant_id = ${p.tenantId} and session_id = ${p.sessionId} and seq = ${p.seq} for update`,
      );
      return row ?? null;
    },

    async sessionExists(p: { tenantId: string; sessionId: string }, tx: Executor): Promise<boolean> {
      const rows = await queryRows(
        tx,
        sql`select 1 from sessions where tenant_id = ${p.tenantId} and id = ${p.sessionId}`,
      );
      return rows.length > 0;
    },

    /**
     * Rewrites every transcript entry of the tenant that holds one of the forms, and the listed
     * entries (`tombstones`, with the content they keep). Each touched session's entries_removed
     * moves, so a process holding its lane entries reads them again. The lanes touched.
     */
    async scrubEntries(
      p: {
        tenantId: string;
        forms: string[];
        tombstones: { sessionId: string; seq: number; content: unknown }[];
      },
      tx: Executor,
    ): Promise<{
      count: number;
      lanes: { session_id: string; session_key: string; lane_key: string; first_seq: number }[];
    }> {
      const rows =
        p.forms.length === 0
          ? []
          : await queryRows<{ session_id: string; seq: number; content: unknown }>(
              tx,
              sql`select session_id::text as session_id, seq, content from transcript_entries e
                  where tenant_id = ${p.tenantId} and ${holdsAny(sql`e.content::text`, JSON.stringify(p.forms))}`,
            );
      const changes = new Map<string, { sessionId: string; seq: number; content: unknown }>();
      for (const r of rows)
        changes.set(`${r.session_id}/${r.seq}`, {
          sessionId: r.session_id,
          seq: Number(r.seq),
          content: eraseFrom(r.content, p.forms),
        });
      for (const t of p.tombstones) changes.set(`${t.sessionId}/${t.seq}`, t);
      if (changes.size === 0) return { count: 0, lanes: [] };
      const list = [...changes.values()].map((c) => ({ s: c.sessionId, q: c.seq, c: c.content }));
      const lanes = await queryRows<{
        session_id: string;
        session_key: string;
        lane_key: string;
        first_seq: number;
      }>(
        tx,
        sql`with changed as (
              select * from jsonb_to_recordset(${JSON.stringify(list)}::jsonb) as x(s uuid, q int, c jsonb)
            ), updated as (
              update transcript_entries e set content = x.c from changed x
              where e.tenant_id = ${p.tenantId} and e.session_id = x.s and e.seq = x.q
              returning e.session_id, e.lane_key, e.seq
            ), bumped as (
              update sessions s set entries_removed = s.entries_removed + 1
              where s.tenant_id = ${p.tenantId} and s.id in (select session_id from updated)
              returning s.id, s.session_key
            )
            select u.session_id::text as session_id, b.session_key, u.lane_key, min(u.seq)::int as first_seq
            from updated u join bumped b on b.id = u.session_id
            group by u.session_id, b.session_key, u.lane_key`,
      );
      return { count: changes.size, lanes };
    },

    /**
     * Compaction records of the lanes an erase changed, appended after its first changed entry:
     * their summaries were made from what was erased (a summarizer rewords and indexes, so the
     * text is not found by search), so each keeps the marker instead. The rebuild that follows the
     * erase appends a new record.
     */
    async scrubCompactionRecords(
      p: { tenantId: string; lanes: { session_id: string; lane_key: string; first_seq: number }[] },
      tx: Executor,
    ): Promise<number> {
      if (p.lanes.length === 0) return 0;
      const rows = await queryRows(
        tx,
        sql`update transcript_entries e set content = jsonb_set(e.content, '{summary}', ${JSON.stringify(ERASED_MARKER)}::jsonb)
            from jsonb_to_recordset(${JSON.stringify(p.lanes)}::jsonb) as x(session_id uuid, lane_key text, first_seq int)
            where e.tenant_id = ${p.tenantId} and e.session_id = x.session_id and e.lane_key = x.lane_key
              and e.kind = 'compaction' and e.seq > x.first_seq
              and jsonb_typeof(e.content->'summary') = 'string' and e.content->>'summary' <> ${ERASED_MARKER}
            returning 1 as n`,
      );
      return rows.length;
    },

    /** Payload parts of the context log holding a form (each week's copy): their bodies scrubbed (hash kept). */
    async scrubPayloadParts(p: { tenantId: string; forms: string[] }, tx: Executor): Promise<number> {
      if (p.forms.length === 0) return 0;
      const rows = await queryRows<{ week: string; sha256: string; body: string }>(
        tx,
        sql`select week::text as week, sha256, body from payload_parts d
            where tenant_id = ${p.tenantId} and ${holdsAny(sql`d.body`, JSON.stringify(p.forms))}`,
      );
      for (const r of rows) {
        const body = JSON.stringify(eraseFrom(JSON.parse(r.body) as unknown, p.forms));
        await queryRows(
          tx,
          sql`update payload_parts set body = ${body} where tenant_id = ${p.tenantId}
            and week = ${r.week}::timestamptz and sha256 = ${r.sha256}`,
        );
      }
      return rows.length;
    },

    /** The context log's assembly records (retrieved items, excerpts) holding a form. */
    async scrubContextLog(p: { tenantId: string; forms: string[] }, tx: Executor): Promise<number> {
      if (p.forms.length === 0) return 0;
      const rows = await queryRows<{
        session_id: string;
        turn_seq: number;
        assembly: unknown;
        budget: unknown;
      }>(
        tx,
        sql`select session_id::text as session_id, turn_seq, assembly, budget from context_log d
            where tenant_id = ${p.tenantId}
              and (${holdsAny(sql`coalesce(d.assembly::text, '')`, JSON.stringify(p.forms))}
                or ${holdsAny(sql`d.budget::text`, JSON.stringify(p.forms))})`,
      );
      for (const r of rows) {
        await queryRows(
          tx,
          sql`update context_log set assembly = ${JSON.stringify(eraseFrom(r.assembly, p.forms))}::jsonb,
                budget = ${JSON.stringify(eraseFrom(r.budget, p.forms))}::jsonb
              where tenant_id = ${p.tenantId} and session_id = ${r.session_id} and turn_seq = ${r.turn_seq}`,
        );
      }
      return rows.length;
    },

    /** Stored Idempotency-Key replies holding a form (a context call's reply holds its payload). */
    async scrubStoredReplies(p: { tenantId: string; forms: string[] }, tx: Executor): Promise<number> {
      if (p.forms.length === 0) return 0;
      const rows = await queryRows<{ scope: string; key: string; response: unknown }>(
        tx,
        sql`select scope, key, response from idempotency_records d
            where tenant_id = ${p.tenantId} and ${holdsAny(sql`d.response::text`, JSON.stringify(p.forms))}`,
      );
      for (const r of rows) {
        await queryRows(
          tx,
          sql`update idempotency_records set response = ${JSON.stringify(eraseFrom(r.response, p.forms))}::jsonb
              where tenant_id = ${p.tenantId} and scope = ${r.scope} and key = ${r.key}`,
        );
      }
      return rows.length;
    },

    /**
     * Lane summaries holding a form: scrubbed now and marked stale (the next compaction rebuilds
     * them from the scrubbed entries), their lane_summary memories removed; the stale marks and
     * the texts of a delete that came before (purge_texts, scrub_texts) lose the erased texts.
     */
    async scrubLanes(
      p: {
        tenantId: string;
        forms: string[];
        texts: string[];
        lanes: { session_id: string; lane_key: string }[];
      },
      tx: Executor,
    ): Promise<{ session_id: string; session_key: string; lane_key: string; summary: string | null }[]> {
      const rows = await queryRows<{
        session_id: string;
        session_key: string;
        lane_key: string;
        summary: string | null;
      }>(
        tx,
        sql`select l.session_id::text as session_id, s.session_key, l.lane_key, l.summary
            from lane_states l join sessions s on s.tenant_id = l.tenant_id and s.id = l.session_id
            where l.tenant_id = ${p.tenantId} and (
              (l.summary is not null and ${holdsAny(sql`l.summary`, JSON.stringify(p.forms))})
              or (l.session_id, l.lane_key) in (select x.s, x.l from jsonb_to_recordset(${JSON.stringify(
                p.lanes.map((l) => ({ s: l.session_id, l: l.lane_key })),
              )}::jsonb) as x(s uuid, l text))
              or ${holdsAny(sql`coalesce(l.scrub_texts::text, '') || coalesce(l.purge_texts::text, '')`, JSON.stringify(p.forms))})`,
      );
      const drop = (list: string[] | null) => {
        const kept = (list ?? []).filter((t) => !p.texts.includes(t) && eraseFrom(t, p.forms) === t);
        return kept.length > 0 ? JSON.stringify(kept) : null;
      };
      for (const r of rows) {
        const [state] = await queryRows<{ purge_texts: string[] | null; scrub_texts: string[] | null }>(
          tx,
          sql`select purge_texts, scrub_texts from lane_states where tenant_id = ${p.tenantId}
                and session_id = ${r.session_id} and lane_key = ${r.lane_key}`,
        );
        const summary = r.summary === null ? null : eraseFrom(r.summary, p.forms);
        await queryRows(
          tx,
          sql`update lane_states set summary = ${summary},
                summary_stale = summary_stale or summary is not null,
                purge_texts = ${drop(state?.purge_texts ?? null)}::jsonb,
                scrub_texts = ${drop(state?.scrub_texts ?? null)}::jsonb,
                version = version + 1
              where tenant_id = ${p.tenantId} and session_id = ${r.session_id} and lane_key = ${r.lane_key}`,
        );
        await queryRows(
          tx,
          sql`delete from memories where tenant_id = ${p.tenantId} and scope = 'session'
                and scope_key = ${r.session_key} and type = 'lane_summary' and metadata->>'lane_key' = ${r.lane_key}`,
        );
      }
      return rows;
    },

    /** Memories holding a form: derived ones (summaries, thread state) removed, others scrubbed. */
    async scrubMemories(p: { tenantId: string; forms: string[] }, tx: Executor): Promise<number> {
      if (p.forms.length === 0) return 0;
      const rows = await queryRows<{ id: string; type: string; text: string }>(
        tx,
        sql`select id::text as id, type, text from memories d
            where tenant_id = ${p.tenantId} and ${holdsAny(sql`d.text`, JSON.stringify(p.forms))}`,
      );
      for (const r of rows) {
        if (['lane_summary', 'session_summary', 'thread_state'].includes(r.type))
          await queryRows(tx, sql`delete from memories where tenant_id = ${p.tenantId} and id = ${r.id}`);
        else
          await queryRows(
            tx,
            sql`update memories set text = ${eraseFrom(r.text, p.forms)} where tenant_id = ${p.tenantId} and id = ${r.id}`,
          );
      }
      return rows.length;
    },

    /** Lanes whose transcript chunks hold a form (rebuilt with the scrubbed entries). */
    async chunkLanes(
      p: { tenantId: string; forms: string[] },
      tx: Executor,
    ): Promise<{ session_id: string; session_key: string; lane_key: string }[]> {
      if (p.forms.length === 0) return [];
      return queryRows(
        tx,
        sql`select distinct session_id::text as session_id, session_key, lane_key from transcript_chunks d
            where tenant_id = ${p.tenantId} and ${holdsAny(sql`d.text`, JSON.stringify(p.forms))}`,
      );
    },
  };
}

export type ErasureRepository = ReturnType<typeof createErasureRepository>;

// Re-redaction of stored search documents (docs/memory.md "Existing data"): memories, transcript
// chunks and channel messages' search text written before the current redaction rules. Read per
// tenant in key order, a bounded page at a time; a row is written only when the rules change its
// text, and only if that text is still the one it read (a concurrent edit or erase wins). Each source's tenant watermark (search_redaction) records the rules version it is clean for.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { memoryTextKey } from '../memory/core/memories.js';
import { redactText, searchTextOf } from '../memory/core/redaction.js';

export const REDACTED_SOURCES = ['memories', 'transcript_chunks', 'channel_messages'] as const;
export type RedactedSource = (typeof REDACTED_SOURCES)[number];

/** Where a page ended: the last row's key (resume after it). */
export type PageKey = string[];

interface PageResult {
  /** Rows read (a page shorter than the batch is the last). */
  read: number;
  /** Rows whose stored text the rules changed. */
  changed: number;
  last: PageKey | null;
}

export function createSearchRedactionRepository(db: Executor) {
  /** One page of a source's rows after `after`, re-redacted; in one transaction. */
  const pages: Record<
    RedactedSource,
    (p: { tenantId: string; after: PageKey | null; batch: number }, tx: Executor) => Promise<PageResult>
  > = {
    async memories({ tenantId, after, batch }, tx) {
      const rows = await queryRows<{
        id: string;
        scope: string;
        scope_key: string;
        type: string;
        text: string;
      }>(
        tx,
        sql`select id::text as id, scope, scope_key, type, text from memories
            where tenant_id = ${tenantId} ${after ? sql`and id > ${after[0]}::uuid` : sql``}
            order by id limit ${batch}`,
      );
      let changed = 0;
      for (const r of rows) {
        const text = redactText(r.text);
        if (text === r.text) continue;
        changed += 1;
        const textKey = memoryTextKey(text);
        // The redacted text may already be a memory of the scope and type: then this row is it.
        const [twin] = await queryRows(
          tx,
          sql`select 1 from memories where tenant_id = ${tenantId} and scope = ${r.scope}
                and scope_key = ${r.scope_key} and type = ${r.type} and text_key = ${textKey} and id <> ${r.id}::uuid`,
        );
        await queryRows(
          tx,
          twin
            ? sql`delete from memories where tenant_id = ${tenantId} and id = ${r.id}::uuid and text = ${r.text}`
            : sql`update memories set text = ${text}, text_key = ${textKey}
                  where tenant_id = ${tenantId} and id = ${r.id}::uuid and text = ${r.text}`,
        );
      }
      const last = rows.at(-1);
      return { read: rows.length, changed, last: last ? [last.id] : null };
    },

    async transcript_chunks({ tenantId, after, batch }, tx) {
      const rows = await queryRows<{ session_id: string; first_seq: number; text: string }>(
        tx,
        sql`select session_id::text as session_id, first_seq, text from transcript_chunks
            where tenant_id = ${tenantId}
              ${after ? sql`and (session_id, first_seq) > (${after[0]}::uuid, ${Number(after[1])}::int)` : sql``}
            order by session_id, first_seq limit ${batch}`,
      );
      let changed = 0;
      for (const r of rows) {
        const text = redactText(r.text);
        if (text === r.text) continue;
        changed += 1;
        // The search column is generated from the text: it is rebuilt with it.
        await queryRows(
          tx,
          sql`update transcript_chunks set text = ${text} where tenant_id = ${tenantId}
                and session_id = ${r.session_id}::uuid and first_seq = ${r.first_seq} and text = ${r.text}`,
        );
      }
      const last = rows.at(-1);
      return { read: rows.length, changed, last: last ? [last.session_id, String(last.first_seq)] : null };
    },

    async channel_messages({ tenantId, after, batch }, tx) {
      const rows = await queryRows<{
        platform: string;
        channel_id: string;
        message_id: string;
        text: string;
        search_text: string | null;
      }>(
        tx,
        sql`select platform, channel_id, message_id, text, search_text from channel_messages
            where tenant_id = ${tenantId}
              ${after ? sql`and (platform, channel_id, message_id) > (${after[0]}, ${after[1]}, ${after[2]})` : sql``}
            order by platform, channel_id, message_id limit ${batch}`,
      );
      let changed = 0;
      for (const r of rows) {
        const searchText = searchTextOf(r.text);
        if (searchText === r.search_text) continue;
        changed += 1;
        // `text` stays the audit record; the search column is generated from search_text.
        await queryRows(
          tx,
          sql`update channel_messages set search_text = ${searchText} where tenant_id = ${tenantId}
                and platform = ${r.platform} and channel_id = ${r.channel_id} and message_id = ${r.message_id}
                and text = ${r.text}`,
        );
      }
      const last = rows.at(-1);
      return {
        read: rows.length,
        changed,
        last: last ? [last.platform, last.channel_id, last.message_id] : null,
      };
    },
  };

  return {
    /** Tenants and sources not yet re-redacted with rules `version`. */
    async pending(
      version: number,
      tx: Executor = db,
    ): Promise<{ tenantId: string; source: RedactedSource }[]> {
      const rows = await queryRows<{ tenant_id: string; source: RedactedSource }>(
        tx,
        sql`select t.id as tenant_id, s.source from tenants t
            cross join (values ('memories'), ('transcript_chunks'), ('channel_messages')) as s(source)
            left join search_redaction r on r.tenant_id = t.id and r.source = s.source
            where r.rules_version is null or r.rules_version < ${version}
            order by t.id, s.source`,
      );
      return rows.map((r) => ({ tenantId: r.tenant_id, source: r.source }));
    },

    page(
      source: RedactedSource,
      p: { tenantId: string; after: PageKey | null; batch: number },
      tx: Executor = db,
    ): Promise<PageResult> {
      return pages[source](p, tx);
    },

    /** Records that the tenant's source is clean for rules `version`. */
    async markDone(p: { tenantId: string; source: RedactedSource; version: number }, tx: Executor = db) {
      await queryRows(
        tx,
        sql`insert into search_redaction (tenant_id, source, rules_version, updated_at)
            values (${p.tenantId}, ${p.source}, ${p.version}, now())
            on conflict (tenant_id, source) do update set rules_version = excluded.rules_version,
              updated_at = excluded.updated_at`,
      );
    },
  };
}

export type SearchRedactionRepository = ReturnType<typeof createSearchRedactionRepository>;

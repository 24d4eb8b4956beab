// SQL for context assembly: the statement a context call loads its facts with (the lane state among
// them, read through lanes.repository.ts) and the audit log of context calls (docs/design.md §6.13).
import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { builtStatements, slot } from '../../db/prepared.js';
import { contextLog, payloadParts, sessions, type CostTotals } from '../../db/schema.js';
import { weekStart } from '../../db/partitions.js';
import { laneStateJoin, type LaneStateRow } from '../lanes/lanes.repository.js';
import type { CacheState, CostReport } from './core/cost-model.js';
import { lexemesOfRow, lexemesSql } from '../memory/search.repository.js';
import { scopeVersionsSql } from '../memory/scope-documents.repository.js';
import { messageFromJson, messageJsonSql, type StoredMessage } from '../channels/channel-rows.repository.js';
import { snapshotJsonSql, snapshotOfJson, type SnapshotRead } from '../channels/snapshot-rows.repository.js';
import { DEFAULT_ADJACENT_COUNT } from '../channels/core/snapshot.js';
import { threadReadLimit } from '../channels/core/thread-budget.js';
import { threadJsonSql, threadOfJson, type ThreadRead } from '../channels/thread-rows.repository.js';
import type { PayloadPart } from './core/payload-layout.js';
import {
  laneEntriesJsonSql,
  laneEntriesOfJson,
  type LaneEntriesRead,
} from '../sessions/transcript.repository.js';

export type ContextLogRow = typeof contextLog.$inferSelect;

type AgentSection = { name: string; content: string; cacheable: boolean };

/** What a context call reads first, in one statement (ContextRepository.loadTurn). */
interface TurnLoad {
  session: typeof sessions.$inferSelect;
  /** The lane the turn belongs to, as far as stored state tells: see loadTurn. */
  laneKey: string;
  lane: LaneStateRow | null;
  /** The budget percentage of the session's last logged call (null: none). */
  lastPercentage: number | null;
  /** The session holds an offloaded tool result. */
  storedResults: boolean;
  /** Other sessions (ended ones) share the session key: their transcript is searchable, never in view. */
  otherSessions: boolean;
  /** The agent's sections in prompt order and its history_turns default (null: no agent). */
  agent: { historyTurns: number | null; sections: AgentSection[] } | null;
  /** The anchor message's row as ChannelsRepository.getMessages reads it (deleted too); null: none. */
  anchor: StoredMessage | null;
  /** The lexemes of `lexemeText` (search.repository.ts lexemesSql); null when none was given. */
  lexemes: string[] | null;
  /**
   * The search_versions of the session's visible memory scopes and of its transcript chunks
   * (scope-cache.ts scopeVersionsSql): retrieval searches small scopes in the process's held copy.
   */
  scopeVersions: Record<string, number>;
  /** The lane entries asked for in `laneRead`, read in the same statement; null when none were. */
  laneRead: (LaneReadAhead & LaneEntriesRead) | null;
  /**
   * The anchor's snapshot rows (DEFAULT_ADJACENT_COUNT of them) in the session's channel, read when
   * asked for (`snapshot`) and the lane read here has no channel context attached; else null.
   */
  snapshot: SnapshotRead | null;
  /**
   * With the snapshot: the thread the anchor belongs to or starts, its root's row and its newest
   * `threadNewest` replies (channels.service.ts loadAnchorContext's thread read); null when the
   * snapshot was not read or the anchor is in no thread.
   */
  thread: ThreadRead | null;
}

/** What varies between loadTurn's statements: an anchor, its snapshot, a query, lane entries read ahead. */
export interface LoadTurnShape {
  anchor: boolean;
  /** The anchor's snapshot and thread. */
  snapshot: boolean;
  lexemes: boolean;
  laneRead: boolean;
}

/** Which lane entries a load reads too: laneEntriesFrom's parameters. */
export interface LaneReadAhead {
  laneKey: string;
  fromSeq: number;
  atSeq: number;
}

/**
 * loadTurn's statement for a shape (an anchor or none, with its snapshot or not, a query or none,
 * lane entries read ahead or none), built once (src/db/prepared.ts): its values are the placeholders
 * tenantId, sessionId, platform, channelId, messageId, laneKey, agentId, lexemeText, readLaneKey,
 * readFrom and threadNewest.
 */
export function loadTurnStatement(tx: Executor, shape: LoadTurnShape) {
  const tenantId = slot('tenantId');
  const anchorScope = { tenantId, platform: slot('platform'), channelId: slot('channelId') };
  // A deleted anchor is read (anchorFromRow answers null for it) but has no say in the lane.
  const anchorLane = shape.anchor
    ? sql`(select m.lane_key from channel_messages m where m.tenant_id = ${tenantId}
        and m.platform = ${anchorScope.platform} and m.channel_id = ${anchorScope.channelId}
        and m.message_id = ${slot('messageId')} and not m.is_placeholder and m.deleted_at is null)`
    : sql`null::text`;
  // session-keys.ts turnLaneKey, in SQL (test/integration/rules-in-sql.test.ts checks they agree).
  const laneKey = sql<string>`coalesce(${anchorLane}, ${slot('laneKey')}::text,
    ${sessions.turnState}->>'last_lane_key',
    case when ${sessions.channelId} is null then 'root:session' else 'root:' || ${sessions.channelId} end)`;
  const agentId = sql`coalesce(${slot('agentId')}::text, ${sessions.agentId})`;
  return tx
    .select({
      session: sessions,
      laneKey,
      lane: laneStateJoin.table,
      anchor: shape.anchor
        ? sql<unknown>`${messageJsonSql(anchorScope, slot('messageId'))}`
        : sql<null>`null`,
      // The snapshot a lane without channel context attaches (context.read.ts), in the
      // session's channel; the call checks the anchor's channel against it before use.
      snapshot: shape.snapshot
        ? sql<unknown>`case when ${laneStateJoin.table.contextAttachedSeq} is null and ${sessions.platform} is not null
            and ${sessions.channelId} is not null then ${snapshotJsonSql(
              {
                tenantId: sql`${sessions.tenantId}`,
                platform: sql`${sessions.platform}`,
                channelId: sql`${sessions.channelId}`,
              },
              slot('messageId'),
              DEFAULT_ADJACENT_COUNT,
            )} end`
        : sql<null>`null`,
      // The anchor's thread, on the same condition (channels.service.ts loadAnchorContext reads both).
      thread: shape.snapshot
        ? sql<unknown>`case when ${laneStateJoin.table.contextAttachedSeq} is null and ${sessions.platform} is not null
            and ${sessions.channelId} is not null then ${threadJsonSql(
              {
                tenantId: sql`${sessions.tenantId}`,
                platform: sql`${sessions.platform}`,
                channelId: sql`${sessions.channelId}`,
              },
              slot('messageId'),
              slot<number>('threadNewest'),
            )} end`
        : sql<null>`null`,
      lastPercentage: sql<number | null>`(select (c.budget->>'percentage')::float8 from context_log c
        where c.tenant_id = ${sessions.tenantId} and c.session_id = ${sessions.id}
        order by c.turn_seq desc limit 1)`,
      // Whether the session holds an offloaded tool result (read_result is sent only then).
      storedResults: sql<boolean>`exists (select 1 from blob_owners o join blobs b
        on b.tenant_id = o.tenant_id and b.artifact_id = o.artifact_id
        where o.tenant_id = ${sessions.tenantId} and o.session_id = ${sessions.id} and b.kind = 'tool_result')`,
      // Whether an earlier session shares the key (memory_search can find its transcript).
      otherSessions: sql<boolean>`exists (select 1 from sessions s2 where s2.tenant_id = ${sessions.tenantId}
        and s2.session_key = ${sessions.sessionKey} and s2.id <> ${sessions.id})`,
      lexemes: shape.lexemes ? sql<unknown>`${lexemesSql(slot('lexemeText'))}` : sql<null>`null`,
      laneRead: shape.laneRead
        ? sql<unknown>`${laneEntriesJsonSql({
            tenantId: sessions.tenantId,
            sessionId: sessions.id,
            laneKey: slot('readLaneKey'),
            from: slot<number>('readFrom'),
          })}`
        : sql<null>`null`,
      // The keys of memory/core/visible-scopes.ts visibleMemoryScopes (test/integration/rules-in-sql.test.ts
      // checks they agree), and the session key of its chunks.
      scopeVersions: sql<unknown>`${scopeVersionsSql(sql`${sessions.tenantId}`, [
        { source: 'memories', key: sql`'tenant:'` },
        {
          source: 'memories',
          key: sql`'channel:' || ${sessions.platform} || ':' || ${sessions.channelId}`,
        },
        { source: 'memories', key: sql`'user:' || ${sessions.platform} || ':' || ${sessions.userId}` },
        { source: 'memories', key: sql`'session:' || ${sessions.sessionKey}` },
        { source: 'transcript_chunks', key: sql`${sessions.sessionKey}` },
      ])}`,
      agent: sql<unknown>`case when ${agentId} is null then null else json_build_object(
        'history_turns', (select st.history_turns from agent_settings st
          where st.tenant_id = ${sessions.tenantId} and st.agent_id = ${agentId}),
        'sections', coalesce((select json_agg(json_build_object('name', a.name, 'content', a.content,
            'cacheable', a.cacheable) order by a.position, a.name) from agent_sections a
          where a.tenant_id = ${sessions.tenantId} and a.agent_id = ${agentId}), '[]'::json)) end`,
    })
    .from(sessions)
    .leftJoin(laneStateJoin.table, laneStateJoin.on(sessions.tenantId, sessions.id, laneKey))
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.id, slot('sessionId'))))
    .limit(1)
    .prepare('load_turn');
}

const built = builtStatements();

export function createContextRepository(db: Executor) {
  return {
    /**
     * A context call's first read, one statement where there were six in three rounds: the
     * session; the anchor message; the lane state of the turn's lane (the anchor message's lane,
     * else `laneKey`, else the session's last lane, else its root lane: the service derives the
     * same key from what it read, and reads the lane on its own should the two ever differ); the
     * last logged call's budget percentage; the sections and defaults of `agentId`, else the
     * session's agent; and the query's lexemes. Null: no such session in this tenant.
     */
    async loadTurn(
      params: {
        tenantId: string;
        sessionId: string;
        anchor: { platform: string; channelId: string; messageId: string } | null;
        /** Read the anchor's snapshot and thread too, for a lane without channel context attached. */
        snapshot: boolean;
        /** The thread's replies to read with the snapshot (threadReadLimit; default: the default budget's). */
        threadNewest?: number;
        laneKey: string | null;
        agentId: string | null;
        lexemeText: string | null;
        /** The lane entries to read too (LaneHistoryCache.readAhead), as laneEntriesFrom would. */
        laneRead: LaneReadAhead | null;
      },
      tx: Executor = db,
    ): Promise<TurnLoad | null> {
      const { anchor, laneRead } = params;
      const threadNewest = params.threadNewest ?? threadReadLimit({});
      const shape: LoadTurnShape = {
        anchor: anchor !== null,
        snapshot: anchor !== null && params.snapshot,
        lexemes: params.lexemeText !== null,
        laneRead: laneRead !== null,
      };
      const statement = built(tx, JSON.stringify(shape), (executor) => loadTurnStatement(executor, shape));
      const [row] = await statement.execute({
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        platform: anchor?.platform ?? null,
        channelId: anchor?.channelId ?? null,
        messageId: anchor?.messageId ?? null,
        laneKey: params.laneKey,
        agentId: params.agentId,
        lexemeText: params.lexemeText,
        readLaneKey: laneRead?.laneKey ?? null,
        readFrom: laneRead ? Math.max(laneRead.fromSeq, laneRead.atSeq) : null,
        threadNewest,
      });
      if (!row) return null;
      const agent = (typeof row.agent === 'string' ? JSON.parse(row.agent) : row.agent) as {
        history_turns: number | null;
        sections: AgentSection[];
      } | null;
      return {
        session: row.session,
        laneKey: row.laneKey,
        lane: row.lane,
        lastPercentage: row.lastPercentage === null ? null : Number(row.lastPercentage),
        storedResults: row.storedResults === true || String(row.storedResults) === 'true',
        otherSessions: row.otherSessions === true || String(row.otherSessions) === 'true',
        anchor: messageFromJson(row.anchor),
        lexemes: params.lexemeText === null ? null : lexemesOfRow(row.lexemes),
        laneRead: laneRead && { ...laneRead, ...laneEntriesOfJson(row.laneRead) },
        snapshot: snapshotOfJson(row.snapshot, DEFAULT_ADJACENT_COUNT),
        thread: threadOfJson(row.thread, threadNewest),
        scopeVersions: (typeof row.scopeVersions === 'string'
          ? JSON.parse(row.scopeVersions)
          : (row.scopeVersions ?? {})) as Record<string, number>,
        agent: agent && {
          historyTurns: agent.history_turns === null ? null : Number(agent.history_turns),
          sections: agent.sections,
        },
      };
    },

    /**
     * The session's prompt cache as this call leaves it, and the call's expected cost added to the
     * session's totals (in the transaction that appends the call's turn; the row is locked there).
     */
    async recordCost(
      params: { tenantId: string; sessionId: string; cache: CacheState; cost: CostReport },
      tx: Executor = db,
    ): Promise<void> {
      const { cost } = params;
      const add = (key: keyof CostTotals, value: number) =>
        sql`(${sessions.costTotals}->>${key})::numeric + ${value}::numeric`;
      await tx
        .update(sessions)
        .set({
          promptCache: params.cache,
          costTotals: sql`jsonb_build_object(
            'calls', ${add('calls', 1)},
            'cache_read', ${add('cache_read', cost.cache_read)},
            'cache_write', ${add('cache_write', cost.cache_write)},
            'uncached', ${add('uncached', cost.uncached)},
            'billed_input', ${add('billed_input', cost.billed_input)})`,
        })
        .where(and(eq(sessions.tenantId, params.tenantId), eq(sessions.id, params.sessionId)));
    },

    async insertLog(row: typeof contextLog.$inferInsert, tx: Executor = db): Promise<void> {
      await tx.insert(contextLog).values(row);
    },

    /**
     * Stores the parts of a logged payload the tenant does not hold yet in the week of `at` (the
     * call's created_at; src/db/partitions.ts): their hashes are looked up first, so a turn sends
     * only its new messages, not the whole history again.
     */
    async storePayloadParts(
      { tenantId, parts, at }: { tenantId: string; parts: PayloadPart[]; at: Date },
      tx: Executor = db,
    ): Promise<void> {
      const unique = [...new Map(parts.map((p) => [p.sha256, p])).values()];
      if (unique.length === 0) return;
      const week = weekStart(at);
      const held = await tx
        .select({ sha256: payloadParts.sha256 })
        .from(payloadParts)
        .where(
          and(
            eq(payloadParts.tenantId, tenantId),
            eq(payloadParts.week, week),
            inArray(
              payloadParts.sha256,
              unique.map((p) => p.sha256),
            ),
          ),
        );
      const heldSet = new Set(held.map((r) => r.sha256));
      const missing = unique.filter((p) => !heldSet.has(p.sha256));
      if (missing.length === 0) return;
      // A concurrent turn of the tenant may store the same part first: same hash, same bytes.
      await tx
        .insert(payloadParts)
        .values(missing.map((p) => ({ tenantId, week, sha256: p.sha256, body: p.body, createdAt: at })))
        .onConflictDoNothing();
    },

    /** The logged payload's layout and its parts' bodies in payload order; null without a row. */
    async loggedPayload(
      { tenantId, sessionId, turnSeq }: { tenantId: string; sessionId: string; turnSeq: number },
      tx: Executor = db,
    ): Promise<{ sha256: string; layout: string | null; bodies: string[] } | null> {
      const [row] = await tx
        .select({
          sha256: contextLog.payloadSha256,
          layout: contextLog.payloadLayout,
          parts: contextLog.payloadParts,
          createdAt: contextLog.createdAt,
        })
        .from(contextLog)
        .where(
          and(
            eq(contextLog.tenantId, tenantId),
            eq(contextLog.sessionId, sessionId),
            eq(contextLog.turnSeq, turnSeq),
          ),
        )
        .limit(1);
      if (!row) return null;
      const hashes = row.parts ?? [];
      const found =
        hashes.length === 0
          ? []
          : await tx
              .select({ sha256: payloadParts.sha256, body: payloadParts.body })
              .from(payloadParts)
              .where(
                and(
                  eq(payloadParts.tenantId, tenantId),
                  eq(payloadParts.week, weekStart(row.createdAt)),
                  inArray(payloadParts.sha256, [...new Set(hashes)]),
                ),
              );
      const bodies = new Map(found.map((r) => [r.sha256, r.body]));
      if (hashes.some((h) => !bodies.has(h))) throw new Error(`payload part missing for turn ${turnSeq}`);
      return { sha256: row.sha256, layout: row.layout, bodies: hashes.map((h) => bodies.get(h)!) };
    },

    /** The latest context call of a session (its budget gives the previous percentage). */
    async lastLog({ tenantId, sessionId }: { tenantId: string; sessionId: string }, tx: Executor = db) {
      const [row] = await tx
        .select()
        .from(contextLog)
        .where(and(eq(contextLog.tenantId, tenantId), eq(contextLog.sessionId, sessionId)))
        .orderBy(desc(contextLog.turnSeq))
        .limit(1);
      return row ?? null;
    },

    async listLog(
      params: { tenantId: string; sessionId: string; afterSeq: number; limit: number },
      tx: Executor = db,
    ): Promise<ContextLogRow[]> {
      return tx
        .select()
        .from(contextLog)
        .where(
          and(
            eq(contextLog.tenantId, params.tenantId),
            eq(contextLog.sessionId, params.sessionId),
            gt(contextLog.turnSeq, params.afterSeq),
          ),
        )
        .orderBy(asc(contextLog.turnSeq))
        .limit(params.limit);
    },
  };
}

export type ContextRepository = ReturnType<typeof createContextRepository>;

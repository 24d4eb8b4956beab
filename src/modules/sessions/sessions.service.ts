// Sessions: get-or-create by key with freshness (docs/design.md §6.1), reset, list, hard delete.
// At most one live session per key, across instances: the partial unique index decides races and
// the loser re-reads the winner.
import type { Clock, IdGenerator } from '../../shared/clock.js';
import type { Config } from '../../config.js';
import { calibrationView } from './core/calibration.js';
import { isSessionStale, sessionKeyFor, type SessionKeyParts } from './core/session-keys.js';
import type { Db, Executor } from '../../db/client.js';
import { unavailable } from '../../shared/errors.js';
import type { SessionRow, SessionsRepository } from './sessions.repository.js';
import { sessionEnded, sessionNotFound } from './sessions.errors.js';

type SessionReason = 'new' | 'stale' | 'existing' | 'reset';

interface GetOrCreateParams {
  tenantId: string;
  /** An explicit key, or the parts of the default key (§6.1). */
  sessionKey?: string;
  parts?: Partial<SessionKeyParts>;
  /** Freshness override in ms; default SESSION_MAX_AGE_MS. */
  maxAgeMs?: number;
  metadata?: Record<string, unknown>;
}

interface SessionResult {
  session: SessionRow;
  created: boolean;
  reason: SessionReason;
}

/** Attempts before giving up on a key that keeps changing under us (it never should). */
const MAX_ATTEMPTS = 8;

export function createSessionsService(deps: {
  db: Db;
  sessions: SessionsRepository;
  clock: Clock;
  ids: IdGenerator;
  config: Pick<Config, 'SESSION_MAX_AGE_MS'>;
}) {
  const { db, sessions, clock, ids } = deps;

  const newSessionValues = (
    sessionKey: string,
    parts: Partial<SessionKeyParts>,
    extra: { resetFrom?: string; compactionCount?: number; metadata?: Record<string, unknown> },
  ) => {
    const now = clock.now();
    return {
      id: ids.next(),
      sessionKey,
      agentId: parts.agentId ?? null,
      platform: parts.platform ?? null,
      channelId: parts.channelId ?? null,
      userId: parts.userId ?? null,
      chatType: parts.chatType ?? null,
      createdAt: now,
      updatedAt: now,
      resetFrom: extra.resetFrom ?? null,
      compactionCount: extra.compactionCount ?? 0,
      metadata: extra.metadata ?? {},
    };
  };

  const partsOf = (row: SessionRow): Partial<SessionKeyParts> => ({
    agentId: row.agentId ?? undefined,
    platform: row.platform ?? undefined,
    chatType: row.chatType ?? undefined,
    userId: row.userId,
    channelId: row.channelId,
  });

  /** Ends `old` and inserts its successor in one transaction; null when `old` was already ended. */
  const replace = async (
    tenantId: string,
    old: SessionRow,
    at: Date,
    executor: Executor = db,
  ): Promise<SessionRow | null> => {
    class LostRace extends Error {}
    try {
      // Inside a caller's transaction this is a savepoint (PGlite has a single connection, so a
      // second top-level transaction there would wait forever).
      return await executor.transaction(async (tx) => {
        if (!(await sessions.end({ tenantId, id: old.id, at }, tx))) return null;
        const values = newSessionValues(old.sessionKey, partsOf(old), {
          resetFrom: old.id,
          compactionCount: old.compactionCount,
          metadata: old.metadata,
        });
        const row = await sessions.insertLive({ tenantId, session: values }, tx);
        if (!row) throw new LostRace();
        return row;
      });
    } catch (error) {
      if (error instanceof LostRace) return null;
      throw error;
    }
  };

  return {
    async getOrCreate(params: GetOrCreateParams): Promise<SessionResult> {
      const { tenantId } = params;
      const parts = params.parts ?? {};
      const sessionKey =
        params.sessionKey ??
        sessionKeyFor({
          agentId: parts.agentId!,
          platform: parts.platform!,
          chatType: parts.chatType!,
          userId: parts.userId,
          channelId: parts.channelId,
        });
      const maxAgeMs = params.maxAgeMs ?? deps.config.SESSION_MAX_AGE_MS;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        const live = await sessions.findLiveByKey({ tenantId, sessionKey });
        if (!live) {
          const values = newSessionValues(sessionKey, parts, { metadata: params.metadata });
          const row = await sessions.insertLive({ tenantId, session: values });
          if (row) return { session: row, created: true, reason: 'new' };
          continue; // another request created it first: read it back
        }
        const now = clock.now();
        if (!isSessionStale(live, now, maxAgeMs))
          return { session: live, created: false, reason: 'existing' };
        const successor = await replace(tenantId, live, now);
        if (successor) return { session: successor, created: true, reason: 'stale' };
      }
      throw unavailable('session.contended', 'the session key kept changing; retry the request', {
        sessionKey,
      });
    },

    async get({ tenantId, id }: { tenantId: string; id: string }): Promise<SessionRow> {
      const row = await sessions.findById({ tenantId, id });
      if (!row) throw sessionNotFound(id);
      return row;
    },

    async list(params: {
      tenantId: string;
      sessionKey?: string;
      agentId?: string;
      live?: boolean;
      cursor?: string;
      limit: number;
    }) {
      const rows = await sessions.list({ ...params, before: params.cursor, limit: params.limit + 1 });
      const page = rows.slice(0, params.limit);
      return { sessions: page, nextCursor: rows.length > params.limit ? page[page.length - 1]!.id : null };
    },

    /** Ends a live session and starts its successor (same key, `reset_from`, compaction count kept). */
    async reset(
      { tenantId, id }: { tenantId: string; id: string },
      tx: Executor = db,
    ): Promise<SessionResult> {
      const old = await sessions.findById({ tenantId, id }, tx);
      if (!old) throw sessionNotFound(id);
      if (old.endedAt) throw sessionEnded(old);
      const successor = await replace(tenantId, old, clock.now(), tx);
      if (!successor) {
        throw sessionEnded((await sessions.findById({ tenantId, id }, tx)) ?? old);
      }
      return { session: successor, created: true, reason: 'reset' };
    },

    /** Hard delete with transcript, lane states, manifest, blobs, chunks and context log. */
    async remove({ tenantId, id }: { tenantId: string; id: string }, tx: Executor = db): Promise<void> {
      if (!(await sessions.deleteCascade({ tenantId, id }, tx))) throw sessionNotFound(id);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

/** The public JSON shape of a session. */
export function sessionView(row: SessionRow) {
  return {
    id: row.id,
    session_key: row.sessionKey,
    agent_id: row.agentId,
    platform: row.platform,
    channel_id: row.channelId,
    user_id: row.userId,
    chat_type: row.chatType,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_turn_at: row.lastTurnAt?.toISOString() ?? null,
    ended_at: row.endedAt?.toISOString() ?? null,
    live: row.endedAt === null,
    turn_count: row.turnCount,
    compaction_count: row.compactionCount,
    total_tokens: row.totalTokens,
    next_seq: row.nextSeq,
    reset_from: row.resetFrom,
    pending_tool_use_ids: Object.keys(row.turnState.pending_tool_uses),
    calibration: calibrationView(row.calibration),
    cost_totals: row.costTotals,
    metadata: row.metadata,
  };
}

/** The public JSON shape of a get-or-create or reset: the session, and whether and why it is new. */
export function sessionResultView(result: SessionResult) {
  return { session: sessionView(result.session), created: result.created, reason: result.reason };
}

// Appending turns to a session's transcript and reading it back. One append is one transaction
// under the session row lock (SELECT … FOR UPDATE): sequence numbers are gap-free, the turn-order
// checks see every earlier turn, offloaded blobs and counters commit with the entries or not at all.
import { redactContent } from '../memory/core/redaction.js';
import type { Clock } from '../../shared/clock.js';
import { addUsage, type ReportedUsage } from './core/calibration.js';
import { checkContentMedia, type ContentBlock, type TurnContent } from '../../shared/content-blocks.js';
import { defaultLaneKey } from './core/session-keys.js';
import { imageTokens, type TokenEstimator } from '../../shared/tokens.js';
import { duplicateId, validateTurnSequence } from './core/turn-validation.js';
import type { Db, Executor } from '../../db/client.js';
import { AppError, badRequest, conflict, unprocessable } from '../../shared/errors.js';
import type { SessionRow, SessionsRepository } from './sessions.repository.js';
import type {
  NewTranscriptEntry,
  TranscriptEntryRow,
  TranscriptRepository,
} from './transcript.repository.js';
import type { CalibrationService } from './calibration.service.js';
import { requestHash } from '../../http/idempotency/idempotency.service.js';
import type { OffloadService } from './offload.service.js';
import { offloadRefIdOf } from './core/offload.js';
import { sessionEnded, sessionNotFound } from './sessions.errors.js';

/**
 * The turns of one idempotent append are keyed `key`, `key␟1`, `key␟2`…: a control character
 * keys cannot contain, so no key's parts collide with another key.
 */
const IDEMPOTENCY_PART_SEPARATOR = '\u001f';

interface TurnToAppend {
  role: 'user' | 'assistant';
  content: TurnContent;
  /** Lane of the turn (§6.2); default: the lane it continues (see validateTurnSequence). */
  lane_key?: string;
  /** Entry kind; `context_attachment` for rendered channel context. Default `message`. */
  kind?: 'message' | 'context_attachment';
  author?: { id?: string; name?: string };
  /** When the turn happened (group chats); stored as turn_at. */
  time?: string;
  usage?: ReportedUsage;
  model?: string;
  /** Where the turn came from, e.g. the channel message it is. */
  source?: Record<string, string>;
}

interface AppendHookContext {
  tenantId: string;
  /** The session row after the append (counters updated). */
  session: SessionRow;
  /** The entries just written, in seq order, as stored. */
  entries: TranscriptEntryRow[];
}

/**
 * Runs inside the append transaction after the entries are written; a throw rolls the append
 * back. Transcript-chunk indexing hooks in here. Hooks must only use `tx`.
 */
type OnAppended = (tx: Executor, context: AppendHookContext) => Promise<void>;

/**
 * Runs after an append committed, outside its transaction (background compaction scheduling). It
 * must not throw: the append has already happened.
 */
type AfterAppend = (context: AppendHookContext) => Promise<void>;

interface AppendResult {
  session: SessionRow;
  entries: TranscriptEntryRow[];
  /** True when the Idempotency-Key matched an earlier append: nothing was written. */
  replayed: boolean;
}

/**
 * The session's latest context call as the context module logs it (context_log): handed in by the
 * wiring, so the session side does not depend on the context module.
 */
export interface ContextCallLog {
  lastLog(
    params: { tenantId: string; sessionId: string },
    tx?: Executor,
  ): Promise<{ budget: unknown; laneKey: string; turnSeq: number; model: string | null } | null>;
}

interface AppendParams {
  tenantId: string;
  sessionId: string;
  turns: TurnToAppend[];
  idempotencyKey?: string;
  /** Runs after the global hooks, in the same transaction, for this append only (context audit). */
  onAppended?: OnAppended;
  /** false: skip the after-append listeners (the context call runs its own checks). */
  notify?: boolean;
}

/** A reported call's usage against the input estimated for it (what calibration observes). */
interface ObservedUsage {
  model: string;
  usage: ReportedUsage;
  estimatedInput: number;
}

/** Usage and model only on assistant turns; each turn's media checked (4xx before any write). */
function checkTurnMedia(turns: TurnToAppend[]) {
  return turns.map((turn, index) => {
    if (turn.role === 'user' && (turn.usage || turn.model)) {
      const field = turn.usage ? 'usage' : 'model';
      throw unprocessable(
        'turns.usage_on_user_turn',
        `turns.${index}.${field}: only assistant turns carry ${field}`,
        {
          path: `turns.${index}.${field}`,
        },
      );
    }
    return checkContentMedia(turn.content, `turns.${index}.content`);
  });
}

/** The turns of one idempotent append are keyed `key`, `key␟1`, `key␟2`… */
const entryIdempotencyKey = (key: string, index: number) =>
  index === 0 ? key : `${key}${IDEMPOTENCY_PART_SEPARATOR}${index}`;

export function createTranscriptService(deps: {
  db: Db;
  sessions: SessionsRepository;
  transcript: TranscriptRepository;
  /** Where `page` reads (the read replica when configured); `sessions`/`transcript` otherwise. */
  reads?: { sessions: SessionsRepository; transcript: TranscriptRepository };
  offload: Pick<OffloadService, 'offloadToolResults'>;
  calibration: CalibrationService;
  /** The latest context call: the estimate of the input a reported usage belongs to. */
  contextLog: ContextCallLog;
  clock: Clock;
  estimator: TokenEstimator;
  onAppended?: OnAppended[];
}) {
  const { db, sessions, transcript, clock, estimator } = deps;
  const hooks: OnAppended[] = [...(deps.onAppended ?? [])];
  const afterAppend: AfterAppend[] = [];

  const estimate = (content: unknown, images: { width: number; height: number }[]) =>
    estimator.content(content) +
    images.reduce((sum, dims) => sum + imageTokens(dims.width, dims.height) - imageTokens(), 0);

  /** validateTurnSequence, telling a second result for an already answered call from a stray one. */
  const validateAgainstHistory = async (
    tx: Executor,
    tenantId: string,
    session: SessionRow,
    turns: TurnToAppend[],
  ) => {
    try {
      return validateTurnSequence(session.turnState, turns, defaultLaneKey(session));
    } catch (error) {
      const details =
        error instanceof AppError ? (error.details as { path?: string; tool_use_id?: string }) : undefined;
      if (
        !(error instanceof AppError) ||
        error.code !== 'turns.tool_result_without_use' ||
        !details?.tool_use_id
      ) {
        throw error;
      }
      const answered = await transcript.findUsedToolIds(
        { tenantId, sessionId: session.id, ids: [details.tool_use_id] },
        tx,
      );
      if (answered.length === 0) throw error;
      throw unprocessable(
        'turns.duplicate_tool_id',
        `${details.path}: tool_use ${details.tool_use_id} already has its tool_result`,
        details,
      );
    }
  };

  /**
   * What a reported call's input is compared with (§6.3): the payload estimate (`budget.used`) of
   * the session's latest context call plus what its lane gained since (tool-loop turns appended
   * here), and that call's model for usage reported without one. Null when the session never made
   * a context call: usage is then refused (400 turns.usage_without_context_call).
   */
  const usageBasis = async (tx: Executor, tenantId: string, sessionId: string) => {
    const last = await deps.contextLog.lastLog({ tenantId, sessionId }, tx);
    const used = (last?.budget as { used?: unknown } | undefined)?.used;
    if (!last || typeof used !== 'number') return null;
    const since = await transcript.laneTokensAfter(
      { tenantId, sessionId, laneKey: last.laneKey, afterSeq: last.turnSeq },
      tx,
    );
    return { laneKey: last.laneKey, tokens: used + since, model: last.model };
  };

  /**
   * One append under the session row lock: a replay of the same Idempotency-Key, or the turns
   * checked against the history, their entries built and inserted, the session's counters
   * updated, and the hooks run.
   */
  async function appendInTx(
    params: AppendParams,
    media: ReturnType<typeof checkTurnMedia>,
    hash: string,
    tx: Executor,
  ): Promise<AppendResult & { usage: ObservedUsage[] }> {
    const { tenantId, sessionId, turns, idempotencyKey } = params;
    const session = await sessions.lockById({ tenantId, id: sessionId }, tx);
    if (!session) throw sessionNotFound(sessionId);
    if (idempotencyKey) {
      const previous = await transcript.findByIdempotencyKey(
        { tenantId, sessionId, key: idempotencyKey },
        tx,
      );
      if (previous.length > 0) {
        if (previous[0]!.requestHash !== hash) {
          throw conflict(
            'idempotency.key_reused',
            'Idempotency-Key was already used with a different request',
            {
              key: idempotencyKey,
            },
          );
        }
        return { session, entries: previous, replayed: true, usage: [] };
      }
    }
    if (session.endedAt) throw sessionEnded(session);

    const checked = await validateAgainstHistory(tx, tenantId, session, turns);
    const reused = await transcript.findUsedToolIds({ tenantId, sessionId, ids: checked.newToolUseIds }, tx);
    if (reused.length > 0) throw duplicateId(reused[0]!, `turns (tool_use id ${reused[0]})`);

    const now = clock.now();
    const built = await entryRows({ params, session, checked, media, hash, now }, tx);
    const entries = await transcript.insertMany({ entries: built.rows }, tx);
    const updated = await sessions.recordAppend(
      {
        tenantId,
        id: sessionId,
        nextSeq: session.nextSeq + turns.length,
        turns: turns.length,
        tokens: built.tokens,
        at: now,
        lastTurnAt: now,
        turnState: checked.state,
        calibration: built.calibration,
      },
      tx,
    );
    for (const hook of hooks) await hook(tx, { tenantId, session: updated, entries });
    await params.onAppended?.(tx, { tenantId, session: updated, entries });
    return { session: updated, entries, replayed: false, usage: built.usage };
  }

  /**
   * The stored rows of checked turns (tool results offloaded, tokens estimated), with the tokens
   * they add and the session's calibration after the usage they report.
   */
  async function entryRows(
    step: {
      params: AppendParams;
      session: SessionRow;
      checked: ReturnType<typeof validateTurnSequence>;
      media: ReturnType<typeof checkTurnMedia>;
      hash: string;
      now: Date;
    },
    tx: Executor,
  ) {
    const { params, session, checked, media, hash, now } = step;
    const { tenantId, sessionId, turns, idempotencyKey } = params;
    let runningTokens = session.totalTokens;
    let calibration = session.calibration;
    const basis = turns.some((turn) => turn.usage) ? await usageBasis(tx, tenantId, sessionId) : null;
    // Reported usage calibrates the estimate of the payload it was billed for: without a
    // context call there is none, and the transcript is no stand-in for what the bot sent.
    const reported = turns.findIndex((turn) => turn.usage);
    if (reported >= 0 && !basis) {
      throw badRequest(
        'turns.usage_without_context_call',
        `turns.${reported}.usage: usage is reported for the model call a context call's payload went to, and this session has made no context call`,
        { path: `turns.${reported}.usage` },
      );
    }
    const usage: ObservedUsage[] = [];
    const rows: NewTranscriptEntry[] = [];
    for (const [index, turn] of turns.entries()) {
      const { content } = await deps.offload.offloadToolResults(
        {
          tenantId,
          sessionId,
          content: turn.content as string | ContentBlock[],
          toolNames: checked.turns[index]!.resultsFor,
        },
        tx,
      );
      const tokens = estimate(content, media[index]!.images);
      if (turn.usage && basis) {
        const model = turn.model ?? basis.model ?? 'unknown';
        const estimatedInput = basis.tokens;
        calibration = addUsage(calibration, model, turn.usage, estimatedInput);
        usage.push({ model, usage: turn.usage, estimatedInput });
      }
      runningTokens += tokens;
      if (basis && checked.turns[index]!.laneKey === basis.laneKey) basis.tokens += tokens;
      rows.push({
        tenantId,
        sessionId,
        seq: session.nextSeq + index,
        laneKey: checked.turns[index]!.laneKey,
        kind: turn.kind ?? 'message',
        role: turn.role,
        content,
        tokenEstimate: tokens,
        idempotencyKey: idempotencyKey ? entryIdempotencyKey(idempotencyKey, index) : null,
        requestHash: idempotencyKey ? hash : null,
        author: turn.author ?? null,
        usage: turn.usage ? { ...turn.usage } : null,
        model: turn.model ?? null,
        source: turn.source ?? null,
        turnAt: turn.time ? new Date(turn.time) : null,
        createdAt: now,
      });
    }
    return { rows, tokens: runningTokens - session.totalTokens, calibration, usage };
  }

  return {
    /** Adds a listener run after an append commits (see AfterAppend). */
    addAfterAppend(listener: AfterAppend) {
      afterAppend.push(listener);
    },

    /** Adds a hook run inside every append transaction (see OnAppended). */
    addAppendHook(hook: OnAppended) {
      hooks.push(hook);
    },

    /**
     * Appends turns in order. With an idempotency key, the same key and body replays the stored
     * entries; another body is a 409. Validation failures are 4xx and write nothing.
     */
    async appendTurns(params: AppendParams): Promise<AppendResult> {
      const { tenantId } = params;
      const media = checkTurnMedia(params.turns);
      const outcome = await db.transaction((tx) =>
        appendInTx(params, media, requestHash({ turns: params.turns }), tx),
      );
      for (const call of outcome.usage) deps.calibration.observe({ tenantId, ...call });
      if (!outcome.replayed && params.notify !== false) {
        for (const listener of afterAppend) {
          await listener({ tenantId, session: outcome.session, entries: outcome.entries });
        }
      }
      return { session: outcome.session, entries: outcome.entries, replayed: outcome.replayed };
    },

    /** A page of the full audit trail (every kind, every lane), in seq order after `afterSeq`. */
    async page(params: {
      tenantId: string;
      sessionId: string;
      afterSeq?: number;
      limit: number;
      laneKey?: string;
    }) {
      const reads = deps.reads ?? { sessions, transcript };
      const session = await reads.sessions.findById({ tenantId: params.tenantId, id: params.sessionId });
      if (!session) throw sessionNotFound(params.sessionId);
      const rows = await reads.transcript.page({
        ...params,
        afterSeq: params.afterSeq ?? 0,
        limit: params.limit + 1,
      });
      const entries = rows.slice(0, params.limit);
      return { entries, nextCursor: rows.length > params.limit ? entries[entries.length - 1]!.seq : null };
    },

    /** A lane's entries from `fromSeq` on, in order: what assembly renders with render.ts. */
    async laneEntries(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq?: number },
      tx?: Executor,
    ) {
      return transcript.laneEntries(params, tx);
    },

    laneEntriesFrom(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq: number; atSeq: number },
      tx?: Executor,
    ) {
      return transcript.laneEntriesFrom(params, tx);
    },
  };
}

export type TranscriptService = ReturnType<typeof createTranscriptService>;

/** The tool results of an entry that were offloaded to blobs, with their reference ids. */
function offloadedOf(row: TranscriptEntryRow) {
  if (!Array.isArray(row.content)) return [];
  return (row.content as { type?: string; tool_use_id?: string; content?: unknown }[]).flatMap((block) => {
    const refId = block.type === 'tool_result' ? offloadRefIdOf(block.content) : null;
    return refId ? [{ tool_use_id: block.tool_use_id!, ref_id: refId }] : [];
  });
}

/** The public JSON shape of an appended entry (what an append answers). */
export function transcriptEntrySummary(row: TranscriptEntryRow) {
  return {
    seq: row.seq,
    lane_key: row.laneKey,
    kind: row.kind,
    role: row.role,
    token_estimate: row.tokenEstimate,
    created_at: row.createdAt.toISOString(),
    offloaded: offloadedOf(row),
  };
}

/**
 * The public JSON shape of a transcript entry (a transcript page): the summary with its content,
 * secrets redacted as everywhere a model or a client reads (the stored row keeps what was said: it
 * is the audit record, docs/memory.md).
 */
export function transcriptEntryView(row: TranscriptEntryRow) {
  return {
    ...transcriptEntrySummary(row),
    content: redactContent(row.content),
    author: row.author ?? null,
    turn_at: row.turnAt?.toISOString() ?? null,
    usage: row.usage ?? null,
    model: row.model,
    source: row.source ?? null,
    idempotency_key: row.idempotencyKey,
  };
}

// Step 4 of the context call (unless dry_run): the rendered user turn appended with, in the same
// transaction, the audit row (payload hash, budget, lane version, the payload's layout and parts
// for replay, what the context held by source and its cache breakpoints), the manifest rows of attached media, the lane's attached-context marker and the
// consumed pending slot.
import { traced } from '../../telemetry/traced.js';
import type { Executor } from '../../db/client.js';
import type { Clock } from '../../shared/clock.js';
import type { ContentBlock } from '../../shared/content-blocks.js';
import { conflict } from '../../shared/errors.js';
import type { SessionRow } from '../sessions/sessions.repository.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import type { AssembleResult } from './core/assemble.js';
import { splitPayload } from './core/payload-layout.js';
import type { BilledRequest } from './core/cost-model.js';
import type { ContextRepository } from './context.repository.js';
import type { LanesRepository } from '../lanes/lanes.repository.js';
import type { ContextRequest, LoggedAssembly } from './context.types.js';
import { BackgroundCommitDuringAssembly } from './context.errors.js';

interface RecordDeps {
  transcript: Pick<TranscriptService, 'appendTurns'>;
  manifest: Pick<ManifestService, 'record'>;
  context: ContextRepository;
  lanes: Pick<LanesRepository, 'markContextAttached' | 'clearPendingSlot'>;
  clock: Clock;
}

interface RecordParams {
  tenantId: string;
  sessionId: string;
  request: ContextRequest;
  result: AssembleResult;
  session: SessionRow;
  lane: { version: number; summaryVersion: number };
  laneKey: string;
  sha: string;
  /** The payload's expected cost and the prompt cache it leaves (core/cost-model.ts). */
  billed: BilledRequest;
  /** The payload's bytes, the ones `sha` is taken over (stored for replay). */
  payloadText: string;
  model: string;
  /** Assembly's "now" (the anchor's time); the log's created_at is the clock's. */
  now: Date;
  /** The request's tools: the deferred ones are logged with their schemas. */
  callerTools: readonly { name?: string; input_schema?: unknown }[];
  /** Runs last in the transaction with the turn's seq (the Idempotency-Key record). */
  onCommit: (tx: Executor, seq: number) => Promise<void>;
}

/** The user turn as assembly rendered it, appended with the call's records in its transaction. */
function appendUserTurn(deps: RecordDeps, params: RecordParams) {
  const { request, result, laneKey } = params;
  // Split and timed before the transaction, which should hold its locks for the writes alone.
  const logged = { stored: splitPayload(params.payloadText), calledAt: deps.clock.now() };
  return deps.transcript.appendTurns({
    tenantId: params.tenantId,
    sessionId: params.sessionId,
    turns: [
      {
        role: 'user',
        content: result.userTurn.content as ContentBlock[],
        lane_key: laneKey,
        ...(request.message.author ? { author: request.message.author } : {}),
        ...(request.message.time ? { time: request.message.time } : {}),
        ...(request.message.source ? { source: { ...request.message.source } } : {}),
      },
    ],
    notify: false,
    onAppended: async (tx, { entries: written, session: updated }) => {
      const seq = written[0]!.seq;
      refuseTurnsAppendedMeanwhile(params.session, updated, seq);
      await logCall(deps, params, { ...logged, seq }, tx);
      await recordAttachedMedia(deps, params, seq, tx);
      await markLane(deps, params, seq, tx);
      await params.onCommit(tx, seq);
    },
  });
}

/**
 * Assembly read the session at nextSeq; a turn appended since means this payload would not contain
 * it: refuse rather than log a payload the transcript contradicts. When every entry appended since
 * is a compaction record (each commit appends one and counts one), the bot did nothing
 * concurrently: the call assembles again (context.service.ts).
 */
function refuseTurnsAppendedMeanwhile(
  read: Pick<SessionRow, 'nextSeq' | 'compactionCount'>,
  updated: Pick<SessionRow, 'compactionCount'>,
  seq: number,
): void {
  if (seq === read.nextSeq) return;
  if (updated.compactionCount - read.compactionCount === seq - read.nextSeq) {
    throw new BackgroundCommitDuringAssembly();
  }
  throw conflict(
    'context.concurrent_turn',
    'another turn was appended while this context was assembled; retry',
    {
      expected_seq: read.nextSeq,
      actual_seq: seq,
    },
  );
}

/** The audit row (payload parts for replay, budget, cost, what the context held) and the session's cost. */
async function logCall(
  deps: RecordDeps,
  params: RecordParams,
  { stored, calledAt, seq }: { stored: ReturnType<typeof splitPayload>; calledAt: Date; seq: number },
  tx: Executor,
) {
  const { context } = deps;
  const { tenantId, sessionId, result } = params;
  const deferredTools = result.deferred_tools.map((d) => ({
    ...d,
    input_schema: params.callerTools.find((t) => t.name === d.name)?.input_schema,
  }));
  await context.storePayloadParts({ tenantId, parts: stored.parts, at: calledAt }, tx);
  await context.recordCost({ tenantId, sessionId, cache: params.billed.state, cost: params.billed.cost }, tx);
  await context.insertLog(
    {
      tenantId,
      sessionId,
      turnSeq: seq,
      laneKey: params.laneKey,
      laneVersion: params.lane.version,
      payloadSha256: params.sha,
      budget: { ...result.budget, deferred_tools: deferredTools },
      model: params.model,
      createdAt: calledAt,
      anchorAt: params.now,
      payloadLayout: stored.layout,
      payloadParts: stored.parts.map((p) => p.sha256),
      assembly: {
        context: result.context,
        cache: result.cache,
        notes: result.notes,
        attachments: result.attachments,
        left_out: result.left_out,
      } satisfies LoggedAssembly,
    },
    tx,
  );
}

/** The manifest rows of the media this turn attached (sent from now on as references). */
async function recordAttachedMedia(deps: RecordDeps, params: RecordParams, seq: number, tx: Executor) {
  for (const a of params.result.attachments) {
    if (a.disposition !== 'attached') continue;
    await deps.manifest.record(
      {
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        artifactId: a.artifact_id,
        contentHash: a.sha256,
        displayName: a.display_name,
        mediaType: a.media_type,
        sourceMessageId: a.source_message_id,
        sourceThreadId: a.source_thread_id,
        includedAtTurn: seq,
      },
      tx,
    );
  }
}

/**
 * The lane's attached-context marker, and the pending slot this turn answered consumed so the next
 * turn does not see it again: only at the version assembly read, so a slot set meanwhile stays.
 */
async function markLane(deps: RecordDeps, params: RecordParams, seq: number, tx: Executor) {
  const { tenantId, sessionId, laneKey, lane, now, result } = params;
  if (result.context.snapshot === 'attached') {
    await deps.lanes.markContextAttached(
      { tenantId, sessionId, laneKey, summaryVersion: lane.summaryVersion, seq, at: now },
      tx,
    );
  }
  if (result.context.pending_slot) {
    await deps.lanes.clearPendingSlot({ tenantId, sessionId, laneKey, at: now, version: lane.version }, tx);
  }
}

/** The turn recorded (above), inside a `record` span. */
export const recordTurn = (...args: Parameters<typeof appendUserTurn>) =>
  traced('record', () => appendUserTurn(...args));

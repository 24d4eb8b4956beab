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

// eslint-disable-next-line house/max-lines-per-function -- the record step of the context call, split with it
function appendUserTurn(
  deps: {
    transcript: Pick<TranscriptService, 'appendTurns'>;
    manifest: Pick<ManifestService, 'record'>;
    context: ContextRepository;
    lanes: Pick<LanesRepository, 'markContextAttached' | 'clearPendingSlot'>;
    clock: Clock;
  },
  params: {
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
  },
) {
  const { context } = deps;
  const { tenantId, sessionId, request, result, session, lane, laneKey, sha, model, now } = params;
  const stored = splitPayload(params.payloadText);
  const calledAt = deps.clock.now();
  const deferredTools = result.deferred_tools.map((d) => ({
    ...d,
    input_schema: params.callerTools.find((t) => t.name === d.name)?.input_schema,
  }));
  return deps.transcript.appendTurns({
    tenantId,
    sessionId,
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
      // Assembly read the session at nextSeq; a turn appended since means this payload
      // would not contain it: refuse rather than log a payload the transcript contradicts. When
      // every entry appended since is a compaction record (each commit appends one and counts
      // one), the bot did nothing concurrently: the call assembles again (context.service.ts).
      if (
        seq !== session.nextSeq &&
        updated.compactionCount - session.compactionCount === seq - session.nextSeq
      ) {
        throw new BackgroundCommitDuringAssembly();
      }
      if (seq !== session.nextSeq) {
        throw conflict(
          'context.concurrent_turn',
          'another turn was appended while this context was assembled; retry',
          {
            expected_seq: session.nextSeq,
            actual_seq: seq,
          },
        );
      }
      await context.storePayloadParts({ tenantId, parts: stored.parts, at: calledAt }, tx);
      await context.recordCost(
        { tenantId, sessionId, cache: params.billed.state, cost: params.billed.cost },
        tx,
      );
      await context.insertLog(
        {
          tenantId,
          sessionId,
          turnSeq: seq,
          laneKey,
          laneVersion: lane.version,
          payloadSha256: sha,
          budget: { ...result.budget, deferred_tools: deferredTools },
          model,
          createdAt: calledAt,
          anchorAt: now,
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
      for (const a of result.attachments) {
        if (a.disposition !== 'attached') continue;
        await deps.manifest.record(
          {
            tenantId,
            sessionId,
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
      if (result.context.snapshot === 'attached') {
        await deps.lanes.markContextAttached(
          { tenantId, sessionId, laneKey, summaryVersion: lane.summaryVersion, seq, at: now },
          tx,
        );
      }
      // The slot this turn answered is consumed, so the next turn does not see it again;
      // only at the version assembly read, so a slot set meanwhile stays pending.
      if (result.context.pending_slot) {
        await deps.lanes.clearPendingSlot(
          { tenantId, sessionId, laneKey, at: now, version: lane.version },
          tx,
        );
      }
      await params.onCommit(tx, seq);
    },
  });
}

/** The turn recorded (above), inside a `record` span. */
export const recordTurn = (...args: Parameters<typeof appendUserTurn>) =>
  traced('record', () => appendUserTurn(...args));

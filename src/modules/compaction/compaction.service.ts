// Compacting a session: under the session's lock (which only saves paying for two summaries at
// once), each lane over target is planned (clear → summarize → truncate), summarized with no
// transaction open, and committed in one short transaction that compares-and-sets the lane's
// version — so a holder whose lease expired meanwhile commits nothing (docs/compaction.md).
import { traced } from '../../telemetry/traced.js';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { LockManager } from '../../coord/lock.js';
import type { Clock, IdGenerator } from '../../shared/clock.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import type { CompactionRepository } from './compaction.repository.js';
import type { LaneStateRow, LanesRepository } from '../lanes/lanes.repository.js';
import type { CompactionMetrics } from './compaction.metrics.js';
import { compactionRunning, compactionSessionNotFound, laneNotFound } from './compaction.errors.js';
import type { CompactResult, LaneOutcome, LaneView } from './compaction.schemas.js';
import { planLane, type LanePlan, type ViewChange } from './core/lane-plan.js';
import { purgeCut, scrubEntries } from './core/purge.js';
import { fitSummaryText } from './core/summary-doc.js';
import type { CompactionSettings, Summarizer, SummaryResult } from './core/types.js';
import {
  toLaneEntry,
  asSaidNow,
  lockResource,
  skippedOutcome,
  summarySurvival,
  compactionRecord,
  laneOutcome,
  type LaneParams,
  type LaneRead,
  type LaneSummary,
  type LaneCompaction,
  type LaneCommitted,
} from './compaction.lane.js';

export type CompactionTrigger = 'api' | 'tool' | 'job' | 'blocked' | 'purge' | 'cold';

export type { CompactResult, LaneOutcome };

export interface CompactParams {
  tenantId: string;
  sessionId: string;
  trigger: CompactionTrigger;
  /** Only these lanes (default: every lane of the session). */
  laneKeys?: string[];
  /** Compact lanes under their thresholds too (API, tool). */
  force?: boolean;
  /** The budget needs the space now: clearing does not wait for a cold provider cache. */
  budgetForces?: boolean;
  /** Wait for a running compaction of the session instead of a 409. */
  wait?: boolean;
  /** Effective window the history target is a share of: the caller's (default from config). */
  effectiveWindow?: number;
  /** The context policy decided the sent view changes now, and why (core/lane-plan.ts). */
  viewChange?: ViewChange;
  /** Test seam: runs after summarizing, before the fenced commit (a paused holder). */
  beforeCommit?: (lane: string) => Promise<void>;
}

interface CompactionServiceDeps {
  db: Db;
  repo: CompactionRepository;
  /** The lane state: read, sized, and committed by compare-and-set on its version. */
  lanes: Pick<LanesRepository, 'getLaneState' | 'ensureLaneState' | 'laneSizes' | 'commitLane'>;
  locks: LockManager;
  clock: Clock;
  ids: IdGenerator;
  estimator: TokenEstimator;
  settings: CompactionSettings;
  summarizerFor: (tenantId: string) => Summarizer;
  metrics: CompactionMetrics;
  sessions: {
    findById(params: {
      tenantId: string;
      id: string;
    }): Promise<{ id: string; sessionKey: string; agentId?: string | null } | null>;
  };
  /**
   * Where laneView reads (the read replica when configured: it tolerates replication lag);
   * `sessions`, `lanes` and `repo` otherwise.
   */
  laneViewReads?: {
    sessions: CompactionServiceDeps['sessions'];
    lanes: Pick<LanesRepository, 'getLaneState' | 'laneSizes'>;
    repo: Pick<CompactionRepository, 'recordCount' | 'laneTurns'>;
  };
  defaultEffectiveWindow: number;
  lockTtlMs: number;
  /** How long `wait` waits for a running compaction. */
  waitMs: number;
}

export function createCompactionService(deps: CompactionServiceDeps) {
  const { repo, clock } = deps;
  /** Tokens of a lane summary (none without one). */
  const summaryTokens = (text: string | null) => (text ? deps.estimator.text(text) : 0);

  /**
   * Compacts one lane: reads and plans it, summarizes what leaves the view with no transaction
   * open, commits by compare-and-set on the lane's version, and says what happened.
   */
  async function compactLane(
    params: LaneParams,
    state: LaneStateRow,
    lastCallAt: number | null,
  ): Promise<LaneOutcome> {
    const read = await readAndPlan(params, state, lastCallAt);
    const skipped = skippedOutcome(state, read);
    if (read.plan.steps.length === 0) return skipped;
    // Summarize with no transaction open: the LLM call may take seconds.
    const made = await summarizeLeaving(params, state, read);
    await params.beforeCommit?.(state.laneKey);
    const done: LaneCompaction = {
      read,
      made,
      survival: summarySurvival(made),
      afterTokens:
        read.plan.afterViewTokens + summaryTokens(made.summary ? made.summary.text : state.summary),
    };
    const written = await commitCompaction(params, state, done);
    countSummarizer(params.tenantId, made.summary);
    return laneOutcome(skipped, done, written);
  }

  /** Reads the lane's verbatim view and plans its compaction (clear → summarize → truncate). */
  async function readAndPlan(
    params: LaneParams,
    state: LaneStateRow,
    lastCallAt: number | null,
  ): Promise<LaneRead> {
    const { tenantId, sessionId } = params;
    const keptRows = await repo.laneTurns({
      tenantId,
      sessionId,
      laneKey: state.laneKey,
      fromSeq: state.firstKeptSeq,
    });
    const kept = keptRows.map(toLaneEntry);
    const purge = state.purgeTexts ?? [];
    const plan: LanePlan = planLane({
      lane: state,
      entries: kept,
      now: clock.now().getTime(),
      lastCallAt,
      effectiveWindow: params.effectiveWindow ?? deps.defaultEffectiveWindow,
      force: params.force ?? false,
      budgetForces: params.budgetForces ?? false,
      ...(params.viewChange ? { viewChange: params.viewChange } : {}),
      // A deleted text in the verbatim view: the view starts after its last entry.
      minFirstKeptSeq: purge.length > 0 ? purgeCut(kept, purge, state.firstKeptSeq) : state.firstKeptSeq,
      estimator: deps.estimator,
      settings: deps.settings,
    });
    return { keptRows, kept, purge, plan, beforeTokens: plan.beforeTokens + summaryTokens(state.summary) };
  }

  /**
   * Summarizes the entries that leave the view (nothing when the plan does not summarize). A stale
   * summary (an edit or delete of what it covers) is rebuilt from the entries it covered, not
   * updated; the summarizer reads each turn that is a channel message as the message is now, and
   * every text deleted from the lane (now or before) scrubbed.
   */
  async function summarizeLeaving(
    params: LaneParams,
    state: LaneStateRow,
    read: LaneRead,
  ): Promise<LaneSummary> {
    const { plan, purge, beforeTokens } = read;
    const summarizeBeforeSeq = plan.summarizeBeforeSeq;
    if (summarizeBeforeSeq === null) return { summary: null, summarized: [], covered: [] };
    const { tenantId, sessionId } = params;
    const laneKey = state.laneKey;
    const rebuild = state.summaryStale || purge.length > 0;
    const scrub = [...new Set([...purge, ...(state.scrubTexts ?? [])])];
    const older = scrubEntries(
      (await repo.laneTurns({ tenantId, sessionId, laneKey, fromSeq: 0, toSeq: state.firstKeptSeq })).map(
        asSaidNow,
      ),
      scrub,
    );
    const leaving = scrubEntries(
      read.keptRows.filter((r) => r.seq < summarizeBeforeSeq).map(asSaidNow),
      scrub,
    );
    const summarized = rebuild ? [...older, ...leaving] : leaving;
    // The lane never grows: the new summary may take at most what leaves the view plus the old
    // summary's room, and at most its share of the window it is sent within.
    const room = Math.max(0, beforeTokens - plan.afterViewTokens);
    const window = params.effectiveWindow ?? deps.defaultEffectiveWindow;
    const target = Math.min(room, Math.floor(deps.settings.summaryWindowShare * window));
    let summary = await deps.summarizerFor(tenantId).summarize({
      laneKey,
      previousSummary: rebuild ? null : state.summary,
      entries: summarized,
      targetTokens: target,
      speakers: { assistant: params.agentId },
    });
    // Redaction or an estimate off by a few tokens: fitted again so the lane still cannot grow. A
    // refit (nothing left the view: a summary written for a larger window) is fitted to its target.
    const limit = summarized.length === 0 ? target : room;
    if (summaryTokens(summary.text) > limit) {
      summary = { ...summary, text: fitSummaryText(summary.text, limit, deps.estimator) };
    }
    return { summary, summarized, covered: [...older, ...leaving] };
  }

  /**
   * One short transaction: the lane's new state by compare-and-set on its version (nothing when
   * another change moved it meanwhile), its compaction record, and the new summary as a memory.
   */
  async function commitCompaction(
    params: LaneParams,
    state: LaneStateRow,
    done: LaneCompaction,
  ): Promise<LaneCommitted> {
    const { tenantId, sessionId } = params;
    const laneKey = state.laneKey;
    const { plan } = done.read;
    const { summary } = done.made;
    const now = clock.now();
    return deps.db.transaction(async (tx) => {
      const committed = await deps.lanes.commitLane(
        {
          tenantId,
          sessionId,
          laneKey,
          expectedVersion: state.version,
          summary: summary ? summary.text : state.summary,
          newSummary: summary !== null,
          summarizedThroughSeq: summary ? plan.summarizeBeforeSeq! - 1 : state.summarizedThroughSeq,
          firstKeptSeq: plan.firstKeptSeq,
          clearedBeforeSeq: plan.clearedBeforeSeq,
          at: now,
        },
        tx,
      );
      if (!committed) return null;
      const record = compactionRecord(params.trigger, state, committed, done);
      const seq = await repo.appendRecord({ tenantId, sessionId, laneKey, record, at: now }, tx);
      if (summary && committed.summary) {
        await repo.upsertLaneSummaryMemory(
          {
            tenantId,
            id: deps.ids.next(),
            sessionKey: params.sessionKey,
            laneKey,
            text: committed.summary,
            metadata: {
              lane_key: laneKey,
              summary_version: committed.summaryVersion,
              updated_at_ms: now.getTime(),
              message_range: { from: record.covers?.from_seq ?? 0, to: record.covers?.through_seq ?? 0 },
            },
            at: now,
          },
          tx,
        );
      }
      return { committed, seq };
    });
  }

  /** The summarizer's metrics: a fallback by its reason's kind, and the tokens it read and wrote. */
  function countSummarizer(tenantId: string, summary: SummaryResult | null) {
    if (!summary) return;
    if (summary.fallbackReason) deps.metrics.fallbacks.inc({ reason: summary.fallbackReason.split(':')[0] });
    deps.metrics.summarizerTokens.inc({ tenant: tenantId, direction: 'input' }, summary.usage.inputTokens);
    deps.metrics.summarizerTokens.inc({ tenant: tenantId, direction: 'output' }, summary.usage.outputTokens);
  }

  const service = {
    /**
     * 404 for an unknown (or another tenant's) session. Whether a compaction of it runs now is the
     * lock's answer (a crashed holder's marker row does not count); its age comes from the marker.
     */
    async running({ tenantId, sessionId }: { tenantId: string; sessionId: string }) {
      const session = await deps.sessions.findById({ tenantId, id: sessionId });
      if (!session) throw compactionSessionNotFound(sessionId);
      const probe = await deps.locks.acquire(lockResource(tenantId, sessionId), {
        tenantId,
        ttlMs: deps.lockTtlMs,
      });
      if (probe) {
        await probe.release();
        return { running: false, holderAgeMs: null };
      }
      const since = await repo.runningSince({ tenantId, sessionId });
      return {
        running: true,
        holderAgeMs: since ? Math.max(0, clock.now().getTime() - since.getTime()) : null,
      };
    },

    /** The lane's state; with `expand`, a page of the original entries its summary covers. */
    async laneView(params: {
      tenantId: string;
      sessionId: string;
      laneKey: string;
      expand: boolean;
      limit: number;
      after?: number;
    }): Promise<LaneView> {
      const { tenantId, sessionId, laneKey } = params;
      const reads = deps.laneViewReads ?? { sessions: deps.sessions, lanes: deps.lanes, repo };
      const session = await reads.sessions.findById({ tenantId, id: sessionId });
      if (!session) throw compactionSessionNotFound(sessionId);
      const [state, sizes, compactions] = await Promise.all([
        reads.lanes.getLaneState({ tenantId, sessionId, laneKey }),
        reads.lanes.laneSizes({ tenantId, sessionId, laneKeys: [laneKey] }),
        reads.repo.recordCount({ tenantId, sessionId, laneKey }),
      ]);
      if (!state && sizes.length === 0) throw laneNotFound(laneKey);
      const through = state?.summarizedThroughSeq ?? 0;
      let expanded: LaneView['expanded'] = null;
      if (params.expand) {
        const rows = await reads.repo.laneTurns({
          tenantId,
          sessionId,
          laneKey,
          fromSeq: (params.after ?? 0) + 1,
          toSeq: through + 1,
          limit: params.limit + 1,
        });
        const page = rows.slice(0, params.limit);
        expanded = {
          entries: page.map((e) => ({
            seq: e.seq,
            role: e.role,
            kind: e.kind,
            content: e.content,
            created_at: e.createdAt.toISOString(),
          })),
          next_cursor: rows.length > params.limit ? page[page.length - 1]!.seq : null,
        };
      }
      return {
        session_id: sessionId,
        lane_key: laneKey,
        summary: state?.summary ?? null,
        summary_version: state?.summaryVersion ?? 0,
        summary_updated_at: state?.summaryUpdatedAt?.toISOString() ?? null,
        summary_stale: state?.summaryStale ?? false,
        summarized_through_seq: through,
        first_kept_seq: state?.firstKeptSeq ?? 0,
        cleared_before_seq: state?.clearedBeforeSeq ?? 0,
        version: state?.version ?? 0,
        purge_pending: (state?.purgeTexts?.length ?? 0) > 0,
        kept_entries: sizes[0]?.entries ?? 0,
        kept_tokens: sizes[0]?.tokens ?? 0,
        compactions,
        expanded,
      };
    },

    /** Runs the chain for the session's lanes; 404 for another tenant's session, 409 when one runs. */
    async compact(params: CompactParams): Promise<CompactResult> {
      const { tenantId, sessionId } = params;
      const session = await deps.sessions.findById({ tenantId, id: sessionId });
      if (!session) throw compactionSessionNotFound(sessionId);
      const started = process.hrtime.bigint();
      const resource = lockResource(tenantId, sessionId);
      const lock = await deps.locks.acquire(resource, {
        tenantId,
        ttlMs: deps.lockTtlMs,
        waitMs: params.wait ? deps.waitMs : 0,
      });
      if (!lock) {
        deps.metrics.lockContention.inc();
        const since = await repo.runningSince({ tenantId, sessionId });
        throw compactionRunning(sessionId, since ? clock.now().getTime() - since.getTime() : null);
      }
      const token = randomUUID();
      try {
        await repo.claimRun({ tenantId, sessionId, token, at: clock.now() });
        const sizes = await deps.lanes.laneSizes({ tenantId, sessionId, laneKeys: params.laneKeys });
        const lastCallAt = await repo.lastCallAt({ tenantId, sessionId });
        const lanes: LaneOutcome[] = [];
        for (const size of sizes) {
          const state = await deps.lanes.ensureLaneState({
            tenantId,
            sessionId,
            laneKey: size.laneKey,
            at: clock.now(),
          });
          const outcome = await compactLane(
            { ...params, sessionKey: session.sessionKey, agentId: session.agentId ?? null },
            state,
            lastCallAt,
          );
          for (const strategy of outcome.strategies_run.length > 0 ? outcome.strategies_run : ['none']) {
            deps.metrics.compactions.inc({ strategy, outcome: outcome.outcome });
          }
          lanes.push(outcome);
        }
        const sum = (key: 'before_tokens' | 'after_tokens' | 'before_messages' | 'after_messages') =>
          lanes.reduce((total, lane) => total + lane[key], 0);
        return {
          session_id: sessionId,
          before_tokens: sum('before_tokens'),
          after_tokens: sum('after_tokens'),
          before_messages: sum('before_messages'),
          after_messages: sum('after_messages'),
          strategies_run: [...new Set(lanes.flatMap((l) => l.strategies_run))],
          lanes,
        };
      } finally {
        await repo.releaseRun({ tenantId, sessionId, token }).catch(() => {});
        await lock.release();
        deps.metrics.duration.observe(
          { trigger: params.trigger },
          Number(process.hrtime.bigint() - started) / 1e9,
        );
      }
    },
  };
  return {
    ...service,
    compact: (params: CompactParams) =>
      traced('compaction', () => service.compact(params), {
        attributes: { 'contextd.trigger': params.trigger },
      }),
  };
}

export type CompactionService = ReturnType<typeof createCompactionService>;

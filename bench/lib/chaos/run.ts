// The chaos run: delivers a seeded event history 1–4 times per event, shuffled, in batches across
// contextd instances, retrying what was not acknowledged, while faults are injected on a schedule
// (kill -9 and restart an instance, SIGSTOP an instance, pg_terminate_backend, SIGSTOP the
// postmaster, kill and restart Redis); then compares what is stored with the final state the
// ingest state machine gives for the acknowledged events applied once each, in order.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { DEFAULT_LOCK_TTL_MS } from '../../../src/coord/lock.js';
import { openDatabase } from '../../../src/db/client.js';
import { runMigrations } from '../../../src/db/migrate.js';
import type { ChannelEvent } from '../../../src/shared/channel-events.js';
import type { MessageState } from '../../../src/modules/channels/core/ingest-apply.js';
import { rng } from '../measure.js';
import { ChaosCluster, sleep, type Instance, type StartFailure, type UnplannedExit } from './cluster.js';
import { chaosHistory, expectedState } from './events.js';

export const FAULT_KINDS = [
  'kill-instance',
  'pause-instance',
  'pg-terminate',
  'pg-pause',
  'redis-restart',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ChaosOptions {
  events: number;
  faults: number;
  seed: number;
  instances?: number;
  /** Batches in flight at once. */
  concurrency?: number;
  /** Largest batch (batches hold 1…maxBatch deliveries). */
  maxBatch?: number;
  /** How long a paused instance stays stopped; default: past the lock TTL. */
  instancePauseMs?: number;
  /** How long the postmaster stays stopped. */
  postgresPauseMs?: number;
  /** Per-request timeout; an instance that does not answer in time is retried elsewhere. */
  requestTimeoutMs?: number;
  /** The whole run (delivery and faults) stops retrying after this. */
  deadlineMs?: number;
  /** Keep process logs here (otherwise they go with the temp dir). */
  logDir?: string;
  progress?: (line: string) => void;
}

export const WRONG_STATE_KINDS = [
  'missing rows',
  'extra rows',
  'placeholders',
  'deletes',
  'edits',
  'reactions',
  'reactions of deleted',
  'reply counts',
  'lanes',
] as const;
export type WrongStateKind = (typeof WRONG_STATE_KINDS)[number];

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  atBatch: number;
  ms: number;
  error?: string;
}

export interface ChaosReport {
  options: Required<Omit<ChaosOptions, 'logDir' | 'progress'>>;
  events: number;
  deliveries: number;
  batches: number;
  requests: number;
  acked: number;
  notAcked: number;
  stored: number;
  lost: number;
  lostSamples: string[];
  /** Counters above the history's (reactions, reply counts): what a delivery applied twice looks like. */
  duplicated: number;
  wrong: Record<WrongStateKind, number>;
  wrongSamples: Partial<Record<WrongStateKind, string[]>>;
  /** Instances that exited on their own (crashed) and were restarted by the harness. */
  unplannedExits: UnplannedExit[];
  /** Starts that ended before /healthz answered (a lost port race is retried on a new port). */
  startFailures: StartFailure[];
  /** Messages left out of the comparison because an unacknowledged event touched them. */
  unverifiable: number;
  /** Responses by status (`network`, `timeout` for no response). */
  statuses: Record<string, number>;
  /** 5xx replies by status and by the fault active when they came (`none`, `<kind> (after)`). */
  serverErrorsByFault: Record<string, Record<string, number>>;
  faults: FaultRecord[];
  seconds: number;
}

const TENANT = 'chaos';

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const bump = (record: Record<string, number>, key: string, by = 1) => {
  record[key] = (record[key] ?? 0) + by;
};

export async function runChaos(input: ChaosOptions): Promise<ChaosReport> {
  const options = {
    instances: 3,
    concurrency: 8,
    maxBatch: 20,
    instancePauseMs: DEFAULT_LOCK_TTL_MS + 2_000,
    postgresPauseMs: 1_500,
    requestTimeoutMs: 5_000,
    deadlineMs: 600_000,
    ...input,
  };
  const { progress = () => {} } = input;
  const started = Date.now();
  const deadline = started + options.deadlineMs;
  const random = rng(options.seed);
  const history = chaosHistory(options.events, options.seed);
  const deliveries = shuffle(
    history.flatMap((_, i) => Array.from({ length: 1 + Math.floor(random() * 4) }, () => i)),
    random,
  );
  const batches: number[][] = [];
  for (let at = 0; at < deliveries.length;) {
    const size = 1 + Math.floor(random() * options.maxBatch);
    batches.push(deliveries.slice(at, at + size));
    at += size;
  }
  const faultAt = Array.from({ length: options.faults }, (_, i) =>
    Math.floor(((i + 1) * batches.length) / (options.faults + 1)),
  );
  // Every kind in turn, from a seeded first one: F ≥ 5 faults include each kind.
  const firstKind = Math.floor(random() * FAULT_KINDS.length);
  const faultKinds = faultAt.map((_, i) => FAULT_KINDS[(firstKind + i) % FAULT_KINDS.length]!);

  const apiKey = `ctxd_chaos_${randomBytes(12).toString('hex')}`;
  const cluster = new ChaosCluster({
    instances: options.instances,
    apiKey,
    tenantId: TENANT,
    ...(input.logDir ? { logDir: input.logDir } : {}),
  });
  const acked = new Array<boolean>(history.length).fill(false);
  const statuses: Record<string, number> = {};
  const serverErrorsByFault: Record<string, Record<string, number>> = {};
  const faults: FaultRecord[] = [];
  let requests = 0;
  let activeFault: FaultKind | null = null;
  let lastFault: { kind: FaultKind; endedAt: number } | null = null;
  let faultsStarted = 0;
  let nextBatch = 0;

  const faultLabel = () =>
    activeFault ??
    (lastFault && Date.now() - lastFault.endedAt < 5_000 ? `${lastFault.kind} (after)` : 'none');

  async function deliver(batchIndex: number): Promise<void> {
    const body = JSON.stringify({ events: batches[batchIndex]!.map((i) => history[i]) });
    for (let attempt = 0; Date.now() < deadline; attempt += 1) {
      const instance = cluster.instances[Math.floor(random() * cluster.instances.length)]!;
      let status: string;
      try {
        requests += 1;
        const response = await fetch(`${instance.url}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(options.requestTimeoutMs),
        });
        await response.arrayBuffer();
        status = String(response.status);
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        status = (error as Error).name === 'TimeoutError' ? 'timeout' : `network ${cause ?? 'error'}`;
      }
      bump(statuses, status);
      if (status === '200') {
        for (const i of batches[batchIndex]!) acked[i] = true;
        return;
      }
      if (status.startsWith('5')) bump((serverErrorsByFault[status] ??= {}), faultLabel());
      // A 4xx other than 429 says the batch itself is wrong: sending it again cannot help.
      if (status.startsWith('4') && status !== '429') return;
      await sleep(Math.min(2_000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + random()));
    }
  }

  async function injectFault(index: number): Promise<void> {
    const kind = faultKinds[index]!;
    await cluster.settled();
    const instance: Instance = cluster.instances[Math.floor(random() * cluster.instances.length)]!;
    const record: FaultRecord = { kind, target: '', atBatch: faultAt[index]!, ms: 0 };
    const t0 = Date.now();
    activeFault = kind;
    try {
      switch (kind) {
        case 'kill-instance':
          record.target = `instance ${instance.index}`;
          await cluster.killInstance(instance);
          await sleep(200);
          await cluster.startInstance(instance);
          break;
        case 'pause-instance':
          record.target = `instance ${instance.index}`;
          cluster.pauseInstance(instance);
          await sleep(options.instancePauseMs);
          cluster.resumeInstance(instance);
          break;
        case 'pg-terminate': {
          const admin = postgres(cluster.adminUrl, { max: 1, onnotice: () => {} });
          try {
            const [row] = await admin<{ n: number }[]>`
              select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
              where datname = 'contextd' and pid <> pg_backend_pid()`;
            record.target = `${row?.n ?? 0} backends`;
          } finally {
            await admin.end({ timeout: 2 });
          }
          break;
        }
        case 'pg-pause':
          record.target = `postmaster ${cluster.postmasterPid}`;
          cluster.pausePostgres();
          await sleep(options.postgresPauseMs);
          cluster.resumePostgres();
          break;
        case 'redis-restart':
          record.target = 'redis';
          await cluster.killRedis();
          await sleep(500);
          await cluster.startRedis();
          break;
      }
    } catch (error) {
      record.error = (error as Error).message;
    } finally {
      record.ms = Date.now() - t0;
      faults.push(record);
      activeFault = null;
      lastFault = { kind, endedAt: Date.now() };
      progress(`fault ${index + 1}/${faultAt.length}: ${kind} ${record.target} (${record.ms} ms)`);
    }
  }

  async function faultLoop(): Promise<void> {
    for (let i = 0; i < faultAt.length; i += 1) {
      while (nextBatch <= faultAt[i]! && Date.now() < deadline) await sleep(20);
      faultsStarted = i + 1;
      await injectFault(i);
    }
    faultsStarted = faultAt.length;
  }

  async function worker(): Promise<void> {
    for (;;) {
      const k = nextBatch;
      if (k >= batches.length) return;
      nextBatch += 1;
      // Batches past a fault's place wait until that fault has begun, so every fault meets traffic.
      while (faultsStarted < faultAt.length && faultAt[faultsStarted]! < k && Date.now() < deadline)
        await sleep(20);
      await deliver(k);
      if (k % 100 === 0) progress(`batch ${k}/${batches.length}`);
    }
  }

  try {
    progress(`starting PostgreSQL, Redis and ${options.instances} instances in ${cluster.dir}`);
    await cluster.startBackends();
    const database = await openDatabase({ databaseUrl: cluster.databaseUrl, dataDir: '' });
    try {
      await runMigrations(database);
    } finally {
      await database.close();
    }
    await cluster.startInstances();
    progress(
      `delivering ${history.length} events as ${deliveries.length} deliveries in ${batches.length} batches, ${faultAt.length} faults`,
    );
    await Promise.all([faultLoop(), ...Array.from({ length: options.concurrency }, () => worker())]);
    const verdict = await verify(cluster, history, acked);
    return {
      options: (({ logDir: _l, progress: _p, ...rest }) => rest)(options),
      events: history.length,
      deliveries: deliveries.length,
      batches: batches.length,
      requests,
      ...verdict,
      statuses,
      serverErrorsByFault,
      faults,
      unplannedExits: cluster.unplannedExits,
      startFailures: cluster.startFailures,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await cluster.stop();
  }
}

interface StoredRow {
  channel_id: string;
  message_id: string;
  lane_key: string;
  text: string;
  reactions: Record<string, number>;
  reply_count: number;
  edited_at: Date | null;
  deleted_at: Date | null;
  is_placeholder: boolean;
}

async function verify(cluster: ChaosCluster, history: ChannelEvent[], acked: boolean[]) {
  const sql = postgres(cluster.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    // Requests that timed out on the client may still be running in an instance: let them end.
    for (let quiet = 0, until = Date.now() + 30_000; quiet < 2 && Date.now() < until;) {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = 'contextd' and pid <> pg_backend_pid() and state <> 'idle' and query ilike '%channel%'`;
      quiet = row?.n === 0 ? quiet + 1 : 0;
      await sleep(250);
    }
    const rows = await sql<StoredRow[]>`
      select channel_id, message_id, lane_key, text, reactions, reply_count, edited_at, deleted_at, is_placeholder
      from channel_messages where tenant_id = ${TENANT}`;
    const ids = new Set(
      (await sql<{ event_id: string }[]>`select event_id from ingest_events where tenant_id = ${TENANT}`).map(
        (r) => r.event_id,
      ),
    );
    const stored = new Map(rows.map((r) => [`${r.channel_id}/${r.message_id}`, r]));
    const ackedEvents = history.filter((_, i) => acked[i]);
    const expected = expectedState(ackedEvents);
    const unverifiable = new Set(
      history.filter((_, i) => !acked[i]).map((e) => `${e.channel_id}/${e.message_id}`),
    );

    let storedCount = 0;
    const lostSamples: string[] = [];
    for (const event of ackedEvents) {
      const row = stored.get(`${event.channel_id}/${event.message_id}`);
      const isStored = event.event_id
        ? ids.has(event.event_id)
        : row !== undefined && (event.type !== 'message.created' || !row.is_placeholder);
      if (isStored) storedCount += 1;
      else if (lostSamples.length < 10) lostSamples.push(JSON.stringify(event));
    }

    const wrong = Object.fromEntries(WRONG_STATE_KINDS.map((k) => [k, 0])) as Record<WrongStateKind, number>;
    const wrongSamples: Partial<Record<WrongStateKind, string[]>> = {};
    const flag = (kind: WrongStateKind, key: string, want: unknown, got: unknown) => {
      wrong[kind] += 1;
      const samples = (wrongSamples[kind] ??= []);
      if (samples.length < 5)
        samples.push(`${key}: expected ${JSON.stringify(want)}, stored ${JSON.stringify(got)}`);
    };
    let duplicated = 0;
    for (const [key, want] of expected) {
      if (unverifiable.has(key)) continue;
      const got = stored.get(key);
      if (!got) {
        flag('missing rows', key, want.isPlaceholder ? 'placeholder' : 'message', null);
        continue;
      }
      compareMessage(key, want, got, flag);
      for (const [name, n] of Object.entries(got.reactions ?? {}))
        duplicated += Math.max(0, n - (want.reactions[name] ?? 0));
      duplicated += Math.max(0, got.reply_count - want.replyCount);
    }
    for (const key of stored.keys()) {
      if (!expected.has(key) && !unverifiable.has(key)) flag('extra rows', key, null, 'row');
    }
    const lost = ackedEvents.length - storedCount;
    return {
      acked: ackedEvents.length,
      notAcked: history.length - ackedEvents.length,
      stored: storedCount,
      lost,
      lostSamples,
      duplicated,
      wrong,
      wrongSamples,
      unverifiable: unverifiable.size,
    };
  } finally {
    await sql.end({ timeout: 2 });
  }
}

const sortedJson = (value: Record<string, number>) =>
  JSON.stringify(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const msOf = (d: Date | null) => (d === null ? null : new Date(d).getTime());

function compareMessage(
  key: string,
  want: MessageState,
  got: StoredRow,
  flag: (kind: WrongStateKind, key: string, want: unknown, got: unknown) => void,
): void {
  if (want.isPlaceholder !== got.is_placeholder)
    flag('placeholders', key, want.isPlaceholder, got.is_placeholder);
  const wantDeleted = want.deletedAt !== null;
  if (wantDeleted !== (got.deleted_at !== null)) flag('deletes', key, wantDeleted, got.deleted_at !== null);
  if (!wantDeleted && (want.text !== got.text || want.editedAt !== msOf(got.edited_at)))
    flag('edits', key, [want.text, want.editedAt], [got.text, msOf(got.edited_at)]);
  // A deleted message is never shown, but its reactions still tell whether ingest converged.
  if (sortedJson(want.reactions) !== sortedJson(got.reactions ?? {}))
    flag(wantDeleted ? 'reactions of deleted' : 'reactions', key, want.reactions, got.reactions);
  if (want.replyCount !== got.reply_count) flag('reply counts', key, want.replyCount, got.reply_count);
  if (want.laneKey !== got.lane_key) flag('lanes', key, want.laneKey, got.lane_key);
}

/** The report as a plain table. */
export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  const row = (label: string, value: string | number) => lines.push(`${label.padEnd(34)} ${value}`);
  const o = report.options;
  row('seed / instances / concurrency', `${o.seed} / ${o.instances} / ${o.concurrency}`);
  row('events (history)', report.events);
  row(
    'deliveries (1–4 per event)',
    `${report.deliveries} in ${report.batches} batches, ${report.requests} requests`,
  );
  row('acked', report.acked);
  row('not acked (gave up)', report.notAcked);
  row('stored (of acked)', report.stored);
  row('lost (acked, not stored)', report.lost);
  row('duplicated (excess counts)', report.duplicated);
  for (const kind of WRONG_STATE_KINDS) row(`wrong final state: ${kind}`, report.wrong[kind]);
  row('messages not compared (unacked)', report.unverifiable);
  row(
    'responses by status',
    Object.entries(report.statuses)
      .sort()
      .map(([s, n]) => `${s}: ${n}`)
      .join(', '),
  );
  const errors = Object.entries(report.serverErrorsByFault);
  if (errors.length === 0) row('5xx by fault', 'none');
  for (const [status, byFault] of errors.sort()) {
    row(
      `${status} by fault`,
      Object.entries(byFault)
        .sort()
        .map(([f, n]) => `${f}: ${n}`)
        .join(', '),
    );
  }
  const byKind: Record<string, number> = {};
  for (const f of report.faults) bump(byKind, f.error ? `${f.kind} (failed)` : f.kind);
  row(
    `faults (${report.faults.length})`,
    Object.entries(byKind)
      .map(([k, n]) => `${k}: ${n}`)
      .join(', '),
  );
  for (const f of report.faults.filter((x) => x.error)) row(`  fault error: ${f.kind}`, f.error!);
  row('instance crashes (restarted)', report.unplannedExits.length);
  row('instance starts retried', report.startFailures.length);
  row('seconds', report.seconds.toFixed(1));
  for (const exit of report.unplannedExits) {
    lines.push(`  crash: instance ${exit.instance} exit ${exit.code ?? exit.signal}: ${exit.lastError}`);
  }
  for (const failure of report.startFailures) {
    lines.push(`  start failed: instance ${failure.instance}, attempt ${failure.attempt}: ${failure.tail}`);
  }
  for (const sample of report.lostSamples) lines.push(`  lost: ${sample}`);
  for (const [kind, samples] of Object.entries(report.wrongSamples)) {
    for (const sample of samples ?? []) lines.push(`  wrong ${kind}: ${sample}`);
  }
  return lines.join('\n');
}

/**
 * A run fails on a lost acknowledged event, a 500, a duplicate, a final state that differs from
 * in-order delivery, or an instance that crashed; a 503 during a fault is fine.
 */
export function chaosFailed(report: ChaosReport): boolean {
  return (
    report.lost > 0 ||
    (report.statuses['500'] ?? 0) > 0 ||
    report.duplicated > 0 ||
    Object.values(report.wrong).some((n) => n > 0) ||
    report.unplannedExits.length > 0
  );
}

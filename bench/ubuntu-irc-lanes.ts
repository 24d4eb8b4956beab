// Ubuntu IRC lane check (issue 3): feed the annotated #ubuntu excerpts through ingest with
// reply_to_id = each message's earliest annotated parent (as a platform with reply links would),
// then compare the lanes contextd derived with the annotated conversations. Data is read from
// ../shared/data/ubuntu-irc/dev (not in the repository); the script says so and exits if absent.
//
//   npm run bench:irc-lanes                       (PGlite in memory)
//   DATABASE_URL=… npm run bench:irc-lanes        (database contextd_bench_irc)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { ChannelEvent } from '../src/shared/channel-events.js';
import { replyLaneRoot } from '../src/modules/channels/core/lanes.js';
import { createTokenEstimator } from '../src/shared/tokens.js';
import { queryRows } from '../src/db/client.js';
import { createChannelsRepository } from '../src/modules/channels/channels.repository.js';
import { createIngestService } from '../src/modules/channels/ingest.service.js';
import { openBenchDatabase } from './lib/channel-fixture.js';
import { arg, int, machineLine, printTable } from './lib/measure.js';

const DATA = arg('data') ?? join(import.meta.dirname, '../../shared/data/ubuntu-irc/dev');
const TENANT = `irc_${Date.now()}`;

interface Excerpt {
  name: string;
  events: ChannelEvent[];
  /** annotated line → conversation representative */
  conversation: Map<number, number>;
}

function find(parent: Map<number, number>, x: number): number {
  let root = x;
  while (parent.get(root) !== root) root = parent.get(root)!;
  let node = x;
  while (parent.get(node) !== root) {
    const next = parent.get(node)!;
    parent.set(node, root);
    node = next;
  }
  return root;
}

function readExcerpt(name: string): Excerpt {
  const lines = readFileSync(join(DATA, `${name}.ascii.txt`), 'utf8').split('\n');
  const links = readFileSync(join(DATA, `${name}.annotation.txt`), 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((p) => p.length >= 2 && /^\d+$/.test(p[0]!) && /^\d+$/.test(p[1]!))
    .map(([a, b]) => [Number(a), Number(b)] as const);
  const parents = new Map<number, number[]>();
  const uf = new Map<number, number>();
  for (const [parent, child] of links) {
    for (const x of [parent, child]) if (!uf.has(x)) uf.set(x, x);
    uf.set(find(uf, parent), find(uf, child));
    if (parent !== child) parents.set(child, [...(parents.get(child) ?? []), parent]);
  }
  const [date] = name.split('_');
  let minutes = 0;
  const events: ChannelEvent[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const match = /^\[(\d\d):(\d\d)\] <([^>]+)> ?(.*)$/.exec(line);
    if (match) minutes = Number(match[1]) * 60 + Number(match[2]);
    const ts = new Date(Date.parse(`${date}T00:00:00Z`) + minutes * 60_000 + i).toISOString();
    const earliest = Math.min(...(parents.get(i) ?? []));
    events.push({
      type: 'message.created',
      platform: 'irc',
      channel_id: name,
      message_id: `L${i}`,
      ts,
      author: match ? { id: match[3]!, name: match[3]! } : { id: 'system', name: 'system', is_bot: true },
      text: match ? match[4]! : line,
      ...(Number.isFinite(earliest) ? { reply_to_id: `L${earliest}` } : {}),
    });
  });
  const conversation = new Map<number, number>();
  for (const x of uf.keys()) conversation.set(x, find(uf, x));
  return { name, events, conversation };
}

async function main(): Promise<void> {
  if (!existsSync(DATA)) {
    console.log(`Ubuntu IRC data not found at ${DATA}: skipping the lane check.`);
    return;
  }
  const names = readdirSync(DATA)
    .filter((f) => f.endsWith('.annotation.txt'))
    .map((f) => f.replace('.annotation.txt', ''))
    .sort();
  const database = await openBenchDatabase('contextd_bench_irc');
  const ingest = createIngestService({
    db: database.db,
    channels: createChannelsRepository(database.db),
    clock: { now: () => new Date(0) },
    estimator: createTokenEstimator(),
  });
  const rows: Record<string, string | number>[] = [];
  const totals = { conversations: 0, multi: 0, oneLane: 0, multiOneLane: 0, messages: 0, seconds: 0 };
  for (const name of names) {
    const excerpt = readExcerpt(name);
    const t0 = performance.now();
    for (let i = 0; i < excerpt.events.length; i += 500) {
      await ingest.ingest({ tenantId: TENANT, events: excerpt.events.slice(i, i + 500) });
    }
    totals.seconds += (performance.now() - t0) / 1000;
    totals.messages += excerpt.events.length;
    const stored = await queryRows<{ message_id: string; lane_key: string }>(
      database.db,
      sql`select message_id, lane_key from channel_messages where tenant_id = ${TENANT} and channel_id = ${name}`,
    );
    const lane = new Map(stored.map((r) => [Number(r.message_id.slice(1)), r.lane_key]));
    // A chain's first message sits in the channel's root lane; its chain is `reply:…:{it}`.
    const chainRoots = new Set(stored.flatMap((r) => replyLaneRoot(r.lane_key, name) ?? []));
    const effective = (line: number) =>
      chainRoots.has(`L${line}`) ? `reply:${name}:L${line}` : lane.get(line);
    const byConversation = new Map<number, Set<string | undefined>>();
    const sizes = new Map<number, number>();
    for (const [line, conv] of excerpt.conversation) {
      const set = byConversation.get(conv) ?? new Set();
      set.add(effective(line));
      byConversation.set(conv, set);
      sizes.set(conv, (sizes.get(conv) ?? 0) + 1);
    }
    let one = 0;
    let multi = 0;
    let multiOne = 0;
    for (const [conv, lanes] of byConversation) {
      if (lanes.size === 1) one += 1;
      if (sizes.get(conv)! > 1) {
        multi += 1;
        if (lanes.size === 1) multiOne += 1;
      }
    }
    totals.conversations += byConversation.size;
    totals.oneLane += one;
    totals.multi += multi;
    totals.multiOneLane += multiOne;
    rows.push({
      excerpt: name,
      messages: excerpt.events.length,
      conversations: byConversation.size,
      'in one lane': `${((100 * one) / byConversation.size).toFixed(1)}%`,
      'conversations ≥2 msgs': multi,
      '≥2 msgs in one lane': `${((100 * multiOne) / Math.max(1, multi)).toFixed(1)}%`,
    });
  }
  rows.push({
    excerpt: 'all',
    messages: totals.messages,
    conversations: totals.conversations,
    'in one lane': `${((100 * totals.oneLane) / totals.conversations).toFixed(1)}%`,
    'conversations ≥2 msgs': totals.multi,
    '≥2 msgs in one lane': `${((100 * totals.multiOneLane) / Math.max(1, totals.multi)).toFixed(1)}%`,
  });
  printTable(`Ubuntu IRC lane check (${database.kind})`, rows);
  console.log(
    `\ningest of ${int(totals.messages)} real messages in batches of 500: ${int(totals.messages / totals.seconds)} events/s (service call, no HTTP)`,
  );
  console.log(machineLine());
  await database.close();
}

await main();

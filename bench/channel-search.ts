// Channel read benchmarks (issue 3): channel search (the `channel_context` service) and the
// snapshot + thread loader (what assembly attaches) at 10k and 1M stored messages, beside the
// floors measured in the same run: Fastify returning a constant, and Fastify doing one
// primary-key read of channel_messages (both through app.inject, like the measured calls'
// callers would be; the services themselves are called directly).
//
//   npm run bench:channel-search                                   (PGlite in memory, 10k)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:channel-search
//       (database contextd_bench_channels, 10k and 1M; seeded once and reused, --reset reseeds)
//   … -- --sizes 10000,100000 --runs 300
import { performance } from 'node:perf_hooks';
import { createTokenEstimator } from '../src/shared/tokens.js';
import { createChannelsRepository } from '../src/modules/channels/channels.repository.js';
import { createChannelSearchService } from '../src/modules/channels/channel-search.service.js';
import { createChannelsService } from '../src/modules/channels/channels.service.js';
import { arg, floorApp, latency, latencyRow, machineLine, printTable, rng } from './lib/measure.js';
import {
  BENCH_PLATFORM,
  BENCH_TENANT,
  benchMessageId,
  channelSize,
  openBenchDatabase,
  seedChannel,
  vacuumAnalyze,
  TOPICAL,
  vocabulary,
} from './lib/channel-fixture.js';

const SEED_CHUNK = 100_000;

async function main(): Promise<void> {
  const onPostgres = Boolean(process.env.DATABASE_URL);
  const sizes = (arg('sizes') ?? (onPostgres ? '10000,1000000' : '10000')).split(',').map(Number);
  const runs = Number(arg('runs') ?? 300);
  const database = await openBenchDatabase('contextd_bench_channels');
  const channels = createChannelsRepository(database.db);
  const search = createChannelSearchService({
    channels,
    clock: { now: () => new Date(Date.UTC(2026, 0, 1)) },
  });
  const reads = createChannelsService({ channels, estimator: createTokenEstimator() });
  const floor = await floorApp(database.db);
  const words = vocabulary();
  const rows: Record<string, string | number>[] = [];
  console.log(`backend: ${database.kind}; runs per measurement: ${runs}`);

  for (const size of sizes) {
    const channelId = `C_${size}`;
    const have = await channelSize(database, channelId);
    if (have < size) {
      const t0 = performance.now();
      for (let from = have; from < size; from += SEED_CHUNK) {
        await seedChannel(database, channelId, from, Math.min(size, from + SEED_CHUNK));
        process.stdout.write(
          `\rseeding ${channelId}: ${Math.min(size, from + SEED_CHUNK).toLocaleString()} rows`,
        );
      }
      await vacuumAnalyze(database, ['channel_messages']);
      console.log(` in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const scope = { tenantId: BENCH_TENANT, platform: BENCH_PLATFORM, channelId };
    const random = rng(size);
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    const intents = Array.from({ length: runs + 20 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return `what is the status of the ${pick(TOPICAL)}?`;
        case 1:
          return `${pick(TOPICAL)} ${pick(TOPICAL)} problems on ${pick(words.slice(20, 200))}`;
        case 2:
          return `anything about ${pick(words.slice(2000))}`;
        default:
          return `${pick(words.slice(500, 2000))} and ${pick(words.slice(3000))} ${pick(TOPICAL)}`;
      }
    });
    const anchors = Array.from({ length: runs + 20 }, () => {
      const root = Math.floor(random() * (size / 10)) * 10;
      return benchMessageId(root + 1 + Math.floor(random() * 3));
    });

    const constant = await latency(runs, () => floor.inject({ url: '/constant' }));
    const read = await latency(runs, (i) =>
      floor.inject({ url: `/read/${BENCH_TENANT}/${BENCH_PLATFORM}/${channelId}/${anchors[i]}` }),
    );
    let scanned = 0;
    const searched = await latency(runs, async (i) => {
      const out = await search.searchChannel({ ...scope, intent: intents[i]! });
      scanned += out.coverage.messages_scanned;
    });
    const loaded = await latency(runs, async (i) => {
      const out = await reads.loadAnchorContext({ ...scope, messageId: anchors[i]! });
      if (!out.thread) throw new Error(`anchor ${anchors[i]} has no thread`);
    });
    const label = size.toLocaleString('en-US');
    rows.push(latencyRow('floor: Fastify constant (inject)', constant, { messages: label }));
    rows.push(latencyRow('floor: Fastify + 1 indexed PG read (inject)', read, { messages: label }));
    rows.push(
      latencyRow(
        `searchChannel (≤400 candidates, mean scanned ${Math.round(scanned / (runs + 20))})`,
        searched,
        {
          messages: label,
        },
      ),
    );
    rows.push(latencyRow('loadAnchorContext (snapshot + thread)', loaded, { messages: label }));
  }
  printTable(`Channel reads (${database.kind})`, rows);
  console.log(`\n${machineLine()}`);
  await floor.close();
  await database.close();
}

await main();

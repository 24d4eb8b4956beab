// Where the context call's CPU goes: bench:call-cost's call (its seeded IRC channel, a 50-turn
// session, a new anchor and the channel's next line as the question, dry run) in this one process
// through app.inject, so one window holds only calls. Prints Node CPU, PostgreSQL CPU and statements
// per call; with `--cpu-prof FILE` writes a V8 CPU profile of the measured calls alone (100 µs
// sampling); under callgrind, instruction counting is switched on for the measured calls only, so
// the output file's total is theirs (a count of instructions does not move with the machine's load).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:call-cost -- --runs 1   # seeds once
//   DATABASE_URL=… npm run bench:call-profile -- --calls 300 --cpu-prof /tmp/call.cpuprofile
//   DATABASE_URL=… valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \
//     node --import tsx bench/call-profile.ts --calls 100 --callgrind
//   callgrind_annotate /tmp/cg.out | head      # total Ir / --calls = instructions per call
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { backendCpu } from './lib/backend-cpu.js';
import { openBenchApp, seedBenchSession } from './lib/bench-app.js';
import { BENCH_TENANT, channelSize } from './lib/channel-fixture.js';
import {
  CALL_COST_DATABASE,
  ircAnchors,
  ircChannelId,
  ircContextBody,
  readIrcLines,
} from './lib/irc-channel.js';
import { arg, machineLine, ms } from './lib/measure.js';

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.log('bench:call-profile: needs DATABASE_URL (bench:call-cost seeds its channel first)');
    return;
  }
  const lines = readIrcLines();
  const size = Number(arg('size') ?? 100_000);
  const calls = Number(arg('calls') ?? 300);
  const warmup = Number(arg('warmup') ?? 300);
  const turns = Number(arg('turns') ?? 50);
  const profileFile = arg('cpu-prof');
  const callgrind = process.argv.includes('--callgrind');
  const bench = await openBenchApp(CALL_COST_DATABASE);
  const channelId = ircChannelId(size);
  if (!lines || (await channelSize(bench.database, channelId)) < size) {
    console.log(`bench:call-profile: run bench:call-cost --size ${size} first (it seeds the channel)`);
    await bench.close();
    return;
  }
  const [{ n: memories } = { n: 0 }] = await queryRows<{ n: number }>(
    bench.database.db,
    sql`select count(*)::int as n from memories where tenant_id = ${BENCH_TENANT}`,
  );
  if (Number(memories) < 300) console.log(`  note: ${memories} tenant memories (bench:call-cost makes 300)`);
  const session = await seedBenchSession(bench, {
    sessionKey: `bench-call-profile-${turns}-${Date.now().toString(36)}`,
    channelId,
    turns,
  });
  const anchors = ircAnchors(size);
  // A new anchor every call, from an offset of its own so runs start on different anchors.
  let next = Number(arg('offset') ?? Math.floor(Math.random() * anchors.length));
  const call = () =>
    bench.inject(
      'POST',
      `/v1/sessions/${session}/context`,
      ircContextBody(lines, channelId, anchors[next++ % anchors.length]!),
    );
  for (let i = 0; i < warmup; i += 1) await call();

  const backends = await backendCpu(bench.database);
  const inspector = profileFile ? new Session() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
    await inspector.post('Profiler.start');
  }
  const statements0 = bench.statementCount();
  const pg = await backends.start();
  if (callgrind) execFileSync('callgrind_control', ['-i', 'on', String(process.pid)]);
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await call();
  const cpu = process.cpuUsage(cpu0);
  if (callgrind) execFileSync('callgrind_control', ['-i', 'off', String(process.pid)]);
  const pgMs = await pg.stop();
  const statements = bench.statementCount() - statements0;
  if (inspector) {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(profileFile!, JSON.stringify(profile));
    inspector.disconnect();
  }
  console.log(
    `bench:call-profile: ${calls} calls, ${turns} turns, ${machineLine()}\n` +
      `  node ${ms((cpu.user + cpu.system) / 1000 / calls)} ms/call, pg ${ms(pgMs / calls)} ms/call, ` +
      `${(statements / calls).toFixed(2)} statements/call` +
      (profileFile ? `; profile in ${profileFile}` : ''),
  );
  await bench.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

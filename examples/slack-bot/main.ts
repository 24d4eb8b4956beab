// npm run example:slack-bot -- [--events file.json | --listen] [options]: the example Slack bot
// over contextd. Reads its settings from the command line and the environment (see --help), runs,
// and prints what happened: each question, the tools the model ran, the reply.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BotReply } from './bot.js';
import { startSlackListener } from './listener.js';
import { loadRecordedEvents, replay, startExample, type Example } from './run.js';

const HELP = `Usage: npm run example:slack-bot -- [options]

  --events <file>          replay a recorded Slack event file (default: examples/slack-bot/events.json)
  --listen                 receive Slack's Events API at POST /slack/events instead (needs SLACK_SIGNING_SECRET)
  --port <n>               the Events API listener's port (default 3000)
  --once                   exit after the replay (an embedded contextd stops with it)
  --contextd-port <n>      port of the embedded contextd (default 8080)
  --agent <id>             agent id of the bot's sessions (default slack-bot)
  --model <name>           model to ask for (default: contextd's DEFAULT_MODEL)
  --thinking-budget <n>    extended thinking budget_tokens, 0 for none (default 2048)

Environment:
  CONTEXTD_URL, CONTEXTD_API_KEY   a running contextd (npm start prints a development key);
                                   unset: contextd runs inside this process, in memory
  ANTHROPIC_API_KEY                the real Messages API; unset: a local strict fake plays a scripted model
  ANTHROPIC_BASE_URL               another Messages API endpoint (a fake of your own without a key)
  SLACK_SIGNING_SECRET             your Slack app's signing secret (--listen)
  SLACK_BOT_USER_ID                the bot's user id (default: from each envelope's authorizations)`;

const { values } = parseArgs({
  options: {
    events: { type: 'string' },
    listen: { type: 'boolean', default: false },
    port: { type: 'string', default: '3000' },
    once: { type: 'boolean', default: false },
    'contextd-port': { type: 'string', default: '8080' },
    agent: { type: 'string', default: 'slack-bot' },
    model: { type: 'string' },
    'thinking-budget': { type: 'string', default: '2048' },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(`example:slack-bot: ${message}`);
  process.exit(2);
}

function integer(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  return n;
}

if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const env = process.env;
if (env.CONTEXTD_URL && !env.CONTEXTD_API_KEY) {
  fail('CONTEXTD_URL needs CONTEXTD_API_KEY (npm start prints a development key on its first start)');
}
const signingSecret = env.SLACK_SIGNING_SECRET;
if (values.listen && !signingSecret)
  fail('--listen needs SLACK_SIGNING_SECRET (your Slack app, Basic Information)');

const example: Example = await startExample({
  contextd: env.CONTEXTD_URL
    ? { url: env.CONTEXTD_URL.replace(/\/+$/, ''), apiKey: env.CONTEXTD_API_KEY! }
    : { embeddedPort: integer('contextd-port', values['contextd-port']) },
  anthropic: { apiKey: env.ANTHROPIC_API_KEY || undefined, baseURL: env.ANTHROPIC_BASE_URL || undefined },
  bot: {
    agentId: values.agent,
    ...(values.model ? { model: values.model } : {}),
    thinkingBudget: integer('thinking-budget', values['thinking-budget']),
    ...(env.SLACK_BOT_USER_ID ? { botUserId: env.SLACK_BOT_USER_ID } : {}),
  },
}).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

const where = example.embedded ? 'embedded in this process, in memory' : 'yours';
console.log(`contextd  ${example.contextdUrl} (${where})`);
if (example.embedded) console.log(`API key   ${example.apiKey}`);
console.log(`model     ${example.model}`);

const sessions = new Set<string>();
function printReply(reply: BotReply) {
  sessions.add(reply.sessionId);
  console.log(`\n#${reply.mention.channel} <${reply.mention.user}> ${reply.mention.text}`);
  for (const call of reply.toolCalls) {
    console.log(`  tool ${call.name} ${JSON.stringify(call.input)}${call.isError ? ' (error)' : ''}`);
  }
  console.log(`  bot (thread ${reply.mention.threadTs}, ${reply.modelCalls} model calls):`);
  for (const line of reply.text.split('\n')) console.log(`    ${line}`);
}

function printNextSteps() {
  for (const id of sessions) {
    console.log(`\nsession   ${id}`);
    console.log(`  inspect: ${example.contextdUrl}/inspect (README, "Inspect a turn")`);
    console.log(
      `  MCP:     CONTEXTD_URL=${example.contextdUrl} CONTEXTD_API_KEY=${example.apiKey} SESSION_ID=${id} npm run example:mcp-client`,
    );
  }
}

const stop = async () => {
  await example.close();
  process.exit(0);
};

if (values.listen) {
  const listener = await startSlackListener({
    bot: example.bot,
    signingSecret: signingSecret!,
    port: integer('port', values.port),
    host: '0.0.0.0',
    onReply: (reply) => {
      printReply(reply);
      printNextSteps();
    },
    onError: (error) => console.error('example:slack-bot:', error),
  });
  console.log(`listening ${listener.url} (Slack app → Event Subscriptions → Request URL); Ctrl-C to stop`);
  process.once('SIGINT', () => void listener.close().then(stop));
  process.once('SIGTERM', () => void listener.close().then(stop));
} else {
  const file = values.events ?? fileURLToPath(new URL('./events.json', import.meta.url));
  const envelopes = await loadRecordedEvents(file).catch((error: unknown) =>
    fail(error instanceof Error ? error.message : String(error)),
  );
  console.log(`replaying ${envelopes.length} Slack events from ${relative(process.cwd(), file) || file}`);
  try {
    await replay(example.bot, envelopes, printReply);
  } catch (error) {
    console.error('example:slack-bot: the replay failed:', error);
    await example.close();
    process.exit(1);
  }
  printNextSteps();
  if (values.once || !example.embedded) {
    await example.close();
  } else {
    console.log('\ncontextd keeps running for /inspect and MCP; Ctrl-C to stop.');
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
  }
}

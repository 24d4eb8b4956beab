// The example's wiring, apart from the command line so tests run exactly this: contextd (a URL and
// key, or one embedded in this process), the Messages API (the real one with an API key, a fake
// named by ANTHROPIC_BASE_URL, or the strict local fake with the scripted model), and the bot; then
// a recorded event file replayed in order, or Slack's Events API listened to.
import { readFile } from 'node:fs/promises';
import Anthropic from '@anthropic-ai/sdk';
import { createContextdClient } from '@contextd/client';
import { startFakeAnthropic } from '../fake-anthropic.js';
import { createSlackBot, type BotReply, type SlackBot, type SlackBotOptions } from './bot.js';
import { startEmbeddedContextd } from './embedded.js';
import { scriptedSlackModel } from './scripted-model.js';
import { isSlackEnvelope, type SlackEnvelope } from './slack.js';

export interface ExampleOptions {
  /** A running contextd, or none: one is started in this process on `embeddedPort`. */
  contextd: { url: string; apiKey: string } | { embeddedPort: number };
  /** An API key: the real Messages API (or `baseURL`). No key: `baseURL`'s fake, or a local one. */
  anthropic: { apiKey?: string; baseURL?: string };
  bot?: Omit<SlackBotOptions, 'contextd' | 'anthropic'>;
}

export interface Example {
  bot: SlackBot;
  contextdUrl: string;
  apiKey: string;
  /** Whether contextd runs inside this process (it stops with `close`). */
  embedded: boolean;
  /** Where model calls go: `Anthropic API`, or the fake's URL. */
  model: string;
  close(): Promise<void>;
}

export async function startExample(options: ExampleOptions): Promise<Example> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let contextdUrl: string;
    let apiKey: string;
    if ('url' in options.contextd) {
      ({ url: contextdUrl, apiKey } = options.contextd);
    } else {
      const embedded = await startEmbeddedContextd({ port: options.contextd.embeddedPort });
      closers.push(embedded.close);
      ({ url: contextdUrl, apiKey } = embedded);
    }

    let anthropic: Anthropic;
    let model: string;
    const { apiKey: anthropicKey, baseURL } = options.anthropic;
    if (anthropicKey) {
      anthropic = new Anthropic({ apiKey: anthropicKey, ...(baseURL ? { baseURL } : {}) });
      model = baseURL ?? 'Anthropic API';
    } else {
      let fakeUrl = baseURL;
      if (!fakeUrl) {
        const fake = await startFakeAnthropic();
        fake.respond = scriptedSlackModel;
        closers.push(fake.close);
        fakeUrl = fake.baseURL;
      }
      // The fake wants a key like the API does; any will do. No retries: a rejection shows at once.
      anthropic = new Anthropic({ apiKey: 'fake-key', baseURL: fakeUrl, maxRetries: 0 });
      model = `fake Messages API at ${fakeUrl}`;
    }

    const contextd = createContextdClient({ baseUrl: contextdUrl, apiKey });
    const bot = createSlackBot({ ...options.bot, contextd, anthropic });
    return { bot, contextdUrl, apiKey, embedded: !('url' in options.contextd), model, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A recorded event file: a JSON array of Events API envelopes, in the order Slack sent them. */
export async function loadRecordedEvents(file: string): Promise<SlackEnvelope[]> {
  const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
  if (!Array.isArray(parsed)) throw new Error(`${file}: expected a JSON array of Slack envelopes`);
  parsed.forEach((item, index) => {
    if (!isSlackEnvelope(item)) throw new Error(`${file}: item ${index} is not a Slack envelope`);
  });
  return parsed as SlackEnvelope[];
}

/** Hands each envelope to the bot in order; the replies to the mentions among them. */
export async function replay(
  bot: SlackBot,
  envelopes: SlackEnvelope[],
  onReply: (reply: BotReply) => void = () => {},
): Promise<BotReply[]> {
  const replies: BotReply[] = [];
  for (const envelope of envelopes) {
    const reply = await bot.handle(envelope);
    if (reply) {
      replies.push(reply);
      onReply(reply);
    }
  }
  return replies;
}

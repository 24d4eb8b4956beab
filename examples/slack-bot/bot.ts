// The example bot's loop, one Slack envelope at a time: forward it to contextd; when it is a user
// asking the bot something, get the session and the context of the turn, call the Messages API,
// run contextd's tools for every tool_use (tool_use → runTool → tool_result → the next call) and
// append each assistant turn as it came back, thinking blocks and usage included.
import type Anthropic from '@anthropic-ai/sdk';
import { ContextdError, type ContextdClient, type ToolCall } from '@contextd/client';
import { botUserIdOf, mentionIn, type Mention, type SlackEnvelope } from './slack.js';

export interface SlackBotOptions {
  contextd: ContextdClient;
  anthropic: Anthropic;
  /** The agent whose session this is (`agent:{agentId}:slack:…` session keys). */
  agentId?: string;
  /** The bot's Slack user id; default: the one the envelope's `authorizations` name. */
  botUserId?: string;
  /** A model instead of contextd's DEFAULT_MODEL. */
  model?: string;
  /** Extended thinking's budget_tokens (≥ 1024, below maxOutputTokens); 0: no thinking. */
  thinkingBudget?: number;
  maxOutputTokens?: number;
  /** Model calls per question; the last one is made with `tool_choice: none`, so it answers. */
  maxModelCalls?: number;
}

export type { ToolCall } from '@contextd/client';

export interface BotReply {
  mention: Mention;
  sessionId: string;
  /** The model's final text, to post in the thread. */
  text: string;
  toolCalls: ToolCall[];
  modelCalls: number;
}

const textOf = (content: Anthropic.ContentBlock[]) =>
  content
    .filter((block): block is Anthropic.TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

export function createSlackBot(options: SlackBotOptions) {
  const { contextd, anthropic } = options;
  const agentId = options.agentId ?? 'slack-bot';
  const maxOutputTokens = options.maxOutputTokens ?? 4096;
  const thinkingBudget = options.thinkingBudget ?? 0;
  const maxModelCalls = options.maxModelCalls ?? 5;
  const budget = { max_output_tokens: maxOutputTokens };
  const thinking: Partial<Anthropic.MessageCreateParamsNonStreaming> =
    thinkingBudget > 0 ? { thinking: { type: 'enabled', budget_tokens: thinkingBudget } } : {};
  /** Mentions already answered: Slack sends one as app_mention and as message, and retries. */
  const answered = new Set<string>();

  /** `POST /v1/events/slack`: the envelope as Slack sent it; contextd normalizes it. */
  async function forward(envelope: SlackEnvelope): Promise<void> {
    const { error, response } = await contextd.api.POST('/v1/events/{platform}', {
      params: { path: { platform: 'slack' } },
      body: envelope,
    });
    if (error !== undefined || !response.ok) throw ContextdError.fromReply(response, error);
  }

  async function answer(mention: Mention): Promise<BotReply> {
    const { session } = await contextd.session({
      agent_id: agentId,
      platform: 'slack',
      chat_type: mention.chatType,
      ...(mention.chatType === 'dm' ? { user_id: mention.user } : { channel_id: mention.channel }),
    });
    const common = { budget, ...(options.model ? { model: options.model } : {}) };
    // The user turn is the channel message itself: contextd anchors the snapshot and thread on it.
    let reply = await contextd.context(session.id, {
      ...common,
      message: {
        content: mention.text,
        source: { platform: 'slack', channel_id: mention.channel, message_id: mention.ts },
        author: { id: mention.user },
      },
    });
    const toolCalls: ToolCall[] = [];
    for (let call = 1; ; call += 1) {
      // The last call allowed may not use tools: the loop ends in an answer, with no tool_use open.
      const last = call >= maxModelCalls ? { tool_choice: { type: 'none' as const } } : {};
      const message = await anthropic.messages.create({ ...reply.payload, ...thinking, ...last });
      await contextd.appendTurns(session.id, [
        { role: 'assistant', content: message.content, usage: message.usage, model: message.model },
      ]);
      const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      if (message.stop_reason !== 'tool_use' || uses.length === 0) {
        return { mention, sessionId: session.id, text: textOf(message.content), toolCalls, modelCalls: call };
      }
      if (call >= maxModelCalls) throw new Error(`tool_use after tool_choice none (call ${call})`);
      // contextd's tool for each tool_use; a tool it refuses is an error result the model reads.
      const results = await contextd.toolResults(session.id, message.content, toolCalls);
      // The tool results are the next user turn; contextd sends the open loop back as the API needs.
      reply = await contextd.context(session.id, { ...common, message: { content: results } });
    }
  }

  return {
    /** Forwards the envelope; answers it when it is a mention not answered yet (null otherwise). */
    async handle(envelope: SlackEnvelope): Promise<BotReply | null> {
      await forward(envelope);
      const mention = mentionIn(envelope, options.botUserId ?? botUserIdOf(envelope));
      if (!mention) return null;
      const key = `${mention.channel}:${mention.ts}`;
      if (answered.has(key)) return null;
      answered.add(key);
      try {
        return await answer(mention);
      } catch (error) {
        answered.delete(key); // Slack's retry of this event may answer it then
        throw error;
      }
    },
  };
}

export type SlackBot = ReturnType<typeof createSlackBot>;

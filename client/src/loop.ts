// The bot loop over a Messages-API model: the context of a turn, the model's reply appended as it
// came back, contextd's tool run for every tool_use block, the results sent as the next user turn,
// until the model answers. Written against the shapes the Anthropic SDK returns, without depending
// on it: any function that takes the payload and answers a message of that shape is a model.
import { ContextdError } from './errors.js';
import type { ContextReply, ContextRequest, ToolResult, Turn, WriteOptions } from './client.js';

/**
 * The Messages API request contextd assembled, as `anthropic.messages.create` takes it; the loop's
 * last allowed call adds `tool_choice: none`.
 */
export type AnthropicPayload = ContextReply<'anthropic'>['payload'] & { tool_choice?: { type: 'none' } };

/** A content block of a model reply: the SDK's blocks are objects with a `type`. */
export type ModelBlock = { type: string } | { type: string; [field: string]: unknown };

/** What the loop reads of a Messages API reply (the SDK's `Message` fits it). */
export interface ModelMessage {
  content: readonly ModelBlock[];
  stop_reason: string | null;
  usage?: Turn['usage'] | null;
  model?: string;
}

interface ToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export type ToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content: ToolResult['content'] | string;
  is_error: boolean;
};

export interface ToolCall {
  name: string;
  input: unknown;
  isError: boolean;
}

export interface RespondOptions extends Omit<ContextRequest, 'message' | 'format'> {
  /** The user's turn: its text (or blocks), and where it came from. */
  message: ContextRequest['message'];
  /** Calls the model, e.g. `(payload) => anthropic.messages.create(payload)`. */
  callModel: (payload: AnthropicPayload) => Promise<ModelMessage>;
  /** Model calls per question (default 5); the last is made with `tool_choice: none`, so it answers. */
  maxModelCalls?: number;
  signal?: AbortSignal;
}

export interface RespondResult {
  /** The model's last message, the one that answered. */
  message: ModelMessage;
  /** Its text blocks joined by newlines. */
  text: string;
  toolCalls: ToolCall[];
  modelCalls: number;
}

/** The operations of the client the loop uses (see createContextdClient). */
interface LoopClient {
  context(
    sessionId: string,
    body: ContextRequest & { format?: 'anthropic' },
    opts?: WriteOptions,
  ): Promise<ContextReply<'anthropic'>>;
  appendTurns(sessionId: string, turns: Turn[], opts?: WriteOptions): Promise<unknown>;
  runTool(sessionId: string, name: string, input: unknown, opts?: WriteOptions): Promise<ToolResult>;
}

const isToolUse = (block: ModelBlock): block is ToolUse =>
  block.type === 'tool_use' && 'id' in block && 'name' in block && typeof block.name === 'string';

/** The text blocks of a reply, joined by newlines. */
export function textOf(content: readonly ModelBlock[]): string {
  return content
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text' && 'text' in b)
    .map((b) => b.text)
    .join('\n');
}

export function createBotLoop(client: LoopClient) {
  /**
   * Runs contextd's tool for every tool_use block of a model reply and answers each with its
   * tool_result block, in order. A tool contextd refuses (an unknown name, a bad input: a 4xx) is
   * an error result the model can read; a 5xx or a network failure throws.
   */
  async function toolResults(
    sessionId: string,
    content: readonly ModelBlock[],
    calls: ToolCall[] = [],
    opts?: { signal?: AbortSignal },
  ): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    for (const use of content.filter(isToolUse)) {
      try {
        const { content: output, is_error } = await client.runTool(sessionId, use.name, use.input, opts);
        calls.push({ name: use.name, input: use.input, isError: is_error });
        results.push({ type: 'tool_result', tool_use_id: use.id, content: output, is_error });
      } catch (error) {
        if (!(error instanceof ContextdError) || error.status >= 500) throw error;
        calls.push({ name: use.name, input: use.input, isError: true });
        results.push({
          type: 'tool_result',
          tool_use_id: use.id,
          content: `${error.code}: ${error.message}`,
          is_error: true,
        });
      }
    }
    return results;
  }

  /**
   * One question answered: context → model → the reply appended → tool results back as the next
   * turn → … until the model stops asking for tools. Every assistant reply is appended as it came
   * back (usage and model included), so the session holds the whole exchange.
   */
  async function respond(sessionId: string, options: RespondOptions): Promise<RespondResult> {
    const { message, callModel, maxModelCalls = 5, signal, ...request } = options;
    if (!Number.isInteger(maxModelCalls) || maxModelCalls < 1) {
      throw new RangeError(`maxModelCalls must be a positive integer, got ${maxModelCalls}`);
    }
    const toolCalls: ToolCall[] = [];
    let reply = await client.context(sessionId, { ...request, message }, { signal });
    for (let call = 1; ; call += 1) {
      const last = call >= maxModelCalls;
      const payload: AnthropicPayload = last
        ? { ...reply.payload, tool_choice: { type: 'none' } }
        : reply.payload;
      const answer = await callModel(payload);
      const turn: Turn = { role: 'assistant', content: answer.content };
      if (answer.usage) turn.usage = answer.usage;
      if (answer.model) turn.model = answer.model;
      await client.appendTurns(sessionId, [turn], { signal });
      const uses = answer.content.filter(isToolUse);
      if (answer.stop_reason !== 'tool_use' || uses.length === 0) {
        return { message: answer, text: textOf(answer.content), toolCalls, modelCalls: call };
      }
      if (last) throw new Error(`the model asked for a tool after tool_choice none (call ${call})`);
      const results = await toolResults(sessionId, answer.content, toolCalls, { signal });
      reply = await client.context(sessionId, { ...request, message: { content: results } }, { signal });
    }
  }

  return { toolResults, respond };
}

// contextd for the AI SDK (`ai`): a language-model middleware for `wrapLanguageModel`. Before each
// model call it sends the prompt's new input (the user's message, or the tool results of the step
// before) to `POST /v1/sessions/{id}/context` and replaces the prompt with the messages contextd
// assembled; after the call it appends the model's reply through `POST /v1/sessions/{id}/turns`.
// contextd holds the conversation: an app sends only what is new, or its whole history unchanged.
import {
  APICallError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3FilePart,
  type LanguageModelV3Message,
  type LanguageModelV3Middleware,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
  type LanguageModelV3TextPart,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { ContextdClient, ContextReply, ContextRequest, Turn } from './client.js';
import { ContextdError } from './errors.js';

export interface ContextdMiddlewareOptions {
  /** A client from createContextdClient. */
  client: Pick<ContextdClient, 'context' | 'appendTurns'>;
  /** The contextd session this model speaks in (from `client.session(…)`). */
  sessionId: string;
  /**
   * Other fields of every context request: `budget`, `include`, `history_turns`, `message.source`
   * is not among them (it names one message). `model` names the model contextd budgets for.
   */
  context?: Omit<ContextRequest, 'message' | 'format' | 'system' | 'tools'>;
}

type OpenAIPayload = ContextReply<'openai'>['payload'];
type OpenAIMessage = OpenAIPayload['messages'][number];
type MessageContent = ContextRequest['message']['content'];
type Block = { type: string; [field: string]: unknown };

/** contextd's refusal as the AI SDK's error: `APICallError` with `data: { code, details, requestId }`. */
function asApiCallError(error: unknown, url: string, body: unknown): unknown {
  if (!(error instanceof ContextdError)) return error;
  return new APICallError({
    message: `contextd ${error.status} ${error.code}: ${error.message}`,
    url,
    requestBodyValues: body,
    statusCode: error.status,
    responseBody: JSON.stringify({
      error: { code: error.code, message: error.message, details: error.details },
    }),
    isRetryable: error.status === 429 || error.status >= 500,
    data: { code: error.code, details: error.details, requestId: error.requestId },
    cause: error,
  });
}

async function calling<T>(url: string, body: unknown, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asApiCallError(error, url, body);
  }
}

const fileBlock = (part: LanguageModelV3FilePart): Block => {
  const data =
    part.data instanceof URL
      ? { type: 'url', url: part.data.href }
      : {
          type: 'base64',
          media_type: part.mediaType,
          data: typeof part.data === 'string' ? part.data : Buffer.from(part.data).toString('base64'),
        };
  return { type: part.mediaType === 'application/pdf' ? 'document' : 'image', source: data };
};

const toolResultText = (output: unknown): { content: string; is_error: boolean } => {
  const o = output as { type: string; value?: unknown; reason?: string };
  switch (o.type) {
    case 'text':
      return { content: String(o.value), is_error: false };
    case 'error-text':
      return { content: String(o.value), is_error: true };
    case 'error-json':
      return { content: JSON.stringify(o.value), is_error: true };
    case 'execution-denied':
      return { content: o.reason ?? 'execution denied', is_error: true };
    case 'content':
      return {
        content: (o.value as { type: string; text?: string }[])
          .map((p) => (p.type === 'text' ? p.text : `[${p.type}]`))
          .join('\n'),
        is_error: false,
      };
    default:
      return { content: JSON.stringify(o.value), is_error: false };
  }
};

/**
 * The prompt's new input as one user turn for contextd: every message after the last assistant
 * message — the tool results of the step before, then the user's text and files.
 */
export function newInputOf(prompt: LanguageModelV3Prompt): { content: MessageContent; system: string[] } {
  const system = prompt.filter((m) => m.role === 'system').map((m) => m.content);
  const lastAssistant = prompt.findLastIndex((m) => m.role === 'assistant');
  const blocks: Block[] = [];
  for (const message of prompt.slice(lastAssistant + 1)) {
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        blocks.push({ type: 'tool_result', tool_use_id: part.toolCallId, ...toolResultText(part.output) });
      }
    } else if (message.role === 'user') {
      for (const part of message.content) {
        blocks.push(part.type === 'text' ? { type: 'text', text: part.text } : fileBlock(part));
      }
    }
  }
  const onlyText = blocks.length > 0 && blocks.every((b) => b.type === 'text');
  return { content: onlyText ? blocks.map((b) => b.text).join('\n') : (blocks as MessageContent), system };
}

const dataUrl = /^data:([^;,]+);base64,(.*)$/s;

/** contextd's assembled messages (the OpenAI chat format) as the AI SDK's prompt. */
export function promptOf(messages: readonly OpenAIMessage[]): LanguageModelV3Prompt {
  const toolNames = new Map<string, string>();
  const prompt: LanguageModelV3Message[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({
          role: 'user',
          content: message.content.map((part): LanguageModelV3TextPart | LanguageModelV3FilePart => {
            if (part.type === 'text') return { type: 'text', text: part.text };
            const inline = dataUrl.exec(part.image_url.url);
            return inline
              ? { type: 'file', mediaType: inline[1]!, data: inline[2]! }
              : { type: 'file', mediaType: 'image/*', data: new URL(part.image_url.url) };
          }),
        });
        break;
      case 'assistant': {
        const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
        if (message.content) content.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.function.name,
            input: JSON.parse(call.function.arguments) as unknown,
          });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const part = {
          type: 'tool-result' as const,
          toolCallId: message.tool_call_id,
          toolName: toolNames.get(message.tool_call_id) ?? 'unknown',
          output: { type: 'text' as const, value: message.content },
        };
        // Consecutive tool results are one tool message, as the AI SDK builds them.
        const previous = prompt.at(-1);
        if (previous?.role === 'tool') previous.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}

/** The model's reply as the assistant turn contextd records (Anthropic content blocks). */
export function turnOf(
  content: readonly LanguageModelV3Content[],
  usage?: LanguageModelV3Usage,
  model?: string,
): Turn {
  const blocks: Block[] = [];
  for (const part of content) {
    if (part.type === 'text' && part.text !== '') blocks.push({ type: 'text', text: part.text });
    if (part.type === 'tool-call' && !part.providerExecuted) {
      blocks.push({
        type: 'tool_use',
        id: part.toolCallId,
        name: part.toolName,
        input: JSON.parse(part.input || '{}'),
      });
    }
  }
  const turn: Turn = { role: 'assistant', content: blocks.length > 0 ? blocks : '' };
  if (usage?.inputTokens.total !== undefined) {
    turn.usage = {
      input_tokens: usage.inputTokens.total,
      output_tokens: usage.outputTokens.total ?? null,
      cache_read_input_tokens: usage.inputTokens.cacheRead ?? null,
      cache_creation_input_tokens: usage.inputTokens.cacheWrite ?? null,
    };
  }
  if (model) turn.model = model;
  return turn;
}

/** The stream's parts gathered into the content a generate call would have returned. */
function collect(parts: LanguageModelV3StreamPart[]): LanguageModelV3Content[] {
  const content: LanguageModelV3Content[] = [];
  let text = '';
  for (const part of parts) {
    if (part.type === 'text-delta') text += part.delta;
    if (part.type === 'tool-call') content.push(part);
  }
  return text ? [{ type: 'text', text }, ...content] : content;
}

/**
 * The middleware: `wrapLanguageModel({ model, middleware: contextdMiddleware({ client, sessionId }) })`.
 * A refusal of contextd (a 4xx) surfaces as `APICallError` whose `data.code` is contextd's code.
 */
export function contextdMiddleware(options: ContextdMiddlewareOptions): LanguageModelV3Middleware {
  const { client, sessionId } = options;
  const contextUrl = `/v1/sessions/${sessionId}/context`;
  const turnsUrl = `/v1/sessions/${sessionId}/turns`;

  async function record(turn: Turn): Promise<void> {
    await calling(turnsUrl, { turns: [turn] }, () => client.appendTurns(sessionId, [turn]));
  }

  return {
    specificationVersion: 'v3',

    async transformParams({ params }): Promise<LanguageModelV3CallOptions> {
      const { content, system } = newInputOf(params.prompt);
      const body: ContextRequest & { format: 'openai' } = {
        ...options.context,
        message: { content },
        format: 'openai',
        ...(system.length > 0
          ? { system: system.map((text, i) => ({ name: `system-${i + 1}`, text })) }
          : {}),
        ...(params.maxOutputTokens
          ? { budget: { ...options.context?.budget, max_output_tokens: params.maxOutputTokens } }
          : {}),
      };
      const reply = await calling(contextUrl, body, () => client.context(sessionId, body));
      return {
        ...params,
        prompt: promptOf(reply.payload.messages),
        maxOutputTokens: params.maxOutputTokens ?? reply.payload.max_tokens,
      };
    },

    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      await record(turnOf(result.content, result.usage, result.response?.modelId));
      return result;
    },

    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream();
      const parts: LanguageModelV3StreamPart[] = [];
      let usage: LanguageModelV3Usage | undefined;
      let modelId: string | undefined;
      const recording = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          parts.push(part);
          if (part.type === 'finish') usage = part.usage;
          if (part.type === 'response-metadata' && part.modelId) modelId = part.modelId;
          controller.enqueue(part);
        },
        async flush() {
          await record(turnOf(collect(parts), usage, modelId));
        },
      });
      return { stream: stream.pipeThrough(recording), ...rest };
    },
  };
}

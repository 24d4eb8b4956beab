// The payload of a context reply as a wire shape: the Anthropic Messages API request contextd
// assembles (system blocks, messages with their content-block union, tools, cache_control), and
// its OpenAI chat-completions form (format=openai). These schemas document the reply (OpenAPI,
// and through it a generated client) and check it in tests; the route sends the payload exactly
// as assembly built it (docs/architecture.md, "The context reply on the wire").
import { z } from 'zod';
import { IMAGE_MEDIA_TYPES } from '../../shared/media.js';
import { SERVER_TOOL_NAMES, TOOL_CALLERS } from '../tools/tools.schemas.js';

export const cacheControl = z
  .strictObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
  .describe('a cache breakpoint: the provider caches the prompt prefix up to and including this block');

/**
 * Content blocks are kept as the caller sent them (turns are stored as sent), so a block may carry
 * fields of the Messages API this schema does not name (e.g. `citations`): they are open objects.
 */
const block = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.looseObject({ ...shape, cache_control: cacheControl.optional() });

const textBlock = block({ type: z.literal('text'), text: z.string() }).meta({ id: 'TextBlockParam' });

const urlSource = z.looseObject({ type: z.literal('url'), url: z.string() });
const fileSource = z.looseObject({ type: z.literal('file'), file_id: z.string() });

const imageBlock = block({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.enum(IMAGE_MEDIA_TYPES), data: z.string() }),
    urlSource,
    fileSource,
  ]),
}).meta({ id: 'ImageBlockParam' });

const documentBlock = block({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('base64'),
      media_type: z.literal('application/pdf'),
      data: z.string(),
    }),
    z.looseObject({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
    urlSource,
    fileSource,
    z.looseObject({
      type: z.literal('content'),
      content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock]))]),
    }),
  ]),
  title: z.string().nullable().optional(),
  context: z.string().nullable().optional(),
}).meta({ id: 'DocumentBlockParam' });

const toolUseBlock = block({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
}).meta({ id: 'ToolUseBlockParam' });

const toolResultBlock = block({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock, documentBlock]))])
    .optional(),
  is_error: z.boolean().optional(),
}).meta({ id: 'ToolResultBlockParam' });

const thinkingBlock = z
  .looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() })
  .meta({ id: 'ThinkingBlockParam' });

const redactedThinkingBlock = z
  .looseObject({ type: z.literal('redacted_thinking'), data: z.string() })
  .meta({ id: 'RedactedThinkingBlockParam' });

const contentBlockParamSchema = z
  .discriminatedUnion('type', [
    textBlock,
    imageBlock,
    documentBlock,
    toolUseBlock,
    toolResultBlock,
    thinkingBlock,
    redactedThinkingBlock,
  ])
  .meta({ id: 'ContentBlockParam' });

const messageParam = z
  .strictObject({
    role: z.enum(['user', 'assistant']),
    content: z.union([z.string(), z.array(contentBlockParamSchema)]),
  })
  .meta({ id: 'MessageParam' });

/** The optional fields of a Messages API client tool, as the request and the payload both take them. */
export const clientToolOptions = {
  cache_control: cacheControl.nullable().optional(),
  strict: z.boolean().optional(),
  defer_loading: z.boolean().optional(),
  eager_input_streaming: z.boolean().nullable().optional(),
  input_examples: z.array(z.record(z.string(), z.unknown())).optional(),
  allowed_callers: z.array(z.enum(TOOL_CALLERS)).optional(),
};

const toolParam = z
  .strictObject({
    type: z.literal('custom').nullable().optional(),
    name: z.string(),
    description: z.string().optional(),
    input_schema: z
      .looseObject({
        type: z.literal('object'),
        properties: z.record(z.string(), z.unknown()).nullable().optional(),
        required: z.array(z.string()).nullable().optional(),
      })
      .describe('JSON Schema of the tool input'),
    ...clientToolOptions,
  })
  .meta({ id: 'Tool', description: "a client tool: contextd's built-ins and the caller's, as given" });

// One shape per server tool type (with the name the API requires), so a generated client's type
// is assignable to the SDK's ToolUnion; their other fields pass through as given.
const serverToolParam = z
  .union(
    Object.entries(SERVER_TOOL_NAMES).map(([type, name]) =>
      z.looseObject({
        type: z.literal(type),
        ...(name === null ? {} : { name: z.literal(name) }),
        cache_control: cacheControl.nullable().optional(),
      }),
    ) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]],
  )
  .meta({
    id: 'ServerTool',
    description: 'a server tool of the caller, as given (e.g. web_search_20250305): run by the provider',
  });

export const anthropicPayloadSchema = z
  .strictObject({
    model: z.string(),
    max_tokens: z.number().int(),
    system: z
      .array(
        z.strictObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl.optional() }),
      )
      .optional()
      .describe('system blocks, policy first; a cache breakpoint after the last cacheable one'),
    messages: z.array(messageParam),
    tools: z.array(z.union([toolParam, serverToolParam])).optional(),
  })
  .meta({
    id: 'AnthropicPayload',
    description:
      'An Anthropic Messages API request (MessageCreateParams, non-streaming), ready to send: `anthropic.messages.create({ model, ...payload })`',
  });

const openaiContentPart = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('image_url'), image_url: z.strictObject({ url: z.string() }) }),
]);

const openaiMessage = z.union([
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.array(openaiContentPart) }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z
      .array(
        z.strictObject({
          id: z.string(),
          type: z.literal('function'),
          function: z.strictObject({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);

export const openaiChatPayloadSchema = z
  .strictObject({
    model: z.string(),
    max_tokens: z.number().int(),
    messages: z.array(openaiMessage),
    tools: z
      .array(
        z.strictObject({
          type: z.literal('function'),
          function: z.strictObject({
            name: z.string(),
            description: z.string().optional(),
            parameters: z.record(z.string(), z.unknown()),
          }),
        }),
      )
      .optional(),
  })
  .meta({
    id: 'OpenAIChatPayload',
    description: 'An OpenAI chat-completions request with the same content and order (format=openai)',
  });

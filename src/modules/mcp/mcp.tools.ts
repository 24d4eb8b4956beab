// The tools /mcp offers for its bound session (docs/api.md "MCP"): the session's built-in tools,
// run by the tools service exactly as POST /v1/sessions/{id}/tools/{name} runs them, plus one of
// MCP's own over an existing operation: get_context (a dry-run context call). Each has a title,
// annotations and an output schema here; the result's structuredContent is the value its JSON text
// block carries. None takes a tenant, session, channel or lane: those come from the binding, so an
// input cannot reach elsewhere.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { threadContextSchema, channelMessageSchema } from '../channels/channels.schemas.js';
import { compactResultSchema } from '../compaction/compaction.schemas.js';
import { contextBody } from '../context/context.schemas.js';
import { memoryScopeSchema, memoryTypeSchema } from '../memory/memory.schemas.js';
import { AppError } from '../../shared/errors.js';
import { toolInvalidInput } from '../tools/tools.errors.js';
import { builtinToolNames, inputSchemaOf, type BuiltinToolName } from '../tools/tools.schemas.js';
import type { ToolReply } from '../tools/tools.service.js';
import type { Services } from '../services.js';

export interface BoundSession {
  tenantId: string;
  sessionId: string;
}

const getContextInput = z.strictObject({
  message: z
    .string()
    .min(1)
    .max(100_000)
    .meta({ description: 'The user message this turn would send; the payload is assembled around it.' }),
  max_context_tokens: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "The model's context window to fit the payload into (tokens)." }),
  history_turns: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .meta({ description: 'At most this many recent turns of history, verbatim.' }),
  format: z
    .enum(['anthropic', 'openai'])
    .optional()
    .meta({ default: 'anthropic', description: 'Payload shape: Messages API or Chat Completions.' }),
});
/** Where a get_context argument lands in the context call's body, to name it back on an error. */
const getContextArgumentOf: Record<string, string> = {
  'message.content': 'message',
  'budget.max_context_tokens': 'max_context_tokens',
};

const notes = z.array(z.string()).optional().describe('what could not be fetched from the platform');
const memoryHit = z.object({
  kind: z.enum(['memory', 'transcript_chunk']),
  id: z.string(),
  score: z.number().min(0).max(1),
  time: z.string(),
  snippet: z.string(),
  text: z.string(),
  type: memoryTypeSchema.optional(),
  scope: memoryScopeSchema.optional(),
  scope_key: z.string().optional(),
});

/** What each tool's structuredContent is (the same value as its JSON text). */
const outputs = {
  channel_context: z.object({
    terms: z.array(z.string()).describe('the search terms the intent became'),
    results: z.array(
      z.looseObject({
        message_id: z.string(),
        thread_id: z.string().nullable(),
        ts: z.string(),
        text: z.string(),
        relevance_signal: z.string().describe('why it matched, e.g. keyword:rollout'),
        score: z.number(),
      }),
    ),
    coverage: z.looseObject({ messages_scanned: z.number() }),
    notes,
  }),
  channel_messages: z.object({
    thread: threadContextSchema.nullable().optional().describe('the thread asked for (null: not found)'),
    messages: z.array(channelMessageSchema).optional().describe('the messages asked for by id'),
    missing_ids: z.array(z.string()).optional().describe('ids asked for that this channel does not have'),
    notes,
    media_notes: z.array(z.string()).optional().describe('platform files that could not be fetched'),
    media: z
      .object({ artifact_id: z.string(), description: z.string(), image: z.boolean() })
      .optional()
      .describe('the media artifact asked for: what it is; an image also comes as image content'),
  }),
  read_result: z.object({
    ref_id: z.string(),
    offset: z.number(),
    limit: z.number(),
    total_bytes: z.number(),
    content: z.string(),
    next_offset: z.number().nullable().describe('where the next read starts; null at the end'),
  }),
  memory_search: z.object({ results: z.array(memoryHit), note: z.string().optional() }),
  tool_search: z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
    note: z.string(),
  }),
  compact_context: compactResultSchema,
  get_context: z.looseObject({
    format: z.enum(['anthropic', 'openai']),
    payload: z.record(z.string(), z.unknown()).describe('the request body the model would get'),
    budget: z.record(z.string(), z.unknown()).describe('where the tokens went, and budget.cost: the bill'),
    context: z
      .record(z.string(), z.unknown())
      .describe('which history, memories and channel context were used'),
    notes: z.array(z.string()),
    turn_seq: z.null(),
    dry_run: z.literal(true),
  }),
} satisfies Record<McpToolName, z.ZodType>;

type McpToolName = BuiltinToolName | 'get_context';

const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/**
 * Titles and hints. The channel tools may fetch from the chat platform's API (a cold channel's
 * history, a message's files), so their world is open. compact_context changes the session: older
 * turns leave the model's view for a summary (the transcript keeps them), which is not additive,
 * and a second call compacts again.
 */
const presentation: Record<McpToolName, { title: string; annotations: ToolAnnotations }> = {
  channel_context: { title: 'Search the channel', annotations: { ...readOnly, openWorldHint: true } },
  channel_messages: {
    title: 'Fetch channel messages, a thread or a media file',
    annotations: { ...readOnly, openWorldHint: true },
  },
  read_result: { title: 'Read a stored result', annotations: readOnly },
  memory_search: { title: 'Search memories and earlier conversation', annotations: readOnly },
  tool_search: { title: 'Find deferred tools', annotations: readOnly },
  compact_context: {
    title: 'Compact the conversation',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  get_context: { title: 'Preview the assembled context (dry run)', annotations: readOnly },
};

const mcpToolNames: readonly McpToolName[] = [...builtinToolNames, 'get_context'];
export const isMcpToolName = (name: string): name is McpToolName =>
  (mcpToolNames as readonly string[]).includes(name);

const outputSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as { type: 'object' };

/** tools/list: the session's built-in definitions (as GET …/tools gives them) and get_context. */
export function listedTools(builtins: { name: string; description?: string; input_schema: unknown }[]) {
  const getContext = {
    name: 'get_context',
    description:
      "Assemble this session's prompt for a message without recording anything (a dry run of the context call): the payload the model would get, the budget report and the context used.",
    input_schema: inputSchemaOf(getContextInput),
  };
  return [...builtins, getContext].map((tool) => {
    const name = tool.name as McpToolName;
    return {
      name,
      title: presentation[name].title,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: tool.input_schema as { type: 'object' },
      outputSchema: outputSchemaOf(outputs[name]),
      annotations: presentation[name].annotations,
    };
  });
}

/**
 * An argument error in the tool's own terms: the arguments named as the tool names them (not the
 * REST route's `body.input.…` paths), one line each.
 */
export function argumentErrorText(toolName: string, error: AppError): string | null {
  if (error.code !== 'tools.invalid_input' || !Array.isArray(error.details)) return null;
  const lines = (error.details as { path: string; message: string }[]).map(({ path, message }) => {
    const argument = path.replace(/^body\.input\.?/, '');
    const words = message.replace(/^Invalid input: /, '');
    return argument ? `- ${argument}: ${words}` : `- ${words}`;
  });
  return `Invalid arguments for ${toolName}:\n${lines.join('\n')}`;
}

function parseArguments<T extends z.ZodType>(schema: T, input: unknown, rename: (path: string) => string) {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data as z.infer<T>;
  throw toolInvalidInput(
    parsed.error.issues.map((issue) => ({
      path: ['body', 'input', rename(issue.path.map(String).join('.'))].filter(Boolean).join('.'),
      message: issue.message,
      code: issue.code,
    })),
  );
}

export interface McpToolResult {
  reply: ToolReply;
  structured?: Record<string, unknown>;
}

/** Runs a tool for the bound session: get_context here, a built-in one through the tools service. */
export async function runSessionTool(
  services: Pick<Services, 'tools' | 'context'>,
  bound: BoundSession,
  name: McpToolName,
  input: unknown,
): Promise<McpToolResult> {
  if (name !== 'get_context') {
    const reply = (await services.tools.runTool({ ...bound, name, input })).body;
    return { reply, ...structuredOf(name, reply, input) };
  }
  const args = parseArguments(getContextInput, input, (path) => path);
  // Through the REST body schema, so the call gets the same defaults and checks as POST /context.
  const request = parseArguments(
    contextBody,
    {
      message: { content: args.message },
      ...(args.max_context_tokens ? { budget: { max_context_tokens: args.max_context_tokens } } : {}),
      ...(args.history_turns ? { history_turns: args.history_turns } : {}),
      ...(args.format ? { format: args.format } : {}),
      dry_run: true,
    },
    (path) => getContextArgumentOf[path] ?? path,
  );
  const reply = await services.context.assemble({
    ...bound,
    request,
    encode: (reply) => JSON.stringify(reply),
  });
  return {
    reply: { content: [{ type: 'text', text: reply.body }], is_error: false },
    structured: outputs.get_context.parse(JSON.parse(reply.body)),
  };
}

/**
 * The structured value of a built-in tool's reply: its JSON text parsed back (the tools service
 * writes each value as one JSON text block), or for a channel_messages media artifact, what it is.
 * A mismatch with the output schema throws: a bug, answered as an internal error.
 */
function structuredOf(
  name: BuiltinToolName,
  reply: ToolReply,
  input: unknown,
): Pick<McpToolResult, 'structured'> {
  if (reply.is_error) return {};
  const [first] = reply.content;
  const text = first?.type === 'text' ? first.text : '';
  if (reply.content.length === 1 && text.startsWith('{')) {
    return { structured: outputs[name].parse(JSON.parse(text)) as unknown as Record<string, unknown> };
  }
  const artifactId = (input as { media_artifact_id?: unknown }).media_artifact_id;
  if (name === 'channel_messages' && typeof artifactId === 'string') {
    const media = {
      artifact_id: artifactId,
      description: text,
      image: reply.content.some((b) => b.type === 'image'),
    };
    return { structured: outputs.channel_messages.parse({ media }) };
  }
  throw new Error(`${name} gave a reply that is not its output`);
}

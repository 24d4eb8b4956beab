// Built-in agent tools (docs/design.md §6.7): their inputs as zod schemas (validation) and their
// definitions in the Messages API `tools` shape, whose input_schema is derived from the zod schema. Names obey
// ^[a-zA-Z0-9_-]{1,64}$ (the API forbids dots). The channel and lane a tool acts in always come
// from the session, never from the tool input, so no schema here has a channel or lane field.
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { deepFreeze } from '../../shared/deep-freeze.js';
import { memoryTypes } from '../memory/core/memories.js';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export const builtinToolNames = [
  'channel_context',
  'channel_messages',
  'read_result',
  'memory_search',
  'tool_search',
  'compact_context',
] as const;
export type BuiltinToolName = (typeof builtinToolNames)[number];

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return (builtinToolNames as readonly string[]).includes(name);
}

/**
 * Server tools the Messages API runs itself (the SDK's `ToolUnion` besides client tools): each
 * `type` and the `name` the API requires with it (null: a toolset, which has no name). A caller's
 * server tool must be one of these; a newer one needs a row here (and the SDK that knows it).
 */
export const SERVER_TOOL_NAMES = {
  bash_20250124: 'bash',
  code_execution_20250522: 'code_execution',
  code_execution_20250825: 'code_execution',
  code_execution_20260120: 'code_execution',
  code_execution_20260521: 'code_execution',
  browser_toolset_20260801: null,
  computer_toolset_20260801: null,
  memory_20250818: 'memory',
  text_editor_20250124: 'str_replace_editor',
  text_editor_20250429: 'str_replace_based_edit_tool',
  text_editor_20250728: 'str_replace_based_edit_tool',
  web_search_20250305: 'web_search',
  web_search_20260209: 'web_search',
  web_search_20260318: 'web_search',
  web_fetch_20250910: 'web_fetch',
  web_fetch_20260209: 'web_fetch',
  web_fetch_20260309: 'web_fetch',
  web_fetch_20260318: 'web_fetch',
  tool_search_tool_bm25_20251119: 'tool_search_tool_bm25',
  tool_search_tool_bm25: 'tool_search_tool_bm25',
  tool_search_tool_regex_20251119: 'tool_search_tool_regex',
  tool_search_tool_regex: 'tool_search_tool_regex',
} as const satisfies Record<string, string | null>;
type ServerToolType = keyof typeof SERVER_TOOL_NAMES;
export const serverToolTypes = Object.keys(SERVER_TOOL_NAMES) as [ServerToolType, ...ServerToolType[]];

/** Who may call a client tool (`allowed_callers`), as the Messages API names them. */
export const TOOL_CALLERS = [
  'direct',
  'code_execution_20250825',
  'code_execution_20260120',
  'code_execution_20260521',
] as const;

/** Tools that only make sense when the session is bound to a channel. */
export const channelToolNames: readonly BuiltinToolName[] = ['channel_context', 'channel_messages'];

const id = z.string().min(1).max(256);

/**
 * The tools' inputs, one zod schema each: the service validates with them and the definitions sent
 * to the model carry their JSON Schema (`inputSchemaOf`), so the two cannot drift apart.
 */
export const toolInputSchemas = {
  channel_context: z.strictObject({
    intent: z.string().min(1).max(2000).meta({ description: 'What you are trying to find or understand.' }),
    since: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'Only messages at or after this ISO 8601 time.' }),
    authors: z
      .array(id)
      .max(20)
      .optional()
      .meta({ description: 'Author ids or display names whose messages rank higher.' }),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .meta({ default: 8, description: 'How many messages or threads to return.' }),
  }),
  channel_messages: z
    .strictObject({
      thread_id: id.optional().meta({ description: 'Thread to fetch (root + replies).' }),
      message_ids: z.array(id).max(50).optional().meta({ description: 'Messages to fetch by id.' }),
      media_artifact_id: id.optional().meta({
        description: 'Artifact id of a media item of this channel (from a media reference); give it alone.',
      }),
      max_replies: z
        .number()
        .int()
        .min(1)
        .max(500)
        .optional()
        .meta({ default: 50, description: 'Most recent replies of the thread to include.' }),
    })
    .refine((v) => v.thread_id || v.message_ids?.length || v.media_artifact_id, {
      message: 'give thread_id, message_ids or media_artifact_id',
    })
    .refine((v) => !v.media_artifact_id || (!v.thread_id && !v.message_ids), {
      message: 'fetch a media artifact on its own, without thread_id or message_ids',
      path: ['media_artifact_id'],
    }),
  read_result: z.strictObject({
    ref_id: id.meta({ description: 'The ref_id from the stored-result reference.' }),
    offset: z.number().int().min(0).optional().meta({ default: 0, description: 'Byte to start at.' }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(65_536)
      .optional()
      .meta({ default: 4096, description: 'Bytes to read (a character is never cut).' }),
  }),
  memory_search: z.strictObject({
    query: z.string().min(1).max(2000).meta({ description: 'What to look for, in words.' }),
    types: z
      .array(z.enum(memoryTypes))
      .min(1)
      .max(memoryTypes.length)
      .optional()
      .meta({ description: 'Only memories of these types (no conversation excerpts).' }),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .meta({ default: 8, description: 'How many results to return.' }),
  }),
  tool_search: z.strictObject({
    query: z.string().min(1).max(500).meta({ description: 'What the tool should do, or part of its name.' }),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .meta({ default: 5, description: 'How many tools to return.' }),
  }),
  compact_context: z.strictObject({}),
} satisfies Record<BuiltinToolName, z.ZodType>;

/** JSON Schema of a tool input as the Messages API takes it (no $schema, no regex patterns). */
export function inputSchemaOf(schema: z.ZodType): Anthropic.Tool.InputSchema {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== '$schema' && key !== 'pattern')
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  return strip(z.toJSONSchema(schema, { io: 'input' })) as Anthropic.Tool.InputSchema;
}

const DESCRIPTIONS: Record<BuiltinToolName, string> = {
  channel_context:
    "Search this conversation's channel for messages and threads relevant to an intent. Ranked by " +
    'relevance, recency, thread activity and reactions. Use it when the attached ChannelSnapshot is ' +
    'not enough. Results carry a relevance_signal (e.g. "keyword:rollout") and the coverage of the ' +
    'search. Scoped to the current channel only.',
  channel_messages:
    'Fetch exact content from this channel: a whole thread (root and the most recent replies), ' +
    'specific messages by id, or one media artifact posted here (an image comes back as an image, ' +
    'a text file as its first 4 KB, anything else as a one-line description). Scoped to the current channel.',
  read_result:
    'Read a slice of a stored tool result (results over the offload threshold are replaced by a ' +
    'reference with a ref_id). Returns up to `limit` characters starting at `offset`.',
  memory_search:
    'Search durable memories (facts, preferences, outcomes, events, summaries) and earlier ' +
    "conversation for this session's tenant, channel and user. Returns snippets with a score in [0,1] " +
    'and, for a memory, its id, type and scope.',
  tool_search:
    'Find tools that were deferred to save context. Returns matching names, descriptions and input ' +
    'schemas; matches become available on the next turn.',
  compact_context:
    "Compact this conversation's context (summarize older turns) to free space before a large " +
    'operation. Reports tokens before and after.',
};

/** Frozen: every payload shares them, and their token counts are kept (tool-deferral.ts toolTokens). */
export const BUILTIN_TOOLS: Readonly<Record<BuiltinToolName, Anthropic.Tool>> = Object.fromEntries(
  builtinToolNames.map((name) => [
    name,
    deepFreeze({
      name,
      description: DESCRIPTIONS[name],
      input_schema: inputSchemaOf(toolInputSchemas[name]),
    }),
  ]),
) as Record<BuiltinToolName, Anthropic.Tool>;

/**
 * The built-in definitions for a session, in their fixed order. Every tool a payload carries is paid
 * for on every call (in the cached prefix at best), so the ones that only make sense in some calls
 * are sent only then: `readResult`, when the session holds a stored result to read (an offloaded
 * tool result, or a channel whose channel_messages hands out references); `toolSearch`, when some
 * tool is deferred; `memorySearch` and `compactContext`, when they can act (core/tool-offer.ts).
 * All default to true (the tools a session may call: GET …/tools).
 */
export function builtinToolsFor(options: {
  hasChannel: boolean;
  readResult?: boolean;
  toolSearch?: boolean;
  memorySearch?: boolean;
  compactContext?: boolean;
}): Anthropic.Tool[] {
  const off: Partial<Record<BuiltinToolName, boolean | undefined>> = {
    read_result: options.readResult,
    tool_search: options.toolSearch,
    memory_search: options.memorySearch,
    compact_context: options.compactContext,
  };
  return builtinToolNames
    .filter((name) => options.hasChannel || !channelToolNames.includes(name))
    .filter((name) => off[name] !== false)
    .map((name) => BUILTIN_TOOLS[name]);
}

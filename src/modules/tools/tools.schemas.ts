// Built-in agent tools (docs/design.md §6.7): definitions in the Messages API `tools` shape. Names obey
// ^[a-zA-Z0-9_-]{1,64}$ (the API forbids dots). The channel and lane a tool acts in always come
// from the session, never from the tool input, so no schema here has a channel or lane field.
import type Anthropic from '@anthropic-ai/sdk';

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

/** Tools that only make sense when the session is bound to a channel. */
export const channelToolNames: readonly BuiltinToolName[] = ['channel_context', 'channel_messages'];

export const BUILTIN_TOOLS: Readonly<Record<BuiltinToolName, Anthropic.Tool>> = {
  channel_context: {
    name: 'channel_context',
    description:
      "Search this conversation's channel for messages and threads relevant to an intent. Ranked by " +
      'relevance, recency, thread activity and reactions. Use it when the attached ChannelSnapshot is ' +
      'not enough. Results carry a relevance_signal (e.g. "keyword:rollout") and the coverage of the ' +
      'search. Scoped to the current channel only.',
    input_schema: {
      type: 'object',
      properties: {
        intent: { type: 'string', description: 'What you are trying to find or understand.', minLength: 1 },
        since: { type: 'string', description: 'Only messages at or after this ISO 8601 time.' },
        authors: {
          type: 'array',
          items: { type: 'string' },
          description: 'Author ids or display names whose messages rank higher.',
        },
        max_results: { type: 'integer', minimum: 1, maximum: 50, default: 8 },
      },
      required: ['intent'],
      additionalProperties: false,
    },
  },
  channel_messages: {
    name: 'channel_messages',
    description:
      'Fetch exact content from this channel: a whole thread (root and the most recent replies), ' +
      'specific messages by id, or one media artifact posted here (an image comes back as an image, ' +
      'a text file as its first 4 KB, anything else as a one-line description). Scoped to the current channel.',
    input_schema: {
      type: 'object',
      properties: {
        thread_id: { type: 'string', description: 'Thread to fetch (root + replies).' },
        message_ids: { type: 'array', items: { type: 'string' }, maxItems: 50 },
        media_artifact_id: {
          type: 'string',
          description: 'Artifact id of a media item of this channel (from a media reference); give it alone.',
        },
        max_replies: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
      },
      additionalProperties: false,
    },
  },
  read_result: {
    name: 'read_result',
    description:
      'Read a slice of a stored tool result (results over the offload threshold are replaced by a ' +
      'reference with a ref_id). Returns up to `limit` characters starting at `offset`.',
    input_schema: {
      type: 'object',
      properties: {
        ref_id: { type: 'string', description: 'The ref_id from the stored-result reference.' },
        offset: { type: 'integer', minimum: 0, default: 0 },
        limit: { type: 'integer', minimum: 1, maximum: 65536, default: 4096 },
      },
      required: ['ref_id'],
      additionalProperties: false,
    },
  },
  memory_search: {
    name: 'memory_search',
    description:
      'Search durable memories (facts, preferences, outcomes, events, summaries) and earlier ' +
      "conversation for this session's tenant, channel and user. Returns snippets with a score in [0,1].",
    input_schema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        max_results: { type: 'integer', minimum: 1, maximum: 50, default: 8 },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  tool_search: {
    name: 'tool_search',
    description:
      'Find tools that were deferred to save context. Returns matching names, descriptions and input ' +
      'schemas; matches become available on the next turn.',
    input_schema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        max_results: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  compact_context: {
    name: 'compact_context',
    description:
      "Compact this conversation's context (summarize older turns) to free space before a large " +
      'operation. Reports tokens before and after.',
    input_schema: { type: 'object', properties: {}, additionalProperties: false },
  },
};

/** The built-in definitions for a session, in their fixed order. */
export function builtinToolsFor(options: { hasChannel: boolean }): Anthropic.Tool[] {
  return builtinToolNames
    .filter((name) => options.hasChannel || !channelToolNames.includes(name))
    .map((name) => BUILTIN_TOOLS[name]);
}

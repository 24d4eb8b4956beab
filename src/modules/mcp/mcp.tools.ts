// The tools /mcp offers for its bound session (docs/api.md "MCP"): the session's built-in tools,
// run by the tools service exactly as POST /v1/sessions/{id}/tools/{name} runs them, plus two of
// MCP's own over existing operations: get_context (a dry-run context call) and search_memories
// (the memory records the session can see). None takes a tenant, session, channel or lane: those
// come from the binding, so an input cannot reach elsewhere.
import { z } from 'zod';
import { contextBody } from '../context/context.schemas.js';
import { memoryTypes } from '../memory/core/memories.js';
import { toolInvalidInput } from '../tools/tools.errors.js';
import { inputSchemaOf } from '../tools/tools.schemas.js';
import type { ToolReply } from '../tools/tools.service.js';
import type { Services } from '../services.js';

export interface BoundSession {
  tenantId: string;
  sessionId: string;
}

const mcpToolInputs = {
  get_context: z.strictObject({
    message: z
      .string()
      .min(1)
      .max(100_000)
      .meta({ description: 'The user message this turn would send; the payload is assembled around it.' }),
    max_context_tokens: z.number().int().positive().optional(),
    history_turns: z.number().int().min(1).max(10_000).optional(),
    format: z.enum(['anthropic', 'openai']).optional().meta({ default: 'anthropic' }),
  }),
  search_memories: z.strictObject({
    query: z.string().min(1).max(2000),
    types: z.array(z.enum(memoryTypes)).min(1).max(memoryTypes.length).optional(),
    max_results: z.number().int().min(1).max(50).optional().meta({ default: 8 }),
  }),
};
type McpToolName = keyof typeof mcpToolInputs;

const descriptions: Record<McpToolName, string> = {
  get_context:
    "Assemble this session's prompt for a message without recording anything (a dry run of the context call): the payload the model would get, the budget report and the context used.",
  search_memories:
    "Search the durable memories this session can see (the tenant's, its channel's, its user's and its own): facts, preferences, decisions, with their ids, scopes and scores.",
};

export const mcpToolDefinitions = (Object.keys(mcpToolInputs) as McpToolName[]).map((name) => ({
  name,
  description: descriptions[name],
  input_schema: inputSchemaOf(mcpToolInputs[name]),
}));

const isMcpTool = (name: string): name is McpToolName => Object.hasOwn(mcpToolInputs, name);

/** Validation failures named like the REST tools' (`body.input.<field>`). */
function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw toolInvalidInput(
    parsed.error.issues.map((i) => ({
      path: ['body', 'input', ...i.path.map(String)].join('.'),
      message: i.message,
      code: i.code,
    })),
  );
}

/** Runs a tool for the bound session: an MCP tool here, a built-in one through the tools service. */
export async function runSessionTool(
  services: Pick<Services, 'tools' | 'context'>,
  bound: BoundSession,
  name: string,
  input: unknown,
): Promise<ToolReply> {
  if (!isMcpTool(name)) {
    return (await services.tools.runTool({ ...bound, name, input })).body;
  }
  const text = (value: unknown): ToolReply => ({
    content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 1) }],
    is_error: false,
  });
  if (name === 'search_memories') {
    const args = parseInput(mcpToolInputs.search_memories, input);
    return text(
      await services.tools.searchMemories({
        ...bound,
        query: args.query,
        ...(args.types ? { types: args.types } : {}),
        maxResults: args.max_results ?? 8,
      }),
    );
  }
  const args = parseInput(mcpToolInputs.get_context, input);
  // Through the REST body schema, so the call gets the same defaults and checks as POST /context.
  const request = parseInput(contextBody, {
    message: { content: args.message },
    ...(args.max_context_tokens ? { budget: { max_context_tokens: args.max_context_tokens } } : {}),
    ...(args.history_turns ? { history_turns: args.history_turns } : {}),
    ...(args.format ? { format: args.format } : {}),
    dry_run: true,
  });
  const reply = await services.context.assemble({
    ...bound,
    request,
    encode: (reply) => JSON.stringify(reply),
  });
  return text(reply.body);
}

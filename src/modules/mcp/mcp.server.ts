// An MCP server (the SDK's low-level Server) for one bound session: tools/list gives the session's
// built-in tools and MCP's own with titles, annotations and output schemas, tools/call runs them
// (src/modules/mcp/mcp.tools.ts). A tool that fails on its input or its state is a tool result
// with isError, which the model can read and act on; an unknown tool name is a protocol error.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../../shared/api-version.js';
import { AppError } from '../../shared/errors.js';
import type { Services } from '../services.js';
import {
  argumentErrorText,
  isMcpToolName,
  listedTools,
  runSessionTool,
  type BoundSession,
  type McpToolResult,
} from './mcp.tools.js';

function toCallToolResult({ reply, structured }: McpToolResult): CallToolResult {
  return {
    content: reply.content.map((block) =>
      block.type === 'text'
        ? block
        : { type: 'image' as const, data: block.source.data, mimeType: block.source.media_type },
    ),
    ...(structured ? { structuredContent: structured } : {}),
    isError: reply.is_error,
  };
}

export function createSessionMcpServer(
  services: Pick<Services, 'tools' | 'context'>,
  bound: BoundSession,
  /** Receives what the client is not told: an unexpected failure of a tool. */
  logError: (error: unknown) => void,
) {
  const server = new Server(
    { name: 'contextd', version: API_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of one contextd session: search its channel, fetch messages and stored results, search memories, compact the conversation, and preview the assembled context.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { tools } = await services.tools.listTools(bound);
    return { tools: listedTools(tools) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: input } = request.params;
    if (!isMcpToolName(name)) {
      throw new McpError(ErrorCode.InvalidParams, `no tool named "${name}"`);
    }
    try {
      return toCallToolResult(await runSessionTool(services, bound, name, input ?? {}));
    } catch (error) {
      // Anything unknown is hidden like the REST handler's 500 `internal`.
      if (!(error instanceof AppError)) {
        logError(error);
        throw new McpError(ErrorCode.InternalError, 'internal error');
      }
      // Bad arguments are named as the tool names them; any other refusal is its stable code and
      // message, which the model can act on.
      const text = argumentErrorText(name, error) ?? `${error.code}: ${error.message}`;
      return { content: [{ type: 'text', text }], isError: true };
    }
  });
  return server;
}

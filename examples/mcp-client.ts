// npm run example:mcp-client -- [intent]: an MCP client (the official SDK's Client over Streamable
// HTTP) calling contextd's channel_context in one session, with the API key. The lines between the
// two markers are the README's snippet, word for word (a test compares them).
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function callChannelContext(
  CONTEXTD_URL: string,
  CONTEXTD_API_KEY: string,
  SESSION_ID: string,
  intent: string,
): Promise<CallToolResult> {
  // README snippet start
  const url = new URL(`${CONTEXTD_URL}/mcp?session_id=${SESSION_ID}`);
  const headers = { authorization: `Bearer ${CONTEXTD_API_KEY}` };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: 'my-agent', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools(); // channel_context, channel_messages, memory_search, …
  const result = await client.callTool({ name: 'channel_context', arguments: { intent } });
  // README snippet end
  await client.close();
  if (!tools.some((tool) => tool.name === 'channel_context')) throw new Error('no channel_context tool');
  return result as CallToolResult;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { CONTEXTD_URL, CONTEXTD_API_KEY, SESSION_ID } = process.env;
  if (!CONTEXTD_URL || !CONTEXTD_API_KEY || !SESSION_ID) {
    console.error(
      'example:mcp-client: set CONTEXTD_URL, CONTEXTD_API_KEY and SESSION_ID (npm run example:slack-bot prints them)',
    );
    process.exit(2);
  }
  const intent = process.argv.slice(2).join(' ') || 'what is blocking the rollout';
  const result = await callChannelContext(
    CONTEXTD_URL.replace(/\/+$/, ''),
    CONTEXTD_API_KEY,
    SESSION_ID,
    intent,
  );
  for (const block of result.content) console.log(block.type === 'text' ? block.text : JSON.stringify(block));
  process.exit(result.isError ? 1 : 0);
}

// /mcp: the Model Context Protocol over Streamable HTTP (docs/api.md "MCP"), stateless: every POST
// builds a server bound to the session named by `?session_id=` (checked in the caller's tenant
// first, so another tenant's session is a plain 404) and answers with JSON, so any replica behind
// a load balancer can take any request. The API key is checked by the same hook as /v1.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../shared/errors.js';
import type { Services } from '../services.js';
import { createSessionMcpServer } from './mcp.server.js';

const MCP_PATH = '/mcp';

const methodNotAllowed = () =>
  new AppError(
    405,
    'mcp.method_not_allowed',
    'this MCP endpoint is stateless: POST JSON-RPC messages; there is no server-sent event stream to GET and no session to DELETE',
    undefined,
    { allow: 'POST' },
  );

export function mcpRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      MCP_PATH,
      {
        schema: {
          hide: true,
          querystring: z.object({ session_id: z.uuid() }),
        },
      },
      async (request, reply) => {
        const bound = { tenantId: request.tenantId, sessionId: request.query.session_id };
        await services.sessions.get({ tenantId: bound.tenantId, id: bound.sessionId });
        const server = createSessionMcpServer(services, bound, (error) =>
          request.log.error({ err: error }, 'mcp tool failed'),
        );
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        // The transport writes the reply itself.
        reply.hijack();
        reply.raw.setHeader('x-request-id', request.id);
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    );
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: MCP_PATH,
        schema: { hide: true },
        handler: async () => {
          throw methodNotAllowed();
        },
      });
    }
  };
}

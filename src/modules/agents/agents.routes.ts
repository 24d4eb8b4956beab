// /v1/agents/{agentId}/sections: stored system-prompt sections, ordered by position.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { replyIdempotent } from '../../http/idempotency/idempotent-reply.js';
import { z } from 'zod';
import { agentSectionView } from './agent-sections.service.js';
import type { Services } from '../services.js';
import {
  agentId,
  agentParams,
  agentSettingsBody,
  agentSettingsSchema,
  sectionParams,
  sectionSchema,
} from './agents.schemas.js';

const TAGS = ['agents'];
export function agentsRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/agents/:agentId/sections/:name',
      {
        schema: {
          operationId: 'putAgentSection',
          tags: TAGS,
          summary: 'Create or replace a system-prompt section of an agent',
          params: sectionParams,
          headers: idempotencyKeyHeaders,
          body: z.strictObject({
            content: z.string().min(1).max(1_000_000),
            position: z
              .number()
              .int()
              .min(-1_000_000)
              .max(1_000_000)
              .optional()
              .describe('prompt order; default 0'),
            cacheable: z
              .boolean()
              .optional()
              .describe('static enough to sit before a cache breakpoint; default true'),
          }),
          response: { 200: sectionSchema, 201: sectionSchema },
        },
      },
      async (request, reply) => {
        const { tenantId, params, body } = request;
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'agents.sections.put', request: { agent_id: params.agentId, name: params.name, body } },
          async (tx) => {
            const { section, created } = await services.agentSections.put(
              { tenantId, agentId: params.agentId, name: params.name, ...body },
              tx,
            );
            return { statusCode: created ? 201 : 200, body: agentSectionView(section) };
          },
        );
      },
    );

    app.get(
      '/agents/:agentId/sections/:name',
      {
        schema: {
          operationId: 'getAgentSection',
          tags: TAGS,
          summary: 'One section',
          params: sectionParams,
          response: { 200: sectionSchema },
        },
      },
      async (request) =>
        agentSectionView(await services.agentSections.get({ tenantId: request.tenantId, ...request.params })),
    );

    app.get(
      '/agents/:agentId/sections',
      {
        schema: {
          operationId: 'listAgentSections',
          tags: TAGS,
          summary: "An agent's sections in prompt order (position, then name)",
          params: z.object({ agentId }),
          response: { 200: z.object({ sections: z.array(sectionSchema) }) },
        },
      },
      async (request) => {
        const rows = await services.agentSections.listAgentSections(request.tenantId, request.params.agentId);
        return { sections: rows.map(agentSectionView) };
      },
    );

    app.delete(
      '/agents/:agentId/sections/:name',
      {
        schema: {
          operationId: 'deleteAgentSection',
          tags: TAGS,
          summary: 'Delete a section',
          params: sectionParams,
          headers: idempotencyKeyHeaders,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        const { tenantId, params } = request;
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'agents.sections.delete', request: { agent_id: params.agentId, name: params.name } },
          async (tx) => {
            await services.agentSections.remove({ tenantId, ...params }, tx);
            return { statusCode: 204, body: null };
          },
        );
      },
    );

    app.get(
      '/agents/:agentId/settings',
      {
        schema: {
          operationId: 'getAgentSettings',
          tags: TAGS,
          summary: "The agent's defaults for the context call (nulls when none were set)",
          params: agentParams,
          response: { 200: agentSettingsSchema },
        },
      },
      async (request) => services.agentSections.getSettings(request.tenantId, request.params.agentId),
    );

    app.put(
      '/agents/:agentId/settings',
      {
        schema: {
          operationId: 'putAgentSettings',
          tags: TAGS,
          summary:
            "Set the agent's defaults for the context call: history_turns applies when a call names the agent (agent_id, or the session's) and sets none",
          params: agentParams,
          headers: idempotencyKeyHeaders,
          body: agentSettingsBody,
          response: { 200: agentSettingsSchema },
        },
      },
      async (request, reply) => {
        const { tenantId, params, body } = request;
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'agents.settings.put', request: { agent_id: params.agentId, body } },
          async (tx) => ({
            statusCode: 200,
            body: await services.agentSections.putSettings(
              { tenantId, agentId: params.agentId, historyTurns: body.history_turns },
              tx,
            ),
          }),
        );
      },
    );
  };
}

// Agent sections: stored system-prompt sections, so bots send an agent id instead of the text.
import { createHash } from 'node:crypto';
import type { Executor } from '../../db/client.js';
import type { Clock } from '../../shared/clock.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import type {
  AgentSectionRow,
  AgentSectionsRepository,
  AgentSettingsRow,
} from './agent-sections.repository.js';
import { agentSectionNotFound } from './agents.errors.js';

export function createAgentSectionsService(deps: {
  sections: AgentSectionsRepository;
  clock: Clock;
  estimator: TokenEstimator;
}) {
  const { sections } = deps;
  return {
    /** Creates or replaces a section; hash and token estimate are computed here, once. */
    async put(
      params: {
        tenantId: string;
        agentId: string;
        name: string;
        content: string;
        position?: number;
        cacheable?: boolean;
      },
      tx?: Executor,
    ) {
      return sections.upsert(
        {
          tenantId: params.tenantId,
          agentId: params.agentId,
          name: params.name,
          content: params.content,
          position: params.position ?? 0,
          cacheable: params.cacheable ?? true,
          sha256: createHash('sha256').update(params.content).digest('hex'),
          tokenEstimate: deps.estimator.text(params.content),
          updatedAt: deps.clock.now(),
        },
        tx,
      );
    },

    async get(params: { tenantId: string; agentId: string; name: string }) {
      const row = await sections.find(params);
      if (!row) throw agentSectionNotFound(params.agentId, params.name);
      return row;
    },

    /** An agent's sections in prompt order (position, then name). */
    async listAgentSections(tenantId: string, agentId: string): Promise<AgentSectionRow[]> {
      return sections.list({ tenantId, agentId });
    },

    /** An agent's sections and history_turns default for a context call (one read). */
    async forContext(tenantId: string, agentId: string) {
      return sections.forContext({ tenantId, agentId });
    },

    /** The agent's defaults for the context call (nulls when none were set). */
    async getSettings(tenantId: string, agentId: string) {
      return agentSettingsView(agentId, await sections.findSettings({ tenantId, agentId }));
    },

    async putSettings(
      params: { tenantId: string; agentId: string; historyTurns: number | null },
      tx?: Executor,
    ) {
      const row = await sections.upsertSettings(
        {
          tenantId: params.tenantId,
          agentId: params.agentId,
          historyTurns: params.historyTurns,
          updatedAt: deps.clock.now(),
        },
        tx,
      );
      return agentSettingsView(params.agentId, row);
    },

    async remove(params: { tenantId: string; agentId: string; name: string }, tx?: Executor) {
      if (!(await sections.remove(params, tx))) throw agentSectionNotFound(params.agentId, params.name);
    },
  };
}

export type AgentSectionsService = ReturnType<typeof createAgentSectionsService>;

export function agentSectionView(row: AgentSectionRow) {
  return {
    agent_id: row.agentId,
    name: row.name,
    content: row.content,
    position: row.position,
    cacheable: row.cacheable,
    sha256: row.sha256,
    token_estimate: row.tokenEstimate,
    updated_at: row.updatedAt.toISOString(),
  };
}

function agentSettingsView(agentId: string, row: AgentSettingsRow | null) {
  return {
    agent_id: agentId,
    history_turns: row?.historyTurns ?? null,
    updated_at: row?.updatedAt.toISOString() ?? null,
  };
}

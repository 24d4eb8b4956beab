// Errors of agent sections, with stable codes (docs/api.md lists them).
import { notFound } from '../../shared/errors.js';

export const agentSectionNotFound = (agentId: string, name: string) =>
  notFound('agent_section.not_found', `agent ${agentId} has no section ${name}`, { agent_id: agentId, name });

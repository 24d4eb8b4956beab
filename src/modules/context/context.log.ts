// Reading the audit log of context calls (docs/design.md §6.13): pages of it, and the deferred
// tools of the latest call (what tool_search searches).
import type { DeferredTool } from '../tools/core/tool-deferral.js';
import { sessionNotFound } from '../sessions/sessions.errors.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
import type { ContextRepository } from './context.repository.js';
import { contextLogView, type LoggedBudget } from './context.types.js';

export function createContextLogReader(deps: {
  sessions: Pick<SessionsRepository, 'findById'>;
  context: ContextRepository;
}) {
  const { context } = deps;
  return {
    async contextLog(params: { tenantId: string; sessionId: string; afterSeq?: number; limit: number }) {
      if (!(await deps.sessions.findById({ tenantId: params.tenantId, id: params.sessionId }))) {
        throw sessionNotFound(params.sessionId);
      }
      const rows = await context.listLog({
        ...params,
        afterSeq: params.afterSeq ?? 0,
        limit: params.limit + 1,
      });
      const page = rows.slice(0, params.limit);
      return {
        entries: page.map(contextLogView),
        next_cursor: rows.length > params.limit ? page[page.length - 1]!.turnSeq : null,
      };
    },

    /** Deferred tools of the latest context call (what tool_search searches). */
    async lastDeferredTools(params: { tenantId: string; sessionId: string }) {
      const last = await context.lastLog(params);
      return ((last?.budget as LoggedBudget | undefined)?.deferred_tools ?? []) as (DeferredTool & {
        input_schema?: unknown;
      })[];
    },
  };
}

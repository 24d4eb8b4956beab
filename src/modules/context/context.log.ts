// Reading the audit log of context calls (docs/design.md §6.13): pages of it, a logged payload's
// exact bytes (docs/api.md "Replay"), and the deferred tools of the latest call (what tool_search
// searches).
import type { DeferredTool } from '../tools/core/tool-deferral.js';
import { sessionNotFound } from '../sessions/sessions.errors.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
import type { ContextRepository } from './context.repository.js';
import { contextLogView, type LoggedBudget } from './context.types.js';
import { contextLogEntryNotFound, payloadNotStored } from './context.errors.js';
import { joinPayload } from './core/payload-layout.js';

export function createContextLogReader(deps: {
  sessions: Pick<SessionsRepository, 'findById'>;
  context: ContextRepository;
}) {
  const { context } = deps;
  async function checkSession(tenantId: string, sessionId: string) {
    if (!(await deps.sessions.findById({ tenantId, id: sessionId }))) throw sessionNotFound(sessionId);
  }
  return {
    async contextLog(params: { tenantId: string; sessionId: string; afterSeq?: number; limit: number }) {
      await checkSession(params.tenantId, params.sessionId);
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

    /** The exact bytes of the payload the call at `turnSeq` returned, and their logged SHA-256. */
    async loggedPayload(params: { tenantId: string; sessionId: string; turnSeq: number }) {
      await checkSession(params.tenantId, params.sessionId);
      const logged = await context.loggedPayload(params);
      if (!logged) throw contextLogEntryNotFound(params.sessionId, params.turnSeq);
      if (logged.layout === null) throw payloadNotStored(params.turnSeq);
      return { text: joinPayload(logged.layout, logged.bodies), sha256: logged.sha256 };
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

// Reading the audit log of context calls (docs/design.md §6.13): pages of it, a logged payload's
// exact bytes (docs/api.md "Replay"), and the deferred tools of the latest call (what tool_search
// searches).
import type { DeferredTool } from '../tools/core/tool-deferral.js';
import { sessionNotFound } from '../sessions/sessions.errors.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
import type { ContextRepository } from './context.repository.js';
import { contextLogView, type LoggedBudget } from './context.types.js';
import { contextLogEntryNotFound, payloadNotStored } from './context.errors.js';
import { joinPayload, sha256Hex } from './core/payload-layout.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../shared/tokens.js';

/** A logged payload's parts as the Anthropic or the OpenAI format has them (read loosely). */
interface LoggedPayloadShape {
  system?: unknown;
  tools?: unknown[];
  messages?: { role?: string; content?: unknown }[];
}

/**
 * The estimator's tokens of each block of a payload: system blocks, tools, each message's blocks
 * (a string content is one block) and its overhead. The same counts assembly sums in its budget
 * report, block by block, so a reader can see which block costs what.
 */
function payloadBlockTokens(payload: LoggedPayloadShape, estimator: TokenEstimator) {
  const blocksOf = (content: unknown): unknown[] =>
    Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  const system = blocksOf(payload.system).map((b) =>
    typeof b === 'string' ? estimator.text(b) : estimator.content([b]),
  );
  const tools = (payload.tools ?? []).map((t) => estimator.text(JSON.stringify(t)));
  const messages = (payload.messages ?? []).map((m) => ({
    role: String(m.role ?? ''),
    overhead: MESSAGE_OVERHEAD_TOKENS,
    blocks: blocksOf(m.content).map((b) =>
      typeof b === 'string' ? estimator.text(b) : estimator.content([b]),
    ),
  }));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    system,
    tools,
    messages,
    total: sum(system) + sum(tools) + messages.reduce((n, m) => n + m.overhead + sum(m.blocks), 0),
  };
}

export function createContextLogReader(deps: {
  sessions: Pick<SessionsRepository, 'findById'>;
  context: ContextRepository;
  estimator: TokenEstimator;
}) {
  const { context } = deps;
  async function checkSession(tenantId: string, sessionId: string) {
    if (!(await deps.sessions.findById({ tenantId, id: sessionId }))) throw sessionNotFound(sessionId);
  }
  /** The exact bytes of the payload the call at `turnSeq` returned, and their logged SHA-256. */
  async function loggedPayload(params: { tenantId: string; sessionId: string; turnSeq: number }) {
    await checkSession(params.tenantId, params.sessionId);
    const logged = await context.loggedPayload(params);
    if (!logged) throw contextLogEntryNotFound(params.sessionId, params.turnSeq);
    if (logged.layout === null) throw payloadNotStored(params.turnSeq);
    const text = joinPayload(logged.layout, logged.bodies);
    // An erase rewrote parts of it: the bytes no longer hash to what was sent.
    return { text, sha256: logged.sha256, erased: sha256Hex(text) !== logged.sha256 };
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

    loggedPayload,

    /** The estimator's tokens of each block of the payload logged at `turnSeq` (payloadBlockTokens). */
    async loggedPayloadTokens(params: { tenantId: string; sessionId: string; turnSeq: number }) {
      const { text } = await loggedPayload(params);
      return {
        turn_seq: params.turnSeq,
        ...payloadBlockTokens(JSON.parse(text) as LoggedPayloadShape, deps.estimator),
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

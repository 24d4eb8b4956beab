// Bounded work per instance: at most MAX_WORK_IN_FLIGHT work requests (every POST, PUT, PATCH and
// DELETE under /v1 and /mcp: the writes, the context call, searches, tool runs) run at once. The
// excess is answered at once, before its body is read, with 503 `overloaded`, Retry-After (whole
// seconds, as HTTP has it) and Retry-After-Ms (how long admitted work has lately taken, so a client
// can come back as soon as a slot is likely free): nothing of it is written, its memory is not held,
// and the event loop stays free for what is running, for reads and for health checks (never counted).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody } from './error-handler.js';
import type { Metrics } from './metrics.js';

const WORK_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRY_AFTER_SECONDS = '1';
/** The retry hint's bounds and its start, before any work has been timed. */
const HINT_MIN_MS = 10;
const HINT_MAX_MS = 1000;
const HINT_START_MS = 100;
/** Weight of the newest duration in the moving average of admitted work's durations. */
const HINT_WEIGHT = 0.2;

const isWorkRequest = (method: string, url: string): boolean =>
  WORK_METHODS.has(method) && (url.startsWith('/v1/') || url === '/mcp' || url.startsWith('/mcp?'));

const OVERLOADED: ErrorBody = {
  error: {
    code: 'overloaded',
    message:
      'this instance is running as much work as it takes (MAX_WORK_IN_FLIGHT); nothing was done; retry',
  },
};

export function registerLoadShedding(
  app: FastifyInstance,
  options: { limit: number; metrics: Pick<Metrics, 'workInFlight' | 'workShed'> },
): void {
  const { limit, metrics } = options;
  if (limit === 0) return;
  let inFlight = 0;
  let typicalMs = HINT_START_MS;
  const held = new WeakMap<FastifyRequest, number>();
  // The work ends when its reply is sent (the handler or the error handler is done; also when the
  // client has gone meanwhile: the handler still runs to its end); a hijacked reply (the MCP
  // stream) ends when its response closes.
  const release = (request: FastifyRequest) => {
    const started = held.get(request);
    if (started === undefined) return;
    held.delete(request);
    typicalMs += HINT_WEIGHT * (performance.now() - started - typicalMs);
    inFlight -= 1;
    metrics.workInFlight.set(inFlight);
  };
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isWorkRequest(request.method, request.url)) return;
    if (inFlight >= limit) {
      metrics.workShed.inc();
      const hintMs = Math.round(Math.min(HINT_MAX_MS, Math.max(HINT_MIN_MS, typicalMs)));
      return reply
        .code(503)
        .header('retry-after', RETRY_AFTER_SECONDS)
        .header('retry-after-ms', String(hintMs))
        .send(OVERLOADED);
    }
    inFlight += 1;
    metrics.workInFlight.set(inFlight);
    held.set(request, performance.now());
    reply.raw.once('close', () => {
      if (reply.sent) release(request);
    });
  });
  app.addHook('onSend', async (request) => release(request));
}

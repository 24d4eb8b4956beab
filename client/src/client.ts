// The bot loop's calls over openapi-fetch, typed by the generated schema: forward events, get the
// session, ask for the context of a turn, append the model's turns, run contextd's tools. Any
// other operation is `client.api`, the generated openapi-fetch client itself.
import createClient from 'openapi-fetch';
import { ContextdError, FORMAT_MISMATCH, isErrorBody } from './errors.js';
import { createBotLoop } from './loop.js';
import type { operations, paths } from './schema.js';

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type RequestOf<Op extends keyof operations> = JsonOf<operations[Op]['requestBody']>;
type ReplyOf<Op extends keyof operations, Status extends keyof operations[Op]['responses']> = JsonOf<
  operations[Op]['responses'][Status]
>;

export type IngestEvent = RequestOf<'ingestEvents'>['events'][number];
export type IngestReply = ReplyOf<'ingestEvents', 200>;
export type SessionParams = RequestOf<'createSession'>;
export type SessionReply = ReplyOf<'createSession', 200 | 201>;
export type Session = ReplyOf<'getSession', 200>;
export type ContextRequest = RequestOf<'getContext'>;
export type ContextFormat = NonNullable<ContextRequest['format']>;
export type ContextReply<Format extends ContextFormat = ContextFormat> = Extract<
  ReplyOf<'getContext', 200>,
  { format: Format }
>;
type TurnBody = RequestOf<'appendTurns'>['turns'][number];
/**
 * A turn to append. Content blocks are any objects with a `type`, so the SDK's `message.content`
 * goes in as it came back (the generated type asks for an index signature the SDK's interfaces
 * lack); contextd checks every block and answers 400 naming the path of a bad one.
 */
export type Turn = Omit<TurnBody, 'content'> & { content: string | readonly ContentBlockLike[] };
/** An SDK block (an interface) or a block written inline (an object literal with more fields). */
type ContentBlockLike = { type: string } | { type: string; [field: string]: unknown };
export type AppendTurnsReply = ReplyOf<'appendTurns', 201>;
type ToolBody = RequestOf<'runTool'>;
export type ToolResult = ReplyOf<'runTool', 200>;
export type ErasureReply = ReplyOf<'eraseChannelMessage', 200>;

export interface ContextdClientOptions {
  /** Where contextd answers, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** The tenant's API key, sent as `Authorization: Bearer …`. */
  apiKey: string;
  /** A fetch to use instead of the global one (a proxy agent, a test's recorder). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * How many times a request refused with 503 `overloaded` is sent again (default 4). contextd
   * refuses such a request before doing anything of it, so sending it again is always safe; the
   * client waits about the reply's `Retry-After-Ms` (randomized, so refused bots spread out) and
   * then throws the last refusal. 0: never.
   */
  overloadRetries?: number;
}

export interface WriteOptions {
  /** Sent as `Idempotency-Key`: a retried call with the same key and body gets the first reply. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** Longest wait between two sends of a refused request, whatever the reply suggests. */
const MAX_OVERLOAD_WAIT_MS = 5_000;

/** A fetch that sends a request refused as `overloaded` again, up to `retries` times. */
function retryingOverload(
  send: (request: Request) => Promise<Response>,
  retries: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      // A body is read once: every send but the last gets a copy.
      const response = await send(last ? request : request.clone());
      if (last || !(await isOverloaded(response))) return response;
      await pause(overloadWaitMs(response), request.signal);
    }
  };
}

async function isOverloaded(response: Response): Promise<boolean> {
  if (response.status !== 503) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  return isErrorBody(body) && body.error.code === 'overloaded';
}

/** The reply's hint (Retry-After-Ms, else Retry-After in seconds), times a random 0.5–1.5. */
function overloadWaitMs(response: Response): number {
  const ms = Number(response.headers.get('retry-after-ms'));
  const seconds = Number(response.headers.get('retry-after'));
  const hint = ms > 0 ? ms : seconds > 0 ? seconds * 1000 : 100;
  return Math.min(MAX_OVERLOAD_WAIT_MS, hint * (0.5 + Math.random()));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

type Outcome = { data?: unknown; error?: unknown; response: Response };

/** The reply's body on success; a ContextdError for any other status, or a success without a body. */
async function settle<O extends Outcome>(pending: Promise<O>): Promise<NonNullable<O['data']>> {
  const { data, error, response } = await pending;
  if (error !== undefined || !response.ok || data === undefined || data === null) {
    throw ContextdError.fromReply(response, error);
  }
  return data;
}

export function createContextdClient(options: ContextdClientOptions) {
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingOverload(options.fetch ?? ((request) => fetch(request)), options.overloadRetries ?? 4),
  });
  const idempotency = (opts: WriteOptions = {}) => ({ 'idempotency-key': opts.idempotencyKey });

  /**
   * `POST /v1/sessions/{id}/context`: the payload of this turn. In the default (Anthropic) format,
   * `reply.payload` spreads into `anthropic.messages.create({ ...reply.payload })` as it is.
   */
  function context(
    sessionId: string,
    body: ContextRequest & { format?: 'anthropic' },
    opts?: WriteOptions,
  ): Promise<ContextReply<'anthropic'>>;
  function context(
    sessionId: string,
    body: ContextRequest & { format: 'openai' },
    opts?: WriteOptions,
  ): Promise<ContextReply<'openai'>>;
  function context(sessionId: string, body: ContextRequest, opts?: WriteOptions): Promise<ContextReply>;
  async function context(
    sessionId: string,
    body: ContextRequest,
    opts?: WriteOptions,
  ): Promise<ContextReply> {
    const reply: ContextReply = await settle(
      api.POST('/v1/sessions/{id}/context', {
        params: { header: idempotency(opts), path: { id: sessionId } },
        body,
        signal: opts?.signal,
      }),
    );
    // The overloads promise the format asked for; a reply in another one is not handed on as it.
    const asked = body.format ?? 'anthropic';
    if (reply.format !== asked) {
      const message = `asked for the ${asked} format, got ${reply.format}`;
      throw new ContextdError(200, FORMAT_MISMATCH, message, undefined, undefined);
    }
    return reply;
  }

  const operations = {
    api,

    /** `POST /v1/events`: 1–500 normalized channel events, each with its outcome. */
    ingest: (events: IngestEvent[], opts?: WriteOptions): Promise<IngestReply> =>
      settle(
        api.POST('/v1/events', {
          params: { header: idempotency(opts) },
          body: { events },
          signal: opts?.signal,
        }),
      ),

    /** `POST /v1/sessions`: the live session for these parameters, created when there is none. */
    session: (params: SessionParams, opts?: WriteOptions): Promise<SessionReply> =>
      settle(
        api.POST('/v1/sessions', {
          params: { header: idempotency(opts) },
          body: params,
          signal: opts?.signal,
        }),
      ),

    /** `GET /v1/sessions/{id}`: the session with its counters and calibration. */
    getSession: (sessionId: string, opts?: { signal?: AbortSignal }): Promise<Session> =>
      settle(api.GET('/v1/sessions/{id}', { params: { path: { id: sessionId } }, signal: opts?.signal })),

    context,

    /** `POST /v1/sessions/{id}/turns`: the model's turns (and tool results) as they were sent. */
    appendTurns: (sessionId: string, turns: Turn[], opts?: WriteOptions): Promise<AppendTurnsReply> =>
      settle(
        api.POST('/v1/sessions/{id}/turns', {
          params: { header: idempotency(opts), path: { id: sessionId } },
          // The one widening above (Turn's content blocks); the shapes are otherwise the same.
          body: { turns: turns as TurnBody[] },
          signal: opts?.signal,
        }),
      ),

    /**
     * `POST /v1/sessions/{id}/tools/{name}`: runs one of contextd's tools for a tool_use block.
     * `input` is the block's input as the SDK types it (`unknown`); contextd validates it (an input
     * that is not the tool's object is a 400 naming the field).
     */
    runTool: (sessionId: string, name: string, input: unknown, opts?: WriteOptions): Promise<ToolResult> =>
      settle(
        api.POST('/v1/sessions/{id}/tools/{name}', {
          params: { header: idempotency(opts), path: { id: sessionId, name } },
          body: { input: input as ToolBody['input'] },
          signal: opts?.signal,
        }),
      ),

    /**
     * `DELETE /v1/channels/{platform}/{channelId}/messages/{messageId}/content`: erases a channel
     * message's content everywhere contextd stores it (tombstone and audit record stay).
     * Idempotent: a second call answers the first erase's record with `already_erased: true`.
     */
    eraseChannelMessage: (
      target: { platform: string; channelId: string; messageId: string },
      opts?: WriteOptions,
    ): Promise<ErasureReply> =>
      settle(
        api.DELETE('/v1/channels/{platform}/{channelId}/messages/{messageId}/content', {
          params: { header: idempotency(opts), path: target },
          signal: opts?.signal,
        }),
      ),

    /** `DELETE /v1/sessions/{id}/transcript/{seq}/content`: erases one transcript entry's content, likewise. */
    eraseTranscriptEntry: (sessionId: string, seq: number, opts?: WriteOptions): Promise<ErasureReply> =>
      settle(
        api.DELETE('/v1/sessions/{id}/transcript/{seq}/content', {
          params: { header: idempotency(opts), path: { id: sessionId, seq } },
          signal: opts?.signal,
        }),
      ),
  };
  return { ...operations, ...createBotLoop(operations) };
}

export type ContextdClient = ReturnType<typeof createContextdClient>;

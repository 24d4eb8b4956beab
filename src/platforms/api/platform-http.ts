// One outbound HTTP request to a platform: connect only to permitted addresses (checked on the
// resolved address), follow redirects by hand to allowed hosts only, stop at a deadline, read at
// most a byte limit (streamed: a 2 GB file is refused, never buffered), 429 → a typed error with
// the delay. Built on node:http so the DNS lookup of each connection is ours.
import { SpanKind, traced } from '../../telemetry/traced.js';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AddressGuard } from './address-guard.js';
import { PlatformApiError, redactSecrets, retryAfterMs } from './platform-errors.js';

export interface PlatformHttpRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Hosts (`host[:port]` as in URL.host) a redirect may lead to; the first URL's host is the caller's check. */
  redirectHosts: ReadonlySet<string>;
  /** Longest body read; past it the request is aborted. */
  maxBytes: number;
  /** Strings cut out of every error message (the token, and anything derived from it). */
  secrets: readonly (string | undefined)[];
}

export interface PlatformHttpResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

export interface PlatformHttp {
  send(request: PlatformHttpRequest): Promise<PlatformHttpResponse>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

export function createPlatformHttp(options: {
  guard: AddressGuard;
  timeoutMs: number;
  now?: () => number;
}): PlatformHttp {
  const now = options.now ?? Date.now;

  async function send(request: PlatformHttpRequest): Promise<PlatformHttpResponse> {
    const deadline = now() + options.timeoutMs;
    let url = new URL(request.url);
    let method = request.method ?? 'GET';
    let body = request.body;
    let headers = { ...request.headers };
    const safe = (u: URL) => redactSecrets(`${u.host}${u.pathname}`, request.secrets);
    for (let hop = 0; ; hop += 1) {
      const response = await once(url, method, headers, body, request, deadline, safe(url));
      if (!REDIRECTS.has(response.status)) return response;
      const location = response.headers.location;
      if (!location) return response;
      if (hop >= MAX_REDIRECTS) {
        throw new PlatformApiError('redirect_refused', `${safe(url)}: more than ${MAX_REDIRECTS} redirects`, {
          status: response.status,
        });
      }
      const next = new URL(location, url);
      if (!request.redirectHosts.has(next.host) || !/^https?:$/.test(next.protocol)) {
        throw new PlatformApiError(
          'redirect_refused',
          `${safe(url)} redirected to ${redactSecrets(next.host, request.secrets)}, which is not an allowed host`,
          { status: response.status },
        );
      }
      // Credentials go only where they were sent first.
      if (next.origin !== url.origin) {
        headers = Object.fromEntries(
          Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'),
        );
      }
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  }

  function once(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    request: PlatformHttpRequest,
    deadline: number,
    label: string,
  ): Promise<PlatformHttpResponse> {
    return new Promise((resolve, reject) => {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        return reject(new PlatformApiError('host_refused', `${label}: only http and https URLs are fetched`));
      }
      // A literal address is never looked up, so it is checked here.
      const hostname = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(hostname)) {
        const refusal = options.guard.refusal(hostname);
        if (refusal) return reject(new PlatformApiError('address_refused', `${label}: ${refusal}`));
      }
      const remaining = deadline - now();
      if (remaining <= 0)
        return reject(new PlatformApiError('timeout', `${label}: no answer in ${options.timeoutMs} ms`));
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      const fail = (error: PlatformApiError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(error);
      };
      const req = send(url, {
        method,
        headers: {
          'user-agent': 'contextd',
          ...headers,
          ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}),
        },
        lookup: options.guard.lookup,
        // One connection per call: a pooled socket would skip the lookup of a later call.
        agent: false,
      });
      const timer = setTimeout(
        () => fail(new PlatformApiError('timeout', `${label}: no answer in ${options.timeoutMs} ms`)),
        remaining,
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRREFUSEDBYPOLICY') {
          fail(
            new PlatformApiError(
              'address_refused',
              `${label}: ${redactSecrets(error.message, request.secrets)}`,
            ),
          );
        } else {
          fail(new PlatformApiError('network', `${label}: ${error.code ?? 'connection failed'}`));
        }
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status === 429) {
          res.resume();
          return fail(
            new PlatformApiError('rate_limited', `${label}: rate limited by the platform`, {
              status,
              ...withRetryAfter(retryAfterMs(header(res, 'retry-after'), now())),
            }),
          );
        }
        if (REDIRECTS.has(status)) {
          res.resume();
          settled = true;
          clearTimeout(timer);
          return resolve({ status, headers: res.headers, body: Buffer.alloc(0), url: url.href });
        }
        const declared = Number(header(res, 'content-length'));
        if (Number.isFinite(declared) && declared > request.maxBytes) {
          return fail(tooLarge(label, request.maxBytes, declared));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) return fail(tooLarge(label, request.maxBytes));
          chunks.push(chunk);
        });
        res.on('error', () => fail(new PlatformApiError('network', `${label}: the reply was cut off`)));
        res.on('aborted', () => fail(new PlatformApiError('network', `${label}: the reply was cut off`)));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status, headers: res.headers, body: Buffer.concat(chunks, size), url: url.href });
        });
      });
      req.end(body);
    });
  }

  return {
    send: (request) =>
      traced('platform.call', () => send(request), {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': request.method ?? 'GET',
          'server.address': new URL(request.url).host,
        },
      }),
  };
}

const header = (res: IncomingMessage, name: string) => {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const withRetryAfter = (ms: number | undefined) => (ms === undefined ? {} : { retryAfterMs: ms });

function tooLarge(label: string, limit: number, declared?: number) {
  return new PlatformApiError(
    'too_large',
    `${label}: the reply is larger than ${limit} bytes${declared !== undefined ? ` (${declared} declared)` : ''}`,
  );
}

/** The body as JSON, or a bad_json error naming where it came from. */
export function parseJsonBody(response: PlatformHttpResponse, label: string): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new PlatformApiError('bad_json', `${label}: the reply is not JSON (HTTP ${response.status})`, {
      status: response.status,
    });
  }
}

// What every platform client shares: the call key and gate (a rate limiter plugs in there), the
// tenant's credential, the host check for media URLs and the reading of media replies.
import type { SupportedPlatform } from '../index.js';
import {
  parseJsonBody,
  type PlatformHttp,
  type PlatformHttpRequest,
  type PlatformHttpResponse,
} from './platform-http.js';
import { PlatformApiError, redactSecrets } from './platform-errors.js';

export { parseJsonBody };

/** Who a call is made for: the rate-limit unit is (tenant, platform, workspace). */
export interface PlatformCallKey {
  tenantId: string;
  platform: SupportedPlatform;
  /** Slack team / Discord guild, when known; null: the tenant's whole token. */
  workspaceId: string | null;
}

/**
 * Passed before every platform call. `acquire` resolves when the call may go (it may wait) or
 * throws a PlatformApiError (`rate_limited`) to refuse it; `onRateLimited` hears the platform's
 * own 429s so a shared limiter can hold the key back.
 */
export interface PlatformCallGate {
  acquire(key: PlatformCallKey): Promise<void>;
  onRateLimited?(key: PlatformCallKey, retryAfterMs: number | undefined): void | Promise<void>;
}

/** Lets every call through (no limiter configured). */
export const openCallGate: PlatformCallGate = { acquire: async () => {} };

/** A tenant's decrypted token for one platform. */
export interface PlatformCredential {
  tenantId: string;
  platform: SupportedPlatform;
  token: string;
  workspaceId: string | null;
}

/** Bytes fetched from a platform, with the type it declared. */
export interface FetchedMedia {
  bytes: Buffer;
  mediaType: string | null;
  /** The URL that finally answered (redirects followed), with any token cut out. */
  source: string;
}

/** What each client is built from. */
export interface PlatformClientDeps {
  http: PlatformHttp;
  gate: PlatformCallGate;
  baseUrl: string;
  /** Hosts calls, downloads and their redirects may reach. */
  hosts: ReadonlySet<string>;
  responseLimitBytes: number;
  mediaLimitBytes: number;
}

/** Runs one call through the gate, telling the gate about the platform's 429s. */
export async function gated<T>(
  gate: PlatformCallGate,
  credential: PlatformCredential,
  call: () => Promise<T>,
) {
  const key: PlatformCallKey = {
    tenantId: credential.tenantId,
    platform: credential.platform,
    workspaceId: credential.workspaceId,
  };
  await gate.acquire(key);
  try {
    return await call();
  } catch (error) {
    if (error instanceof PlatformApiError && error.kind === 'rate_limited') {
      await gate.onRateLimited?.(key, error.details.retryAfterMs);
    }
    throw error;
  }
}

/**
 * One API call with the tenant's token whose reply is JSON: sent within the client's hosts and
 * response limit with the token cut out of every error, a 5xx refused as `http_status`, the body
 * parsed (`bad_json` when it is not JSON). The platform's own error shape is the caller's to read.
 */
export async function sendForJson(
  deps: PlatformClientDeps,
  credential: PlatformCredential,
  label: string,
  request: Pick<PlatformHttpRequest, 'url' | 'method' | 'headers' | 'body'>,
): Promise<{ status: number; body: unknown }> {
  const response = await deps.http.send({
    ...request,
    redirectHosts: deps.hosts,
    maxBytes: deps.responseLimitBytes,
    secrets: [credential.token],
  });
  if (response.status >= 500) {
    throw new PlatformApiError('http_status', `${label}: HTTP ${response.status}`, {
      status: response.status,
    });
  }
  return { status: response.status, body: parseJsonBody(response, label) };
}

/** The URL as a PlatformApiError `host_refused` unless its host is one the platform serves from. */
export function checkedUrl(raw: string, hosts: ReadonlySet<string>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PlatformApiError('host_refused', 'the media URL is not a valid URL');
  }
  if (!hosts.has(url.host) || !/^https?:$/.test(url.protocol)) {
    throw new PlatformApiError('host_refused', `${url.host} is not a host this platform serves files from`);
  }
  return url;
}

/** A media reply: 2xx with bytes, else a typed error naming the status. */
export function mediaFrom(
  response: PlatformHttpResponse,
  label: string,
  secrets: readonly string[],
): FetchedMedia {
  if (response.status === 401 || response.status === 403) {
    throw new PlatformApiError(
      'unauthorized',
      `${label}: the platform refused the token (HTTP ${response.status})`,
      {
        status: response.status,
      },
    );
  }
  if (response.status === 404)
    throw new PlatformApiError('not_found', `${label}: not found`, { status: 404 });
  if (response.status < 200 || response.status >= 300) {
    throw new PlatformApiError('http_status', `${label}: HTTP ${response.status}`, {
      status: response.status,
    });
  }
  const type = response.headers['content-type'];
  return {
    bytes: response.body,
    mediaType: typeof type === 'string' ? (type.split(';')[0]?.trim().toLowerCase() ?? null) : null,
    source: redactSecrets(response.url, secrets),
  };
}

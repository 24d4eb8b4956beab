// Typed failures of platform API calls and media downloads. Messages name the host and path with
// any token cut out, never the token itself.

type PlatformErrorKind =
  | 'timeout'
  | 'network'
  | 'address_refused'
  | 'host_refused'
  | 'redirect_refused'
  | 'too_large'
  | 'bad_json'
  | 'http_status'
  | 'rate_limited'
  | 'unauthorized'
  | 'not_found'
  | 'platform_error';

export class PlatformApiError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly details: {
      status?: number;
      /** The platform's own error code (Slack `error`, Discord `code`, Telegram `description`). */
      platformError?: string;
      /** rate_limited: how long the platform asked to wait. */
      retryAfterMs?: number;
    } = {},
  ) {
    super(message);
    this.name = 'PlatformApiError';
  }
}

/** Replaces every occurrence of each secret with `[redacted]` (URLs of Telegram carry the token). */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    out = out.split(secret).join('[redacted]');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join('[redacted]');
  }
  return out;
}

/** Retry-After in seconds (or an HTTP date) → milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

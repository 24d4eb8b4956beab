// Environment → typed configuration. The only file that reads process.env; every default lives here.
import { isIP } from 'node:net';
import { z } from 'zod';

const int = (def: number) => z.coerce.number().int().nonnegative().default(def);
const ratio = (def: number) => z.coerce.number().gt(0).lte(1).default(def);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** `tenant:key,tenant:key` pairs that bootstrap API keys at start-up. */
const apiKeyPairs = optionalString.pipe(
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return [];
      const pairs: { tenantId: string; key: string }[] = [];
      for (const part of v.split(',')) {
        const idx = part.indexOf(':');
        const tenantId = part.slice(0, idx).trim();
        const key = part.slice(idx + 1).trim();
        if (idx <= 0 || !key || !/^[a-zA-Z0-9_-]{1,64}$/.test(tenantId)) {
          ctx.addIssue({
            code: 'custom',
            message: `expected tenant:key pairs separated by commas, got "${part}"`,
          });
          return z.NEVER;
        }
        pairs.push({ tenantId, key });
      }
      return pairs;
    }),
);

/** `host:port,host:port` (Redis Cluster seed nodes, Sentinels): at least one, each with a port. */
const hostPortList = optionalString.transform((v, ctx): { host: string; port: number }[] | undefined => {
  if (v === undefined) return undefined;
  const nodes: { host: string; port: number }[] = [];
  for (const part of v.split(',')) {
    const match = /^\s*\[?([^\]\s]+?)\]?:(\d{1,5})\s*$/.exec(part);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      ctx.addIssue({
        code: 'custom',
        message: `expected host:port entries separated by commas, got "${part}"`,
      });
      return z.NEVER;
    }
    nodes.push({ host: match[1]!, port });
  }
  return nodes;
});

/** An address or CIDR (`10.0.0.0/8`, `fd00::/8`) or one of proxy-addr's names (loopback, linklocal, uniquelocal). */
const isTrustedProxy = (entry: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
};

/**
 * Fastify's `trustProxy`: false (default: the socket's peer is the client), true (trust every
 * hop: only when nothing can reach the server except through the proxy), or a comma list of
 * proxy addresses/CIDRs whose X-Forwarded-For is believed. A hop count is refused: Fastify 5
 * ignores it (fails closed), so it would silently leave every client in the proxy's bucket.
 */
const trustProxy = optionalString.transform((v, ctx): boolean | string[] => {
  if (v === undefined || v.toLowerCase() === 'false') return false;
  if (v.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(v)) {
    ctx.addIssue({
      code: 'custom',
      message:
        'a hop count is not honoured by Fastify 5; list the proxy addresses/CIDRs (e.g. uniquelocal) or use true',
    });
    return z.NEVER;
  }
  const entries = v.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isTrustedProxy(e));
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `expected true, false or addresses/CIDRs separated by commas; not valid: "${bad.join('", "')}"`,
    });
    return z.NEVER;
  }
  return entries;
});

/** A comma list of addresses or CIDRs (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`). */
const cidrList = optionalString.transform((v, ctx): string[] => {
  if (v === undefined) return [];
  const entries = v.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isTrustedProxy(e) || !isIP(e.split('/')[0] ?? ''));
  if (bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `expected addresses/CIDRs; not valid: "${bad.join('", "')}"` });
    return z.NEVER;
  }
  return entries;
});

/** OTLP over HTTP only: http/protobuf (the specification's default) or http/json. */
const otlpProtocol = z
  .enum(['http/protobuf', 'http/json'], {
    error: (i) =>
      `unsupported protocol "${String(i.input)}": expected http/protobuf or http/json (grpc is not built in)`,
  })
  .optional();

/** The W3C-baggage-like `key=value,key=value` list of OTEL_EXPORTER_OTLP_HEADERS (values URL-encoded). */
const otlpHeaders = optionalString.pipe(
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const headers: Record<string, string> = {};
      for (const pair of v ? v.split(',') : []) {
        const idx = pair.indexOf('=');
        const key = pair.slice(0, idx).trim();
        if (idx <= 0 || !key) {
          ctx.addIssue({
            code: 'custom',
            message: `expected key=value pairs separated by commas, got "${pair}"`,
          });
          return z.NEVER;
        }
        headers[key] = decodeURIComponent(pair.slice(idx + 1).trim());
      }
      return headers;
    }),
);

const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATABASE_URL: optionalString.pipe(z.url().optional()),
  /**
   * A streaming replica for reads that tolerate lag (docs/operations.md, "Read replicas"); the rest
   * stays on DATABASE_URL. While it cannot be reached its reads go to DATABASE_URL.
   */
  DATABASE_READ_URL: optionalString.pipe(z.url().optional()),
  /** Apply pending migrations at start (`false`: `npm run migrate` is a step of its own). */
  DATABASE_MIGRATE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer `pool_mode =
   * transaction`): no named statements, no generic-plan connections, no session state
   * (docs/operations.md, "Behind a connection pooler"). `session`: a server or a session pooler.
   */
  DATABASE_POOL_MODE: z.enum(['session', 'transaction']).default('session'),
  /** Connections of this instance's main pool (docs/operations.md, "Connections"). */
  DATABASE_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10),
  /**
   * Server-side prepared statements for fixed-shape queries (postgres.js). Off under
   * DATABASE_POOL_MODE=transaction; turn off behind any other proxy that cannot keep them.
   */
  DATABASE_PREPARED_STATEMENTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * The full-text candidate reads of rare lexemes run on up to 4 connections of their own that
   * start with plan_cache_mode = force_generic_plan (docs/architecture.md). Turn off behind a
   * pooler that refuses that startup parameter; needs DATABASE_PREPARED_STATEMENTS. Off under
   * DATABASE_POOL_MODE=transaction.
   */
  DATABASE_GENERIC_PLANS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** A database statement (or BEGIN) unanswered this long fails with 503 `storage.timeout`; 0: no limit. */
  DATABASE_STATEMENT_TIMEOUT_MS: int(15_000),
  /** Opening a database connection gives up after this long. */
  DATABASE_CONNECT_TIMEOUT_MS: int(5_000),
  /**
   * On SIGTERM, /readyz answers 503 this long while requests are still served, then the server
   * closes. Unset: 5000 in production, 0 otherwise (a developer's Ctrl-C does not wait).
   */
  SHUTDOWN_DRAIN_MS: int(5_000),
  DATA_DIR: z.string().default('./data'),
  /** One Redis server (or a proxy in front of many). At most one of REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS. */
  REDIS_URL: optionalString.pipe(z.url().optional()),
  /** Redis Cluster: seed nodes `host:port,…` (the rest are discovered). */
  REDIS_CLUSTER_NODES: hostPortList,
  /** Redis Sentinel: the sentinels `host:port,…`; the master is REDIS_SENTINEL_NAME. */
  REDIS_SENTINELS: hostPortList,
  REDIS_SENTINEL_NAME: optionalString,
  /** Password of the Redis Cluster nodes or of the Sentinel-managed master (REDIS_URL carries its own). */
  REDIS_PASSWORD: optionalString,
  /** Password of the sentinels themselves, when they require one. */
  REDIS_SENTINEL_PASSWORD: optionalString,
  /** A Redis command unanswered this long fails (the caller falls back as if Redis were down). */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(1).default(2_000),
  API_KEYS: apiKeyPairs,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString.pipe(z.url().optional()),
  SUMMARY_MODEL: z.string().default('claude-haiku-5-5'),
  /** The summarizer's context window; its input never exceeds 40% of it. */
  SUMMARY_WINDOW_TOKENS: int(200_000),
  /** A summarizer request slower than this falls back to the extractive summarizer. */
  SUMMARY_TIMEOUT_MS: int(60_000),
  /** Background compaction jobs this instance works at once (0: this instance works none). */
  COMPACTION_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  /** A compaction job active this long is taken as crashed (its instance died) and retried. */
  COMPACTION_JOB_EXPIRE_SECONDS: int(600),
  DEFAULT_MODEL: z.string().default('claude-sonnet-5-5'),
  CONTEXT_BUDGET: int(200_000),
  MAX_OUTPUT_TOKENS: int(8192),
  COMPACT_TRIGGER: ratio(0.95),
  HARD_BLOCK: ratio(0.98),
  RESULT_OFFLOAD_BYTES: int(4096),
  TOOL_DEFERRAL_SHARE: ratio(0.1),
  THREAD_BUDGET: int(8000),
  SESSION_MAX_AGE_MS: int(14_400_000),
  /** How often each instance tries the retention pass (one instance runs it at a time). */
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(60_000).default(3_600_000),
  /**
   * Conversation data (channel messages, transcripts, idle sessions, derived memories, orphan
   * blobs) older than this many days is deleted, unless the tenant sets its own; 0: kept.
   */
  RETENTION_DAYS: int(0),
  /** Context-log rows (and the payload parts only they used) older than this many days go, unless the tenant sets its own; 0: kept. */
  CONTEXT_LOG_RETENTION_DAYS: int(90),
  /**
   * Weekly partitions of the context log and its payload parts created ahead of the current week by
   * each retention pass (and at start); a week past the longest context-log period is dropped whole.
   */
  CONTEXT_LOG_PARTITIONS_AHEAD: z.coerce.number().int().min(1).max(52).default(2),
  /** How long ingest event ids are remembered for dedupe; the hourly retention job prunes older ones. */
  INGEST_DEDUPE_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(3_600_000, 'must be at least 3600000 (1 h): the retention job runs hourly')
    .default(7 * 86_400_000),
  /** How long Idempotency-Key replies are kept (replayed); the hourly retention job prunes older ones. */
  IDEMPOTENCY_TTL_MS: z.coerce
    .number()
    .int()
    .min(3_600_000, 'must be at least 3600000 (1 h): the retention job runs hourly')
    .default(86_400_000),
  BODY_LIMIT_BYTES: int(10 * 1024 * 1024),
  BLOB_LIMIT_BYTES: int(25 * 1024 * 1024),
  RATE_LIMIT_PER_MINUTE: int(6000),
  /**
   * Work requests (writes, the context call, searches) one instance runs at once; the excess is
   * answered at once with 503 `overloaded` and Retry-After (0: no limit). Reads and health are not counted.
   * Two: a context call is mostly CPU on the one event loop, so a third in flight adds waiting, not
   * throughput (docs/operations.md, "Overload").
   */
  MAX_WORK_IN_FLIGHT: int(2),
  TRUST_PROXY: trustProxy,
  /** Platform Web API base URLs (tests point them at local fakes). */
  SLACK_API_URL: z.url().default('https://slack.com/api'),
  DISCORD_API_URL: z.url().default('https://discord.com/api/v10'),
  TELEGRAM_API_URL: z.url().default('https://api.telegram.org'),
  /** A platform API call (or one media download) unanswered this long fails. */
  PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** Largest platform API (JSON) reply read; a longer one is cut off and fails. */
  PLATFORM_RESPONSE_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /** How long a display name resolved through a platform API is used before it is looked up again. */
  PLATFORM_NAME_TTL_MS: z.coerce.number().int().min(60_000).default(86_400_000),
  /**
   * Addresses/CIDRs platform calls and media downloads may connect to although they are private,
   * loopback or link-local (refused by default: a media URL must not reach the internal network).
   */
  PLATFORM_FETCH_ALLOW: cidrList,
  /**
   * 32 bytes (64 hex characters or base64) that encrypt stored bot tokens (AES-256-GCM); unset:
   * tokens are stored as given (still never returned or logged).
   */
  PLATFORM_TOKEN_KEY: optionalString.pipe(
    z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return undefined;
        const key = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
        if (key.length !== 32) {
          ctx.addIssue({ code: 'custom', message: 'expected 32 bytes as 64 hex characters or base64' });
          return z.NEVER;
        }
        return key;
      }),
  ),
  /** Platform API calls (backfill) per minute per tenant, platform and workspace, across all replicas. */
  PLATFORM_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(2, 'must be at least 2: a fixed-window limiter cannot hold 1 call per minute')
    .default(40),
  /** Past the limit: `queue` waits for a slot (at most PLATFORM_RATE_QUEUE_MAX_MS), `degrade` serves what is stored. */
  PLATFORM_RATE_OVERFLOW: z.enum(['queue', 'degrade']).default('queue'),
  PLATFORM_RATE_QUEUE_MAX_MS: int(5_000),
  /** Fetch missing channel and thread history from the platform on reads (needs the tenant's bot token). */
  PLATFORM_BACKFILL: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * `/metrics` asks for `Authorization: Bearer {METRICS_TOKEN}` when set. Without it (and without
   * METRICS_PORT) it is served openly except in production, where it is not served at all.
   */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Serve `/metrics` on this port of its own (at HOST) instead of the API's port. */
  METRICS_PORT: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, 'expected a port number')
      .transform(Number)
      .pipe(z.number().max(65535))
      .optional(),
  ),
  /** OpenTelemetry (the standard variables): `true` turns tracing off whatever else is set. */
  OTEL_SDK_DISABLED: z
    .enum(['true', 'false', ''])
    .default('false')
    .transform((v) => v === 'true'),
  /** `otlp` or `none`; unset: `otlp` when an OTLP endpoint is set, else tracing is off. */
  OTEL_TRACES_EXPORTER: optionalString.pipe(
    z
      .enum(['otlp', 'none'], {
        error: (i) => `unsupported exporter "${String(i.input)}": expected otlp or none`,
      })
      .optional(),
  ),
  /** Base URL of an OTLP/HTTP receiver; spans go to {base}/v1/traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(z.url().optional()),
  /** The traces URL itself (wins over OTEL_EXPORTER_OTLP_ENDPOINT). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString.pipe(z.url().optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: optionalString.pipe(otlpProtocol),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: optionalString.pipe(otlpProtocol),
  /** `key=value,key=value` headers sent with every export (an API key of the backend). */
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeaders,
  OTEL_SERVICE_NAME: z.string().min(1).default('contextd'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super('invalid configuration:\n' + issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n'));
  }
}

/** Parses an env-like record; throws ConfigError naming each bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
  const config = result.data;
  if (!env.SHUTDOWN_DRAIN_MS?.trim() && config.NODE_ENV !== 'production') config.SHUTDOWN_DRAIN_MS = 0;
  if (config.DATABASE_POOL_MODE === 'transaction') {
    // Explicitly asked for what a transaction pooler cannot keep: refused, not silently overridden.
    const contradicting = (['DATABASE_PREPARED_STATEMENTS', 'DATABASE_GENERIC_PLANS'] as const).filter(
      (variable) => env[variable]?.trim() === 'true',
    );
    if (contradicting.length > 0) {
      throw new ConfigError(
        contradicting.map((variable) => ({
          variable,
          message: 'must be false (or unset) with DATABASE_POOL_MODE=transaction',
        })),
      );
    }
    config.DATABASE_PREPARED_STATEMENTS = false;
    config.DATABASE_GENERIC_PLANS = false;
  }
  const redisModes = (['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const).filter(
    (name) => config[name] !== undefined,
  );
  if (redisModes.length > 1) {
    throw new ConfigError([
      { variable: redisModes[1]!, message: `set only one of ${redisModes.join(', ')}` },
    ]);
  }
  if (Boolean(config.REDIS_SENTINELS) !== Boolean(config.REDIS_SENTINEL_NAME)) {
    const missing = config.REDIS_SENTINELS ? 'REDIS_SENTINEL_NAME' : 'REDIS_SENTINELS';
    throw new ConfigError([
      { variable: missing, message: 'REDIS_SENTINELS and REDIS_SENTINEL_NAME go together' },
    ]);
  }
  if (config.HARD_BLOCK < config.COMPACT_TRIGGER) {
    throw new ConfigError([{ variable: 'HARD_BLOCK', message: 'must be at least COMPACT_TRIGGER' }]);
  }
  if (config.MAX_OUTPUT_TOKENS >= config.CONTEXT_BUDGET) {
    throw new ConfigError([{ variable: 'MAX_OUTPUT_TOKENS', message: 'must be below CONTEXT_BUDGET' }]);
  }
  return config;
}

export function loadConfig(): Config {
  return parseConfig(process.env);
}

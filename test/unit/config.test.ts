import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('parseConfig', () => {
  it('applies the defaults of docs/design.md §7 with no env at all', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      DATA_DIR: './data',
      API_KEYS: [],
      CONTEXT_BUDGET: 200_000,
      MAX_OUTPUT_TOKENS: 8192,
      COMPACT_TRIGGER: 0.95,
      HARD_BLOCK: 0.98,
      RESULT_OFFLOAD_BYTES: 4096,
      TOOL_DEFERRAL_SHARE: 0.1,
      THREAD_BUDGET: 8000,
      SESSION_MAX_AGE_MS: 14_400_000,
      INGEST_DEDUPE_WINDOW_MS: 7 * 86_400_000,
      // Anthropic's current Sonnet and Haiku (docs/operations.md, "Default models").
      DEFAULT_MODEL: 'claude-sonnet-5-5',
      SUMMARY_MODEL: 'claude-haiku-5-5',
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('prepares statements unless DATABASE_PREPARED_STATEMENTS is false, and names a bad value', () => {
    expect(parseConfig({}).DATABASE_PREPARED_STATEMENTS).toBe(true);
    expect(parseConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(false);
    expect(() => parseConfig({ DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(/DATABASE_PREPARED_STATEMENTS/);
  });

  it('turns off what a transaction pooler cannot keep with DATABASE_POOL_MODE=transaction, and refuses a contradiction by name', () => {
    const pooled = parseConfig({ DATABASE_POOL_MODE: 'transaction' });
    expect(pooled.DATABASE_PREPARED_STATEMENTS).toBe(false);
    expect(pooled.DATABASE_GENERIC_PLANS).toBe(false);
    expect(
      parseConfig({ DATABASE_POOL_MODE: 'transaction', DATABASE_GENERIC_PLANS: 'false' }).DATABASE_POOL_MODE,
    ).toBe('transaction');
    for (const variable of ['DATABASE_GENERIC_PLANS', 'DATABASE_PREPARED_STATEMENTS']) {
      expect(() => parseConfig({ DATABASE_POOL_MODE: 'transaction', [variable]: 'true' })).toThrow(
        new RegExp(`${variable}: must be false`),
      );
    }
    expect(() => parseConfig({ DATABASE_POOL_MODE: 'statement' })).toThrow(/DATABASE_POOL_MODE/);
    expect(parseConfig({}).DATABASE_POOL_MODE).toBe('session');
  });

  it('parses TRUST_PROXY as Fastify takes it: false, true or a list of addresses/CIDRs; refuses a hop count', () => {
    expect(parseConfig({}).TRUST_PROXY).toBe(false);
    expect(parseConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(parseConfig({ TRUST_PROXY: 'TRUE' }).TRUST_PROXY).toBe(true);
    expect(() => parseConfig({ TRUST_PROXY: '2' })).toThrow(/TRUST_PROXY: a hop count is not honoured/);
    expect(parseConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8,loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.1/8/8', 'nginx', '10.0.0.1,']) {
      expect(() => parseConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('parses API_KEYS pairs and treats blank values as unset', () => {
    const config = parseConfig({ API_KEYS: 'acme:k1, beta:k2:with:colons', DATABASE_URL: '  ' });
    expect(config.API_KEYS).toEqual([
      { tenantId: 'acme', key: 'k1' },
      { tenantId: 'beta', key: 'k2:with:colons' },
    ]);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['API_KEYS', { API_KEYS: 'no-colon' }],
    ['COMPACT_TRIGGER', { COMPACT_TRIGGER: '1.5' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['INGEST_DEDUPE_WINDOW_MS', { INGEST_DEDUPE_WINDOW_MS: '60000' }],
    ['HARD_BLOCK', { COMPACT_TRIGGER: '0.9', HARD_BLOCK: '0.5' }],
    ['MAX_OUTPUT_TOKENS', { CONTEXT_BUDGET: '1000', MAX_OUTPUT_TOKENS: '2000' }],
    ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: '127.0.0.1' }],
    ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: 'a:7000,b:99999' }],
    ['REDIS_CLUSTER_NODES', { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: 'a:7000' }],
    [
      'REDIS_SENTINELS',
      { REDIS_CLUSTER_NODES: 'a:7000', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'm' },
    ],
    ['REDIS_SENTINEL_NAME', { REDIS_SENTINELS: 's:26379' }],
    ['REDIS_SENTINELS', { REDIS_SENTINEL_NAME: 'mymaster' }],
  ])('names %s when its value is bad', (variable, env) => {
    let caught: unknown;
    try {
      parseConfig(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues.map((i) => i.variable)).toContain(variable);
    expect((caught as ConfigError).message).toContain(variable);
  });

  it('reads Redis Cluster seed nodes and sentinels as host:port lists', () => {
    const cluster = parseConfig({ REDIS_CLUSTER_NODES: ' redis-1:7000, [::1]:7001 ' });
    expect(cluster.REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-1', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
    const sentinel = parseConfig({ REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_NAME: 'mymaster' });
    expect(sentinel.REDIS_SENTINELS).toHaveLength(2);
    expect(sentinel.REDIS_SENTINEL_NAME).toBe('mymaster');
    expect(parseConfig({}).REDIS_COMMAND_TIMEOUT_MS).toBe(2_000);
  });

  it('drains 5 s on SIGTERM in production and not at all elsewhere, unless SHUTDOWN_DRAIN_MS says', () => {
    expect(parseConfig({ NODE_ENV: 'production' }).SHUTDOWN_DRAIN_MS).toBe(5_000);
    expect(parseConfig({}).SHUTDOWN_DRAIN_MS).toBe(0);
    expect(parseConfig({ NODE_ENV: 'test' }).SHUTDOWN_DRAIN_MS).toBe(0);
    expect(parseConfig({ SHUTDOWN_DRAIN_MS: '1500' }).SHUTDOWN_DRAIN_MS).toBe(1_500);
    expect(parseConfig({ NODE_ENV: 'production', SHUTDOWN_DRAIN_MS: '0' }).SHUTDOWN_DRAIN_MS).toBe(0);
    expect(() => parseConfig({ SHUTDOWN_DRAIN_MS: 'soon' })).toThrow(/SHUTDOWN_DRAIN_MS/);
  });
});

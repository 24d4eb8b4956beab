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
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('prepares statements unless DATABASE_PREPARED_STATEMENTS is false, and names a bad value', () => {
    expect(parseConfig({}).DATABASE_PREPARED_STATEMENTS).toBe(true);
    expect(parseConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(false);
    expect(() => parseConfig({ DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(/DATABASE_PREPARED_STATEMENTS/);
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
});

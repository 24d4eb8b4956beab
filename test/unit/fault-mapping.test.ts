// Pure pieces of the fault handling: the JSON depth scan, and which database failures become a
// 503 (with Retry-After) rather than a 500.
import { describe, expect, it } from 'vitest';
import { renderError } from '../../src/http/error-handler.js';
import { DatabaseTimeoutError, databaseFailure } from '../../src/shared/errors.js';
import { jsonNestsDeeperThan } from '../../src/shared/json-depth.js';

describe('jsonNestsDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(jsonNestsDeeperThan('{"a":[1,{"b":[]}]}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[1,{"b":[]}]}', 3)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(jsonNestsDeeperThan('"\\\\"', 0)).toBe(false);
    expect(jsonNestsDeeperThan(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 64)).toBe(true);
  });
});

describe('database failures', () => {
  const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: select 1'), { cause });

  it('names a timeout and a lost connection, also inside a wrapper', () => {
    expect(databaseFailure(new DatabaseTimeoutError(100))).toBe('timeout');
    expect(databaseFailure(wrapped(new DatabaseTimeoutError(100)))).toBe('timeout');
    for (const code of [
      'CONNECTION_CLOSED',
      'CONNECTION_DESTROYED',
      'CONNECT_TIMEOUT',
      'ECONNREFUSED',
      '57P01',
      '08006',
    ]) {
      expect(databaseFailure(wrapped(Object.assign(new Error(code), { code }))), code).toBe(
        'connection_lost',
      );
    }
    expect(databaseFailure(Object.assign(new Error('dup'), { code: '23505' }))).toBeUndefined();
    expect(databaseFailure(new Error('bug'))).toBeUndefined();
  });

  it('renders them as 503 with Retry-After and a stable code; anything else unknown stays a 500', () => {
    const timeout = renderError(wrapped(new DatabaseTimeoutError(100)));
    expect(timeout).toMatchObject({ status: 503, body: { error: { code: 'storage.timeout' } } });
    expect(timeout.headers).toEqual({ 'retry-after': '1' });
    const lost = renderError(wrapped(Object.assign(new Error('x'), { code: '57P01' })));
    expect(lost).toMatchObject({ status: 503, body: { error: { code: 'storage.unavailable' } } });
    expect(renderError(new Error('bug'))).toMatchObject({
      status: 500,
      body: { error: { code: 'internal' } },
    });
  });
});

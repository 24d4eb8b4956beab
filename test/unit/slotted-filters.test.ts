// Search filters as placeholders (issue 16): a statement is built once per shape, so the shape must
// name every filter that changes its text, and nothing the conditions leave out.
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  SOURCES,
  slottedFilters,
  type SearchFilters,
} from '../../src/modules/memory/search-sources.repository.js';

const dialect = new PgDialect();
const text = (f: SearchFilters) =>
  dialect.sqlToQuery(sql.join(SOURCES.memories.conditions('t1', f, new Date(0)), sql` and `));

describe('slottedFilters', () => {
  it('gives one shape to filters whose conditions read the same, and their values by name', () => {
    const a = slottedFilters({ scopes: [{ scope: 'tenant', scopeKey: '' }], laneKey: 'root:C1' });
    const b = slottedFilters({ scopes: [{ scope: 'user', scopeKey: 'slack:U1' }], laneKey: 'root:C2' });
    expect(a.shape).toBe(b.shape);
    expect(text(a.filters).sql).toBe(text(b.filters).sql);
    expect(b.values).toEqual({
      filter_laneKey: 'root:C2',
      filter_scope_0: 'user',
      filter_scope_key_0: 'slack:U1',
    });
  });

  it('leaves out what the conditions leave out, and keeps an empty scope key', () => {
    // An empty lane is no lane filter (the conditions skip it), so it is no part of the shape.
    expect(slottedFilters({ laneKey: '' }).shape).toBe(slottedFilters({}).shape);
    expect(text(slottedFilters({ laneKey: '' }).filters).sql).toBe(text({}).sql);
    // The empty scope key is a key: it is filtered on.
    const empty = slottedFilters({ scope: 'tenant', scopeKey: '' });
    expect(empty.shape).toBe('scope,scopeKey');
    expect(empty.values.filter_scopeKey).toBe('');
    expect(text(empty.filters).sql).toBe(text({ scope: 'tenant', scopeKey: '' }).sql);
  });

  it('names counts and times in the shape, and passes times as their ISO text', () => {
    const two = slottedFilters({ types: ['fact', 'preference'] });
    expect(two.shape).not.toBe(slottedFilters({ types: ['fact'] }).shape);
    expect(slottedFilters({ types: [] }).shape).toBe('');
    const since = new Date(Date.UTC(2026, 0, 2));
    const timed = slottedFilters({ since });
    expect(timed.shape).toBe('since');
    expect(timed.values).toEqual({ filter_since: since.toISOString() });
    expect(text(timed.filters).sql).toBe(text({ since }).sql);
  });

  it('refuses a filter it does not know rather than build a statement without it', () => {
    expect(() => slottedFilters({ colour: 'red' } as SearchFilters)).toThrow(/unknown filter colour/);
  });
});

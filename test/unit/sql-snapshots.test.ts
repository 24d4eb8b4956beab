// The committed SQL snapshots (sql/*.sql) are the statements the code builds: a change of a composed
// statement shows in review as SQL. Regenerate with `npm run sql:snapshots`.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSqlSnapshots } from '../../scripts/lib/sql-snapshots.js';

describe('SQL snapshots', () => {
  it('match the statements the repositories build (run `npm run sql:snapshots` after changing one)', () => {
    const rendered = renderSqlSnapshots();
    expect(readdirSync('sql').sort()).toEqual(Object.keys(rendered).sort());
    for (const [name, text] of Object.entries(rendered)) {
      expect(readFileSync(`sql/${name}`, 'utf8'), `sql/${name}`).toBe(text);
    }
    // Every shape of the context call's load statement is there.
    expect(rendered['context.repository.sql']!.match(/^-- ContextRepository\.loadTurn/gm)).toHaveLength(12);
  });
});

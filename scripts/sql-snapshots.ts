// `npm run sql:snapshots`: writes sql/<repository>.sql, the SQL of every prepared statement shape
// (scripts/lib/sql-snapshots.ts); run it after changing a composed statement, and review the diff.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { renderSqlSnapshots } from './lib/sql-snapshots.js';

const files = renderSqlSnapshots();
mkdirSync('sql', { recursive: true });
for (const name of readdirSync('sql')) if (!(name in files)) rmSync(`sql/${name}`);
for (const [name, text] of Object.entries(files)) {
  writeFileSync(`sql/${name}`, text);
  console.log(`wrote sql/${name}`);
}

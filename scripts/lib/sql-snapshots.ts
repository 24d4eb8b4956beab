// The SQL of every prepared statement shape (src/db/prepared.ts) as text, one file per repository,
// so composed statements are reviewed as SQL: `npm run sql:snapshots` writes them to sql/, and
// test/unit/sql-snapshots.test.ts fails when the committed files no longer match the code.
import { Placeholder, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { format } from 'sql-formatter';
import type { Db } from '../../src/db/client.js';
import * as schema from '../../src/db/schema.js';
import { snapshotRowsStatement } from '../../src/modules/channels/channels.repository.js';
import { DEFAULT_ADJACENT_COUNT } from '../../src/modules/channels/core/snapshot.js';
import { loadTurnStatement, type LoadTurnShape } from '../../src/modules/context/context.repository.js';
import { visibleMemoryScopes } from '../../src/modules/memory/core/visible-scopes.js';
import { createSearchRepository, matchSql } from '../../src/modules/memory/search.repository.js';
import { slottedFilters, type SearchFilters } from '../../src/modules/memory/search-sources.repository.js';
import { laneEntriesFromStatement } from '../../src/modules/sessions/transcript.repository.js';

interface Statement {
  /** What calls it and which shape this is. */
  title: string;
  query: { sql: string; params: unknown[] };
}

const param = (value: unknown, index: number) =>
  `$${index + 1}: ${value instanceof Placeholder ? value.name : JSON.stringify(value)}`;

function render(statements: Statement[]): string {
  return statements
    .map(({ title, query }) =>
      [
        `-- ${title}`,
        ...(query.params.length > 0 ? [`-- ${query.params.map(param).join(', ')}`] : []),
        `${format(query.sql, { language: 'postgresql', keywordCase: 'lower', paramTypes: { numbered: ['$'] } })};`,
      ].join('\n'),
    )
    .join('\n\n')
    .concat('\n');
}

/** Every shape of a boolean record's keys, `allowed` filtering out the impossible ones. */
function shapesOf<K extends string>(keys: readonly K[], allowed: (shape: Record<K, boolean>) => boolean) {
  const shapes: Record<K, boolean>[] = [];
  for (let bits = 0; bits < 2 ** keys.length; bits += 1) {
    const shape = Object.fromEntries(keys.map((key, i) => [key, (bits & (2 ** i)) !== 0])) as Record<
      K,
      boolean
    >;
    if (allowed(shape)) shapes.push(shape);
  }
  return shapes;
}

/** The snapshot files by name: sql/<repository>.sql. Builds statements only; nothing connects. */
export function renderSqlSnapshots(): Record<string, string> {
  // postgres.js connects on the first query, and none is sent: the driver is only the dialect here.
  const db = drizzle({
    client: postgres('postgres://127.0.0.1:1/none', { max: 1 }),
    schema,
  }) as unknown as Db;
  const raw = (query: SQL) => new PgDialect().sqlToQuery(query);
  const search = createSearchRepository(db);
  const loadShapes = shapesOf<keyof LoadTurnShape>(
    ['anchor', 'snapshot', 'lexemes', 'laneRead'],
    (s) => s.anchor || !s.snapshot,
  );
  const sessionScopes = visibleMemoryScopes({ platform: 'p', channelId: 'c', userId: 'u', sessionKey: 's' });
  const searches: {
    source: 'memories' | 'transcript_chunks' | 'channel_messages';
    filters: SearchFilters;
  }[] = [
    { source: 'memories', filters: { scopes: sessionScopes } },
    { source: 'transcript_chunks', filters: { sessionKey: 's' } },
    { source: 'channel_messages', filters: { platform: 'p', channelId: 'c' } },
  ];
  return {
    'context.repository.sql': render(
      loadShapes.map((shape) => ({
        title: `ContextRepository.loadTurn (load_turn) ${JSON.stringify(shape)}`,
        query: loadTurnStatement(db, shape).getQuery(),
      })),
    ),
    'transcript.repository.sql': render([
      {
        title: 'TranscriptRepository.laneEntriesFrom (lane_entries_from)',
        query: laneEntriesFromStatement(db).getQuery(),
      },
    ]),
    'channels.repository.sql': render([
      {
        title: `ChannelsRepository.snapshotRows, limit ${DEFAULT_ADJACENT_COUNT}`,
        query: snapshotRowsStatement(db, DEFAULT_ADJACENT_COUNT).getQuery(),
      },
    ]),
    'search.repository.sql': render(
      searches.flatMap(({ source, filters }) =>
        [false, ...(search.timeOrderedScope(source, filters) ? [true] : [])].flatMap((newest) =>
          [false, true].map((fallback) => ({
            title: `SearchRepository.matchCandidates ${source} ${JSON.stringify({ filters: Object.keys(filters), newest, fallback })}`,
            query: raw(matchSql(source, slottedFilters(filters).filters, newest, fallback)),
          })),
        ),
      ),
    ),
  };
}

// The planner's statistics of the tables ingest fills: which are due for ANALYZE (never analyzed,
// or grown far past their last ANALYZE), and the ANALYZE itself (ingest-statistics.ts decides when
// to ask).
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';

/** The tables ingest writes in bulk. */
const INGEST_TABLES = ['channel_messages', 'ingest_events'] as const;
type IngestTable = (typeof INGEST_TABLES)[number];

export function createTableStatisticsRepository(db: Executor) {
  return {
    /**
     * The tables never analyzed (reltuples < 0) or changed by more rows since their last ANALYZE
     * than they held then, plus 50 (doubled, or rewritten). Autovacuum's finer rule (50 + 10%) is
     * left to autovacuum: an ANALYZE samples up to 30,000 rows (~0.5 s of CPU on channel_messages
     * with its tsvector), which at 10% would cost a busy ingest every 10,000 events on a
     * 100k-row table. Statistics taken on at least half of today's table still give the primary-key
     * loads their plans (the planner scales row counts to the table's current size).
     */
    async dueForAnalyze(): Promise<IngestTable[]> {
      const rows = await queryRows<{ name: IngestTable }>(
        db,
        sql`select c.relname as name from pg_class c join pg_stat_user_tables s on s.relid = c.oid
            where c.relname in (${sql.join(
              INGEST_TABLES.map((t) => sql`${t}`),
              sql`, `,
            )}) and c.relnamespace = 'public'::regnamespace
              and (c.reltuples < 0 or s.n_mod_since_analyze > 50 + c.reltuples)`,
      );
      return rows.map((r) => r.name);
    },

    async analyze(table: IngestTable): Promise<void> {
      if (!INGEST_TABLES.includes(table)) throw new Error(`not an ingest table: ${table}`);
      await db.execute(sql.raw(`analyze ${table}`));
    },
  };
}

export type TableStatisticsRepository = ReturnType<typeof createTableStatisticsRepository>;

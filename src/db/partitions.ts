// Weekly partitions of the context log and its payload parts (docs/operations.md, "Partitions"),
// managed by the service rather than pg_partman, so the embedded database (PGlite) and managed
// PostgreSQL services without the extension work the same. `context_log` is partitioned by
// created_at, `payload_parts` by week (the week of the calls that name a part), both by weeks
// starting Monday 00:00 UTC, with partitions named `<table>_pYYYYMMDD` after their first day; a
// default partition (0023_partitioned_context_log) takes every row no weekly partition covers.
//
// Creating a week's partition moves that week's rows out of the default partition first (the
// attach would refuse a default that holds rows of the new range), then attaches the new table,
// which takes SHARE UPDATE EXCLUSIVE on the parent (reads and writes go on) and ACCESS EXCLUSIVE on
// the default partition while it is checked. Concurrent creators serialize on the parent's lock and
// the second finds the partition there. Dropping a week drops both tables' partitions in one
// transaction (ACCESS EXCLUSIVE on the parents for the moment of the drop, within a lock timeout).
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from './client.js';

const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;
/** A lock the partition DDL waits for longer than this fails (and is tried again next pass). */
const LOCK_TIMEOUT = '5s';

/** The partitioned tables and the column each is partitioned by. */
const PARTITIONED_TABLES = [
  { table: 'context_log', column: 'created_at' },
  { table: 'payload_parts', column: 'week' },
] as const;
type PartitionedTable = (typeof PARTITIONED_TABLES)[number]['table'];

/** The start of `at`'s week: Monday 00:00 UTC (PostgreSQL's date_trunc('week') in UTC). */
export function weekStart(at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS);
}

/** `context_log_p20261123` for the week starting 2026-11-23. */
function partitionName(table: PartitionedTable, week: Date): string {
  return `${table}_p${week.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

const NAME = /^(context_log|payload_parts)_p(\d{4})(\d{2})(\d{2})$/;

interface WeeklyPartition {
  table: PartitionedTable;
  name: string;
  week: Date;
}

/** The weekly partitions that exist (the default partitions are not listed), oldest first. */
export async function listWeeklyPartitions(db: Executor): Promise<WeeklyPartition[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i
        join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
        join pg_namespace n on n.oid = p.relnamespace
        where n.nspname = current_schema() and p.relname in ('context_log', 'payload_parts')`,
  );
  return rows
    .flatMap((r) => {
      const m = NAME.exec(r.name);
      if (!m) return [];
      const week = new Date(Date.UTC(Number(m[2]), Number(m[3]) - 1, Number(m[4])));
      return [{ table: m[1] as PartitionedTable, name: r.name, week }];
    })
    .sort((a, b) => a.week.getTime() - b.week.getTime() || a.name.localeCompare(b.name));
}

const stamp = (d: Date) => sql.raw(`'${d.toISOString()}'::timestamptz`);

/** Creates one week's partition of `table` unless it exists; true when it created it. */
async function createWeek(db: Executor, table: PartitionedTable, column: string, week: Date) {
  const name = partitionName(table, week);
  const end = new Date(week.getTime() + WEEK_MS);
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
    // Self-conflicting and compatible with reads and writes: creators of the table's partitions
    // take turns, and the second sees the first one's partition.
    await tx.execute(sql.raw(`lock table "${table}" in share update exclusive mode`));
    const [held] = await queryRows<{ n: number }>(
      tx,
      sql`select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relname = ${name}`,
    );
    if (Number(held?.n ?? 0) > 0) return false;
    await tx.execute(sql.raw(`create table "${name}" (like "${table}" including defaults)`));
    await tx.execute(
      sql`with moved as (delete from ${sql.identifier(`${table}_default`)}
            where ${sql.identifier(column)} >= ${stamp(week)} and ${sql.identifier(column)} < ${stamp(end)}
            returning *)
          insert into ${sql.identifier(name)} select * from moved`,
    );
    await tx.execute(
      sql`alter table ${sql.identifier(table)} attach partition ${sql.identifier(name)}
          for values from (${stamp(week)}) to (${stamp(end)})`,
    );
    return true;
  });
}

/**
 * The partitions of the week of `now` and of the `ahead` weeks after it, for both tables; returns
 * the names it created.
 */
export async function ensureWeeklyPartitions(
  db: Executor,
  p: { now: Date; ahead: number },
): Promise<string[]> {
  const created: string[] = [];
  const first = weekStart(p.now);
  for (let i = 0; i <= p.ahead; i += 1) {
    const week = new Date(first.getTime() + i * WEEK_MS);
    for (const { table, column } of PARTITIONED_TABLES) {
      if (await createWeek(db, table, column, week)) created.push(partitionName(table, week));
    }
  }
  return created;
}

/**
 * Drops the weeks that ended at or before `before`, both tables' partitions of a week in one
 * transaction; returns the names it dropped. Rows of those weeks in the default partition are left
 * to the row-wise deletes.
 */
export async function dropWeeklyPartitions(db: Executor, p: { before: Date }): Promise<string[]> {
  const weeks = new Map<number, WeeklyPartition[]>();
  for (const part of await listWeeklyPartitions(db)) {
    if (part.week.getTime() + WEEK_MS > p.before.getTime()) continue;
    weeks.set(part.week.getTime(), [...(weeks.get(part.week.getTime()) ?? []), part]);
  }
  const dropped: string[] = [];
  for (const parts of weeks.values()) {
    await db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
      for (const part of parts) await tx.execute(sql`drop table ${sql.identifier(part.name)}`);
    });
    dropped.push(...parts.map((part) => part.name));
  }
  return dropped;
}

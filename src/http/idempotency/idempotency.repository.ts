// SQL of Idempotency-Key: the stored reply of a (tenant, scope, key), and storing one inside the
// transaction of the write it answers.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { idempotencyRecords } from '../../db/schema.js';

export function createIdempotencyRepository(db: Executor) {
  return {
    async find({ tenantId, scope, key }: { tenantId: string; scope: string; key: string }) {
      const [row] = await db
        .select()
        .from(idempotencyRecords)
        .where(
          and(
            eq(idempotencyRecords.tenantId, tenantId),
            eq(idempotencyRecords.scope, scope),
            eq(idempotencyRecords.key, key),
          ),
        )
        .limit(1);
      return row ?? null;
    },

    async insert(row: typeof idempotencyRecords.$inferInsert, tx: Executor = db): Promise<void> {
      // drizzle writes a null value as SQL NULL (the column is NOT NULL): an empty reply (204) is
      // stored as the JSON value null instead, which reads back as null.
      const response = row.response ?? sql`'null'::jsonb`;
      await tx.insert(idempotencyRecords).values({ ...row, response });
    },
  };
}

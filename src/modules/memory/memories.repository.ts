// Memories: typed durable records, one per normalized text within (scope, scope_key, type).
import { and, desc, eq, gt, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memories, type memoryScopes, type memoryTypes } from '../../db/schema.js';
import { isUniqueViolation } from '../../shared/errors.js';
import { memoryDuplicate } from './memory.errors.js';

export type MemoryRow = typeof memories.$inferSelect;
export type MemoryScope = (typeof memoryScopes)[number];
export type MemoryType = (typeof memoryTypes)[number];

interface NewMemory {
  tenantId: string;
  id: string;
  scope: MemoryScope;
  scopeKey: string;
  type: MemoryType;
  text: string;
  textKey: string;
  metadata: Record<string, unknown>;
  source: string | null;
  expiresAt: Date | null;
  at: Date;
}

const notExpired = (now: Date) => or(isNull(memories.expiresAt), gt(memories.expiresAt, now));

export function createMemoriesRepository(db: Executor) {
  return {
    /** Inserts unless the same text exists in the scope; returns the row, or null on a duplicate. */
    async insert(row: NewMemory, tx: Executor = db): Promise<MemoryRow | null> {
      const { at, ...values } = row;
      const [inserted] = await tx
        .insert(memories)
        .values({ ...values, createdAt: at, updatedAt: at })
        .onConflictDoNothing()
        .returning();
      return inserted ?? null;
    },

    async findByTextKey(
      key: { tenantId: string; scope: MemoryScope; scopeKey: string; type: MemoryType; textKey: string },
      tx: Executor = db,
    ): Promise<MemoryRow | null> {
      const [row] = await tx
        .select()
        .from(memories)
        .where(
          and(
            eq(memories.tenantId, key.tenantId),
            eq(memories.scope, key.scope),
            eq(memories.scopeKey, key.scopeKey),
            eq(memories.type, key.type),
            eq(memories.textKey, key.textKey),
          ),
        )
        .limit(1);
      return row ?? null;
    },

    async findById(
      { tenantId, id, now }: { tenantId: string; id: string; now?: Date },
      tx: Executor = db,
    ): Promise<MemoryRow | null> {
      const [row] = await tx
        .select()
        .from(memories)
        .where(and(eq(memories.tenantId, tenantId), eq(memories.id, id), now ? notExpired(now) : undefined))
        .limit(1);
      return row ?? null;
    },

    /** Newest first (ids are UUIDv7); `before` is the last id of the previous page. */
    async list(
      params: {
        tenantId: string;
        scope?: MemoryScope;
        scopeKey?: string;
        type?: MemoryType;
        before?: string;
        limit: number;
        now: Date;
        includeExpired?: boolean;
      },
      tx: Executor = db,
    ): Promise<MemoryRow[]> {
      const conditions: (SQL | undefined)[] = [
        eq(memories.tenantId, params.tenantId),
        params.scope ? eq(memories.scope, params.scope) : undefined,
        params.scopeKey !== undefined ? eq(memories.scopeKey, params.scopeKey) : undefined,
        params.type ? eq(memories.type, params.type) : undefined,
        params.before ? lt(memories.id, params.before) : undefined,
        params.includeExpired ? undefined : notExpired(params.now),
      ];
      return tx
        .select()
        .from(memories)
        .where(and(...conditions))
        .orderBy(desc(memories.id))
        .limit(params.limit);
    },

    /** Updates a memory; a text that collides with another record of the scope is a 409. */
    async update(
      {
        tenantId,
        id,
        set,
      }: {
        tenantId: string;
        id: string;
        set: Partial<Pick<MemoryRow, 'text' | 'textKey' | 'metadata' | 'source' | 'expiresAt' | 'type'>> & {
          updatedAt: Date;
        };
      },
      tx: Executor = db,
    ): Promise<MemoryRow | null> {
      try {
        const [row] = await tx
          .update(memories)
          .set(set)
          .where(and(eq(memories.tenantId, tenantId), eq(memories.id, id)))
          .returning();
        return row ?? null;
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw memoryDuplicate();
        }
        throw error;
      }
    },

    /** Replaces an expired record in place (a new fact that happens to reuse an expired one's text). */
    async revive(
      { tenantId, id, values }: { tenantId: string; id: string; values: Omit<NewMemory, 'tenantId' | 'id'> },
      tx: Executor = db,
    ): Promise<MemoryRow | null> {
      const { at, ...rest } = values;
      const [row] = await tx
        .update(memories)
        .set({ ...rest, createdAt: at, updatedAt: at })
        .where(and(eq(memories.tenantId, tenantId), eq(memories.id, id)))
        .returning();
      return row ?? null;
    },

    async delete({ tenantId, id }: { tenantId: string; id: string }, tx: Executor = db): Promise<boolean> {
      const rows = await tx
        .delete(memories)
        .where(and(eq(memories.tenantId, tenantId), eq(memories.id, id)))
        .returning({ id: memories.id });
      return rows.length > 0;
    },
  };
}

export type MemoriesRepository = ReturnType<typeof createMemoriesRepository>;

// Tenants, API keys (stored as SHA-256) and per-platform webhook secrets.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { IdGenerator } from '../../shared/clock.js';
import type { Executor } from '../../db/client.js';
import { apiKeys, tenantSecrets, tenants } from '../../db/schema.js';

const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const generateApiKey = () => `ctxd_${randomBytes(24).toString('base64url')}`;

export function createTenantsRepository(db: Executor, ids: IdGenerator) {
  return {
    async ensureTenant({ tenantId, name }: { tenantId: string; name?: string }, tx: Executor = db) {
      await tx
        .insert(tenants)
        .values({ id: tenantId, name: name ?? tenantId })
        .onConflictDoNothing();
    },

    async findTenant(tenantId: string, tx: Executor = db) {
      const [row] = await tx.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1);
      return row ?? null;
    },

    /** Stores the key's hash; idempotent for the same key. Returns the key id. */
    async addApiKey(
      { tenantId, key, name }: { tenantId: string; key: string; name: string },
      tx: Executor = db,
    ) {
      const id = ids.next();
      const [row] = await tx
        .insert(apiKeys)
        .values({ tenantId, id, keyHash: hashApiKey(key), name })
        .onConflictDoNothing()
        .returning({ id: apiKeys.id });
      return { id: row?.id ?? null, created: Boolean(row) };
    },

    /** The live key's tenant, id and name (null: unknown or revoked). */
    async findKey(
      key: string,
      tx: Executor = db,
    ): Promise<{ tenantId: string; id: string; name: string } | null> {
      const [row] = await tx
        .select({ tenantId: apiKeys.tenantId, id: apiKeys.id, name: apiKeys.name })
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt)))
        .limit(1);
      return row ?? null;
    },

    async findTenantIdByKey(key: string, tx: Executor = db): Promise<string | null> {
      const [row] = await tx
        .select({ tenantId: apiKeys.tenantId })
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt)))
        .limit(1);
      return row?.tenantId ?? null;
    },

    async revokeApiKey({ tenantId, id, at }: { tenantId: string; id: string; at: Date }, tx: Executor = db) {
      const rows = await tx
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, id)))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },

    async listApiKeys(tenantId: string, tx: Executor = db) {
      return tx
        .select({
          id: apiKeys.id,
          name: apiKeys.name,
          createdAt: apiKeys.createdAt,
          revokedAt: apiKeys.revokedAt,
        })
        .from(apiKeys)
        .where(eq(apiKeys.tenantId, tenantId));
    },

    async setSecret(
      { tenantId, platform, secret }: { tenantId: string; platform: string; secret: string },
      tx: Executor = db,
    ) {
      await tx
        .insert(tenantSecrets)
        .values({ tenantId, platform, secret })
        .onConflictDoUpdate({ target: [tenantSecrets.tenantId, tenantSecrets.platform], set: { secret } });
    },

    async findSecret({ tenantId, platform }: { tenantId: string; platform: string }, tx: Executor = db) {
      const [row] = await tx
        .select({ secret: tenantSecrets.secret })
        .from(tenantSecrets)
        .where(and(eq(tenantSecrets.tenantId, tenantId), eq(tenantSecrets.platform, platform)))
        .limit(1);
      return row?.secret ?? null;
    },
  };
}

export type TenantsRepository = ReturnType<typeof createTenantsRepository>;

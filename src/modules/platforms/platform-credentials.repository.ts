// SQL for per-tenant platform bot tokens (stored sealed; see core/token-cipher.ts).
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { platformCredentials } from '../../db/schema.js';

export type PlatformCredentialRow = typeof platformCredentials.$inferSelect;

export function createPlatformCredentialsRepository(db: Executor) {
  return {
    async upsert(
      row: {
        tenantId: string;
        platform: string;
        workspaceId: string | null;
        token: string;
        tokenHint: string;
        at: Date;
      },
      tx: Executor = db,
    ): Promise<{ row: PlatformCredentialRow; created: boolean }> {
      const existing = await this.find({ tenantId: row.tenantId, platform: row.platform }, tx);
      const values = {
        tenantId: row.tenantId,
        platform: row.platform,
        workspaceId: row.workspaceId,
        token: row.token,
        tokenHint: row.tokenHint,
        updatedAt: row.at,
      };
      const [stored] = await tx
        .insert(platformCredentials)
        .values({ ...values, createdAt: row.at })
        .onConflictDoUpdate({
          target: [platformCredentials.tenantId, platformCredentials.platform],
          set: {
            workspaceId: values.workspaceId,
            token: values.token,
            tokenHint: values.tokenHint,
            updatedAt: row.at,
          },
        })
        .returning();
      return { row: stored!, created: !existing };
    },

    /** Whether any tenant has a bot token stored (start-up refuses production without a key then). */
    async anyStored(): Promise<boolean> {
      const [row] = await db.select({ id: platformCredentials.tenantId }).from(platformCredentials).limit(1);
      return row !== undefined;
    },

    async find({ tenantId, platform }: { tenantId: string; platform: string }, tx: Executor = db) {
      const [row] = await tx
        .select()
        .from(platformCredentials)
        .where(and(eq(platformCredentials.tenantId, tenantId), eq(platformCredentials.platform, platform)))
        .limit(1);
      return row ?? null;
    },

    async remove({ tenantId, platform }: { tenantId: string; platform: string }, tx: Executor = db) {
      const rows = await tx
        .delete(platformCredentials)
        .where(and(eq(platformCredentials.tenantId, tenantId), eq(platformCredentials.platform, platform)))
        .returning({ platform: platformCredentials.platform });
      return rows.length > 0;
    },
  };
}

export type PlatformCredentialsRepository = ReturnType<typeof createPlatformCredentialsRepository>;

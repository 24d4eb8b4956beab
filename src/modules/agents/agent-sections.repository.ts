// Agent sections: stored system-prompt sections (AGENTS.md, SOUL.md, …) per tenant and agent.
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { agentSections, agentSettings } from '../../db/schema.js';

export type AgentSectionRow = typeof agentSections.$inferSelect;
export type AgentSettingsRow = typeof agentSettings.$inferSelect;

export function createAgentSectionsRepository(db: Executor) {
  const byName = (tenantId: string, agentId: string, name: string) =>
    and(
      eq(agentSections.tenantId, tenantId),
      eq(agentSections.agentId, agentId),
      eq(agentSections.name, name),
    );
  return {
    /** Creates or replaces a section; `created` says which. */
    async upsert(section: typeof agentSections.$inferInsert, tx: Executor = db) {
      const [row] = await tx
        .insert(agentSections)
        .values(section)
        .onConflictDoUpdate({
          target: [agentSections.tenantId, agentSections.agentId, agentSections.name],
          set: {
            content: section.content,
            cacheable: section.cacheable,
            position: section.position,
            sha256: section.sha256,
            tokenEstimate: section.tokenEstimate,
            updatedAt: section.updatedAt,
          },
        })
        // xmax is 0 on a freshly inserted row version, non-zero on one written by the update arm.
        .returning({ ...getTableColumns(agentSections), created: sql<boolean>`(xmax = 0)` });
      const { created, ...stored } = row!;
      return { section: stored as AgentSectionRow, created };
    },

    /**
     * What a context call needs of an agent, in one read: its sections in prompt order and its
     * history_turns default (null when none was set).
     */
    async forContext({ tenantId, agentId }: { tenantId: string; agentId: string }, tx: Executor = db) {
      const rows = await queryRows<{
        history_turns: number | null;
        name: string | null;
        content: string | null;
        cacheable: boolean | null;
      }>(
        tx,
        sql`select st.history_turns, s.name, s.content, s.cacheable
          from (select 1) as one
          left join agent_settings st on st.tenant_id = ${tenantId} and st.agent_id = ${agentId}
          left join agent_sections s on s.tenant_id = ${tenantId} and s.agent_id = ${agentId}
          order by s.position, s.name`,
      );
      const historyTurns = rows[0]?.history_turns ?? null;
      const sections = rows
        .filter((r) => r.name !== null)
        .map((r) => ({ name: r.name!, content: r.content!, cacheable: r.cacheable! }));
      return { sections, historyTurns: historyTurns === null ? null : Number(historyTurns) };
    },

    /** The agent's defaults, or null when none were set. */
    async findSettings({ tenantId, agentId }: { tenantId: string; agentId: string }, tx: Executor = db) {
      const [row] = await tx
        .select()
        .from(agentSettings)
        .where(and(eq(agentSettings.tenantId, tenantId), eq(agentSettings.agentId, agentId)))
        .limit(1);
      return row ?? null;
    },

    async upsertSettings(settings: typeof agentSettings.$inferInsert, tx: Executor = db) {
      const [row] = await tx
        .insert(agentSettings)
        .values(settings)
        .onConflictDoUpdate({
          target: [agentSettings.tenantId, agentSettings.agentId],
          set: { historyTurns: settings.historyTurns, updatedAt: settings.updatedAt },
        })
        .returning();
      return row!;
    },

    async find(
      { tenantId, agentId, name }: { tenantId: string; agentId: string; name: string },
      tx: Executor = db,
    ) {
      const [row] = await tx
        .select()
        .from(agentSections)
        .where(byName(tenantId, agentId, name))
        .limit(1);
      return row ?? null;
    },

    /** An agent's sections in prompt order: position, then name. */
    async list({ tenantId, agentId }: { tenantId: string; agentId: string }, tx: Executor = db) {
      return tx
        .select()
        .from(agentSections)
        .where(and(eq(agentSections.tenantId, tenantId), eq(agentSections.agentId, agentId)))
        .orderBy(asc(agentSections.position), asc(agentSections.name));
    },

    async remove(
      { tenantId, agentId, name }: { tenantId: string; agentId: string; name: string },
      tx: Executor = db,
    ) {
      const rows = await tx
        .delete(agentSections)
        .where(byName(tenantId, agentId, name))
        .returning({ name: agentSections.name });
      return rows.length > 0;
    },
  };
}

export type AgentSectionsRepository = ReturnType<typeof createAgentSectionsRepository>;

// Which memories a session can see (docs/design.md §4 memories.scope / scope_key): the tenant's,
// its channel's, its user's and its own. The context call's load statement names the same scopes in
// SQL (context.repository.ts loadTurn, scopeVersions); test/integration/rules-in-sql.test.ts checks
// they agree.
import type { memoryScopes } from './memories.js';

type MemoryScope = (typeof memoryScopes)[number];

/** The memory scopes visible to a session; searches pass them as a filter. */
export function visibleMemoryScopes(session: {
  platform: string | null;
  channelId: string | null;
  userId: string | null;
  sessionKey: string;
}): { scope: MemoryScope; scopeKey: string }[] {
  return [
    { scope: 'tenant', scopeKey: '' },
    ...(session.platform && session.channelId
      ? [{ scope: 'channel' as const, scopeKey: `${session.platform}:${session.channelId}` }]
      : []),
    ...(session.platform && session.userId
      ? [{ scope: 'user' as const, scopeKey: `${session.platform}:${session.userId}` }]
      : []),
    { scope: 'session', scopeKey: session.sessionKey },
  ];
}

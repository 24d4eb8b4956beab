// Redis first; when a Redis command fails (down, unreachable), the same request is served by
// Postgres advisory locks. Each fallback is logged and counted (docs/design.md §1.6).
import type { AcquireOptions, LockManager } from './lock.js';

interface FallbackEvents {
  onFallback(error: Error): void;
}

export function createFallbackLockManager(
  primary: LockManager,
  secondary: LockManager,
  events: FallbackEvents,
): LockManager {
  return {
    kind: 'redis+postgres',
    async acquire(resource: string, options?: AcquireOptions) {
      try {
        return await primary.acquire(resource, options);
      } catch (error) {
        events.onFallback(error as Error);
        return secondary.acquire(resource, options);
      }
    },
    async close() {
      await Promise.all([primary.close(), secondary.close()]);
    },
  };
}

// In-process locks for the embedded mode (one process owns the database).
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_LOCK_TTL_MS,
  LockLostError,
  notifyLost,
  retryUntil,
  type AcquireOptions,
  type LockHandle,
  type LockManager,
} from './lock.js';

interface Held {
  token: string;
  expiresAt: number;
  controller: AbortController;
  timer: NodeJS.Timeout;
}

export function createMemoryLockManager(now: () => number = Date.now): LockManager {
  const held = new Map<string, Held>();

  function expire(resource: string, entry: Held, options?: AcquireOptions) {
    if (held.get(resource) !== entry) return;
    held.delete(resource);
    const error = new LockLostError(resource, 'lease expired');
    entry.controller.abort(error);
    notifyLost(options, error);
  }

  function tryAcquire(resource: string, options?: AcquireOptions): LockHandle | null {
    const current = held.get(resource);
    if (current && current.expiresAt > now()) return null;
    if (current) expire(resource, current);
    const ttl = options?.ttlMs ?? DEFAULT_LOCK_TTL_MS;
    const controller = new AbortController();
    const token = randomUUID();
    // In one process the holder is alive as long as the process is: the lease renews itself.
    const entry: Held = {
      token,
      expiresAt: now() + ttl,
      controller,
      timer: setInterval(
        () => {
          if (held.get(resource) === entry) entry.expiresAt = now() + ttl;
        },
        Math.max(10, Math.floor(ttl / 3)),
      ),
    };
    entry.timer.unref();
    held.set(resource, entry);
    return {
      resource,
      token,
      signal: controller.signal,
      release: async () => {
        clearInterval(entry.timer);
        if (held.get(resource) === entry) held.delete(resource);
      },
    };
  }

  return {
    kind: 'memory',
    acquire: (resource, options) =>
      retryUntil(options?.waitMs ?? 0, async () => tryAcquire(resource, options)),
    close: async () => {
      for (const entry of held.values()) clearInterval(entry.timer);
      held.clear();
    },
  };
}

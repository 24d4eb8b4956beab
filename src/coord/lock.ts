// The lock contract shared by the Redis, PostgreSQL-lease and in-process implementations.
// A lock is a lease that only saves duplicate work (two summaries paid for at once, two fetches
// of one channel). It mints no fencing token: the fencing token is the lane's `version`, and the
// fence is the compare-and-set on it in the committing transaction (docs/compaction.md), so a
// holder whose lease ran out cannot overwrite newer state whatever the lock backend did.

export interface LockHandle {
  readonly resource: string;
  /** Random token identifying this holder. */
  readonly token: string;
  /** Aborted when the lock is lost (renewal failed or expired); never rejects anything. */
  readonly signal: AbortSignal;
  /** Releases if still held (compare-and-delete); safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** The tenant the resource belongs to (the PostgreSQL lease row's distribution key); unset: service-wide. */
  tenantId?: string;
  /** Lease length; the holder renews it every ttlMs/3 while held. */
  ttlMs?: number;
  /** How long to keep trying before giving up (0: one attempt). */
  waitMs?: number;
  /** Called once if the lock is lost while held. Errors inside it are swallowed. */
  onLockLost?: (error: Error) => void;
}

export interface LockManager {
  readonly kind: 'redis' | 'postgres' | 'memory' | 'redis+postgres';
  /** Resolves to a handle, or null when the resource stayed held for waitMs. */
  acquire(resource: string, options?: AcquireOptions): Promise<LockHandle | null>;
  /** Releases every lock this manager holds (shutdown). */
  close(): Promise<void>;
}

export const DEFAULT_LOCK_TTL_MS = 30_000;
const RETRY_INTERVAL_MS = 50;

export class LockLostError extends Error {
  constructor(resource: string, reason: string) {
    super(`lock on ${resource} lost: ${reason}`);
    this.name = 'LockLostError';
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

/** Calls the user's onLockLost without letting it throw or reject into the timer. */
export function notifyLost(options: AcquireOptions | undefined, error: Error): void {
  try {
    options?.onLockLost?.(error);
  } catch {
    // The callback is the holder's; a failure there must not become an unhandled error.
  }
}

/** Retries `attempt` until it yields a value or waitMs has passed. */
export async function retryUntil<T>(waitMs: number, attempt: () => Promise<T | null>): Promise<T | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const result = await attempt();
    if (result !== null) return result;
    if (Date.now() + RETRY_INTERVAL_MS > deadline) return null;
    await sleep(RETRY_INTERVAL_MS);
  }
}

/**
 * What every backend's handle shares: a timer that keeps the lease (a renewal or a health check)
 * and aborts `signal` once when it is lost, and a release that runs once and is forgotten by
 * `active` (the set `close()` releases).
 */
export function holdLease(params: {
  resource: string;
  token: string;
  everyMs: number;
  /** Resolves to null while the lease holds, or to the reason it is lost; never rejects. */
  keep: () => Promise<string | null>;
  /** Gives the lease back; `lost` says whether it was already lost. */
  free: (lost: boolean) => Promise<void>;
  active: Set<() => Promise<void>>;
  options: AcquireOptions | undefined;
}): LockHandle {
  const { resource, options, active } = params;
  const controller = new AbortController();
  let released = false;
  const timer = setInterval(() => {
    void params.keep().then((reason) => {
      if (reason === null || released || controller.signal.aborted) return;
      clearInterval(timer);
      const error = new LockLostError(resource, reason);
      controller.abort(error);
      notifyLost(options, error);
    });
  }, params.everyMs);
  timer.unref();
  const release = async () => {
    if (released) return;
    released = true;
    clearInterval(timer);
    active.delete(release);
    await params.free(controller.signal.aborted);
  };
  active.add(release);
  return { resource, token: params.token, signal: controller.signal, release };
}

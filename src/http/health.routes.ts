// /healthz (the process answers) and /readyz (Postgres, Redis and migrations; 503 while draining).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../deps.js';
import { appliedMigrationCount, MIGRATIONS_FOLDER, pingDatabase } from '../db/migrate.js';

const checkState = z.enum(['ok', 'down', 'disabled']);
const readyReply = z.object({
  status: z.enum(['ready', 'degraded', 'not_ready']),
  checks: z.object({
    postgres: checkState,
    redis: checkState,
    migrations: z.enum(['ok', 'pending', 'down']),
  }),
  draining: z.boolean(),
});

function expectedMigrations(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/** A readiness check unanswered this long counts as down: a frozen dependency is not ready. */
export const READY_CHECK_TIMEOUT_MS = 1_000;

function withinDeadline<T>(check: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(resolve, READY_CHECK_TIMEOUT_MS, fallback)));
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

export interface Lifecycle {
  draining: boolean;
  /** After the drain, with the listener closed: each reply closes its keep-alive connection. */
  closingConnections?: boolean;
}

export function healthRoutes(deps: AppDeps, lifecycle: Lifecycle): FastifyPluginAsyncZod {
  const expected = expectedMigrations();
  return async (app) => {
    app.get(
      '/healthz',
      {
        schema: {
          operationId: 'healthz',
          tags: ['operations'],
          summary: 'Liveness: the process answers',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          operationId: 'readyz',
          tags: ['operations'],
          summary: 'Readiness: Postgres, Redis and migrations',
          response: { 200: readyReply, 503: readyReply },
        },
      },
      async (_request, reply) => {
        const postgres = (await withinDeadline(pingDatabase(deps.database), false))
          ? ('ok' as const)
          : ('down' as const);
        const applied =
          postgres === 'ok' ? await withinDeadline(appliedMigrationCount(deps.database), null) : null;
        const migrations = applied === null ? 'down' : applied >= expected ? 'ok' : 'pending';
        const redis = !deps.redis
          ? ('disabled' as const)
          : await withinDeadline(
              deps.redis
                .ping()
                .then(() => 'ok' as const)
                .catch(() => 'down' as const),
              'down' as const,
            );
        const fatal = postgres !== 'ok' || migrations !== 'ok' || lifecycle.draining;
        // Redis is coordination and cache only: without it the service degrades, it does not stop.
        const status = fatal ? 'not_ready' : redis === 'down' ? 'degraded' : 'ready';
        return reply
          .code(fatal ? 503 : 200)
          .send({ status, checks: { postgres, redis, migrations }, draining: lifecycle.draining });
      },
    );
  };
}

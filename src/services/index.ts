// Builds every service from the deps: the one place where modules are wired together.
import type { AppDeps } from '../deps.js';
import { createTenantsRepository } from '../store/tenants.repository.js';
import { createIdempotencyService } from './idempotency.js';

export function createServices(deps: AppDeps) {
  const db = deps.database.db;
  const tenants = createTenantsRepository(db, deps.ids);
  return {
    tenants,
    idempotency: createIdempotencyService(db),
  };
}

export type Services = ReturnType<typeof createServices>;

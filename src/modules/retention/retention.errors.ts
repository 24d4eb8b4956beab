// Retention's errors, with stable codes (docs/api.md lists them).
import { notFound } from '../../shared/errors.js';

/** No such tenant (the admin CLI names one by id; an API key always has its tenant). */
export const tenantNotFound = (tenantId: string) =>
  notFound('tenant.not_found', `tenant ${tenantId} not found`, { tenant_id: tenantId });

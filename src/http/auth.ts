// Bearer API keys → tenant. Everything under /v1 and the MCP endpoint (/mcp) needs a key except
// the platform webhooks, which prove their tenant with that tenant's signing secret instead.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { unauthorized } from '../shared/errors.js';
import type { TenantsRepository } from '../modules/tenants/tenants.repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook for every authenticated /v1 request. */
    tenantId: string;
    /** The key that authenticated it (the actor an audit record names). */
    apiKey: { apiKeyId: string | null; apiKeyName: string | null };
  }
}

const PUBLIC_V1_PREFIXES = ['/v1/webhooks/'];

/** Whether a path needs `Authorization: Bearer <key>`: /v1 except the webhooks, and /mcp (health, metrics, docs need none). */
export function requiresApiKey(path: string): boolean {
  if (path === '/mcp' || path === '/mcp/') return true;
  return path.startsWith('/v1/') && !PUBLIC_V1_PREFIXES.some((p) => path.startsWith(p));
}
const CACHE_TTL_MS = 30_000;

export function registerAuth(app: FastifyInstance, tenants: TenantsRepository): void {
  // Caches hits and misses for a short while so a key lookup is not a query per request.
  const cache = new LRUCache<string, { tenantId: string | null; id?: string; name?: string }>({
    max: 10_000,
    ttl: CACHE_TTL_MS,
  });
  app.decorateRequest('tenantId', '');
  app.decorateRequest('apiKey', null as never);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const path = request.url.split('?')[0] ?? '';
    if (!requiresApiKey(path)) return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw unauthorized('auth.missing_key', 'Authorization: Bearer <api key> is required');
    const key = match[1];
    let entry = cache.get(key);
    if (!entry) {
      const found = await tenants.findKey(key);
      entry = found ? { tenantId: found.tenantId, id: found.id, name: found.name } : { tenantId: null };
      cache.set(key, entry);
    }
    if (!entry.tenantId) throw unauthorized('auth.invalid_key', 'the API key is unknown or revoked');
    request.tenantId = entry.tenantId;
    request.apiKey = { apiKeyId: entry.id ?? null, apiKeyName: entry.name ?? null };
  });
}

// SQL of the scope cache (scope-cache.ts): the versions of search scopes (search_versions, set by
// triggers on memories and transcript_chunks) and a scope's every document with its versions.
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { SOURCES, scopeRows, type SearchFilters } from './search.repository.js';
import type { ScopeDocument, ScopeRead, VersionedSource } from './scope-cache.js';
import { deepFreeze } from '../../shared/deep-freeze.js';
import { tsvectorFrequencies } from './core/search-query.js';

/**
 * A json object `"source key" → version` (0: never written, so no documents) of the listed keys, as
 * a scalar expression; keys that are null are left out.
 */
export function scopeVersionsSql(tenantId: SQL, keys: { source: VersionedSource; key: SQL }[]): SQL {
  const rows = sql.join(
    keys.map((k) => sql`(${k.source}::text, ${k.key})`),
    sql`, `,
  );
  // One primary-key probe per key (a scalar subquery): a join could read the tenant's every version
  // first (a bitmap on tenant_id, then a hash), a cost that grows with its sessions.
  return sql`(select coalesce(json_object_agg(k.source || ' ' || k.key, coalesce((select v.version
      from search_versions v where v.tenant_id = ${tenantId} and v.source = k.source and v.scope_key = k.key), 0)),
      '{}'::json)
    from (values ${rows}) as k(source, key)
    where k.key is not null)`;
}

/** The token of these keys' versions in a map read by scopeVersionsSql; null when one was not read. */
export function versionToken(
  source: VersionedSource,
  keys: readonly string[],
  versions: Readonly<Record<string, number>>,
): string | null {
  const out: number[] = [];
  for (const key of keys) {
    const version = versions[`${source} ${key}`];
    if (version === undefined) return null;
    out.push(version);
  }
  return out.join(',');
}

const json = <T>(value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** A memory's expiry as exact µs, or null (chunks have none). */
const EXPIRES: Record<VersionedSource, SQL> = {
  memories: sql`(extract(epoch from d.expires_at) * 1000000)::int8`,
  transcript_chunks: sql`null::int8`,
};

/**
 * Every row of a scope, expired memories too, with its versions read in the same statement (so the
 * documents are exactly those of that version); `complete` false and no documents when the scope
 * holds more than `cap` rows.
 */
export async function readScope(
  db: Executor,
  params: { tenantId: string; source: VersionedSource; filters: SearchFilters; keys: string[]; cap: number },
): Promise<ScopeRead> {
  const source = SOURCES[params.source];
  const versions = scopeVersionsSql(
    sql`${params.tenantId}`,
    params.keys.map((key) => ({ source: params.source, key: sql`${key}::text` })),
  );
  const columns = sql`${source.columns}, d.ctid::text as rid, ${EXPIRES[params.source]} as expires_us`;
  const rows = await queryRows<{
    versions: unknown;
    n: number;
    id: string | null;
    rid: string;
    text: string;
    time_ms: number;
    time_us: string | number | bigint;
    expires_us: string | number | bigint | null;
    lane_key: string | null;
    extra: unknown;
    length: number;
    tf: string | null;
  }>(
    db,
    sql`with docs as materialized (${scopeRows(source, params.tenantId, params.filters, null, params.cap + 1, columns)}),
      counted as (select count(*)::int as n from docs)
      select ${versions} as versions, c.n, x.* from counted c left join lateral (
        select x.id, x.rid, x.text, (extract(epoch from x.time) * 1000)::float8 as time_ms,
          (extract(epoch from x.time) * 1000000)::int8 as time_us, x.expires_us, x.lane_key, x.extra,
          length(x.tsv) as length, x.tsv::text as tf
        from docs x where c.n <= ${params.cap}) x on true`,
  );
  const token = versionToken(
    params.source,
    params.keys,
    json<Record<string, number>>(rows[0]?.versions) ?? {},
  );
  if (Number(rows[0]?.n ?? 0) > params.cap) return { token, complete: false, documents: [] };
  const documents = rows
    .filter((r) => r.id !== null)
    .map((r): ScopeDocument => {
      const [block, offset] = r.rid.slice(1, -1).split(',').map(Number) as [number, number];
      return deepFreeze({
        id: r.id!,
        rid: r.rid,
        block,
        offset,
        text: r.text,
        time_ms: Number(r.time_ms),
        time_us: Number(r.time_us),
        expires_us: r.expires_us === null ? null : Number(r.expires_us),
        lane_key: r.lane_key,
        extra: json<Record<string, unknown>>(r.extra),
        length: Number(r.length),
        // Insertion order as JSON.parse of json_object_agg over unnest(tsv) gave it: both objects
        // put integer-like keys first, then the vector's order (its text lists lexemes as unnest does).
        tf: new Map(Object.entries(tsvectorFrequencies(r.tf ?? ''))),
      });
    });
  return { token, complete: true, documents };
}

// The lane entries a context call reads, kept in the process between calls (issue 16: history costs
// per new turn, not per turn). The next call of the session reads only the entries from the last one
// held on; the count the same statement returns tells whether anything held was deleted (retention)
// or committed out of seq order, and then the lane is read again whole. Bounded in bytes.
import { LRUCache } from 'lru-cache';
import type { TranscriptEntryRow } from '../sessions/transcript.repository.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import { deepFreeze } from '../../shared/deep-freeze.js';

/**
 * The cache's heap bound: each entry counted as its content's JSON length twice (V8 strings take
 * one or two bytes a character; parsed objects more, so this is a lower bound of what is held)
 * plus ENTRY_OVERHEAD_BYTES. A lane over an eighth of it is not held.
 */
export const LANE_HISTORY_CACHE_BYTES = 32 * 2 ** 20;
const ENTRY_OVERHEAD_BYTES = 400;

type LaneEntry = TranscriptEntryRow;

interface Held {
  entries: readonly LaneEntry[];
  bytes: number;
}

const bytesOf = (entries: readonly LaneEntry[]) =>
  entries.reduce((sum, e) => sum + ENTRY_OVERHEAD_BYTES + 2 * JSON.stringify(e.content).length, 0);

export function createLaneHistoryCache(deps: {
  transcript: Pick<TranscriptService, 'laneEntries' | 'laneEntriesFrom'>;
  maxBytes?: number;
}) {
  const maxBytes = deps.maxBytes ?? LANE_HISTORY_CACHE_BYTES;
  const held = new LRUCache<string, Held>({
    maxSize: maxBytes,
    sizeCalculation: (h) => Math.max(1, h.bytes),
  });

  function keep(key: string, entries: readonly LaneEntry[], bytes: number): readonly LaneEntry[] {
    if (entries.length > 0 && bytes <= maxBytes / 8) held.set(key, { entries, bytes });
    else held.delete(key);
    return entries;
  }

  return {
    /** The lane's entries from `fromSeq`, in seq order (frozen: shared with later calls). */
    async laneEntries(params: {
      tenantId: string;
      sessionId: string;
      laneKey: string;
      fromSeq: number;
    }): Promise<readonly LaneEntry[]> {
      const key = JSON.stringify([params.tenantId, params.sessionId, params.laneKey, params.fromSeq]);
      const cached = held.get(key);
      if (cached) {
        const last = cached.entries.at(-1)!;
        const rows = await deps.transcript.laneEntriesFrom({ ...params, atSeq: last.seq });
        if (rows[0]?.seq === last.seq && rows[0].laneCount === cached.entries.length + rows.length - 1) {
          if (rows.length === 1) return cached.entries;
          const added = rows.slice(1).map(({ laneCount: _count, ...entry }) => deepFreeze(entry));
          return keep(key, [...cached.entries, ...added], cached.bytes + bytesOf(added));
        }
      }
      const entries = (await deps.transcript.laneEntries(params)).map(deepFreeze);
      return keep(key, entries, bytesOf(entries));
    },
  };
}

export type LaneHistoryCache = ReturnType<typeof createLaneHistoryCache>;

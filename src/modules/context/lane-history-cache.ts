// The lane entries a context call reads, kept in the process between calls (history costs
// per new turn, not per turn). The next call of the session reads only the entries from the last one
// held on. Entries commit in seq order (appends hold the session row's lock), so only a delete can
// take a held one away: the session row counts its deleted entries (`entries_removed`, by trigger),
// and a copy read when that count had another value is read again whole. Bounded in bytes. That read
// rides on the call's first statement when it can (readAhead): the lane the session's last call
// read, from its last held entry; the call uses it when its lane turns out to be that one.
import { LRUCache } from 'lru-cache';
import type { LaneEntriesRead, TranscriptEntryRow } from '../sessions/transcript.repository.js';
import type { LaneReadAhead } from './context.repository.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import { deepFreeze } from '../../shared/deep-freeze.js';

/**
 * The cache's heap bound: each entry counted as its content's JSON length twice (V8 strings take
 * one or two bytes a character; parsed objects more, so this is a lower bound of what is held)
 * plus ENTRY_OVERHEAD_BYTES. A lane over an eighth of it is not held.
 */
const LANE_HISTORY_CACHE_BYTES = 32 * 2 ** 20;
const ENTRY_OVERHEAD_BYTES = 400;
/** Sessions whose last lane is remembered for readAhead (a few hundred bytes each). */
const LAST_LANES = 10_000;

type LaneEntry = TranscriptEntryRow;

interface Held {
  entries: readonly LaneEntry[];
  bytes: number;
  /** The session's entries_removed as read at or before the entries' read. */
  removed: number;
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
  /** Per session (tenant and id), the lane and fromSeq of its last read. */
  const lastLane = new LRUCache<string, { laneKey: string; fromSeq: number }>({ max: LAST_LANES });
  const keyOf = (p: { tenantId: string; sessionId: string; laneKey: string; fromSeq: number }) =>
    JSON.stringify([p.tenantId, p.sessionId, p.laneKey, p.fromSeq]);

  function keep(
    key: string,
    entries: readonly LaneEntry[],
    bytes: number,
    removed: number,
  ): readonly LaneEntry[] {
    if (entries.length > 0 && bytes <= maxBytes / 8) held.set(key, { entries, bytes, removed });
    else held.delete(key);
    return entries;
  }

  return {
    /**
     * The read the session's next call likely needs: its last lane, from the last entry held (the
     * call's first statement carries it, ContextRepository.loadTurn); null when nothing is held.
     */
    readAhead(tenantId: string, sessionId: string): LaneReadAhead | null {
      const lane = lastLane.get(JSON.stringify([tenantId, sessionId]));
      const last = lane && held.peek(keyOf({ tenantId, sessionId, ...lane }))?.entries.at(-1);
      return last ? { ...lane, atSeq: last.seq } : null;
    },

    /**
     * The lane's entries from `fromSeq`, in seq order (frozen: shared with later calls). `removed`:
     * the session's entries_removed, read no later than this call's reads (ContextRepository.loadTurn:
     * the session row). `read`: what that statement read ahead, used when it is this lane's read.
     */
    async laneEntries(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq: number },
      removed: number,
      read?: (LaneReadAhead & LaneEntriesRead) | null,
    ): Promise<readonly LaneEntry[]> {
      const key = keyOf(params);
      lastLane.set(JSON.stringify([params.tenantId, params.sessionId]), {
        laneKey: params.laneKey,
        fromSeq: params.fromSeq,
      });
      const cached = held.get(key);
      // Held entries are whole while no entry of the session was deleted since they were read.
      if (cached && cached.removed === removed) {
        const last = cached.entries.at(-1)!;
        const rows =
          read && keyOf({ ...params, ...read }) === key && read.atSeq === last.seq
            ? read.rows
            : await deps.transcript.laneEntriesFrom({ ...params, atSeq: last.seq });
        if (rows[0]?.seq === last.seq) {
          if (rows.length === 1) return cached.entries;
          const added = rows.slice(1).map((row) => deepFreeze(row));
          return keep(key, [...cached.entries, ...added], cached.bytes + bytesOf(added), removed);
        }
      }
      const entries = (await deps.transcript.laneEntries(params)).map(deepFreeze);
      return keep(key, entries, bytesOf(entries), removed);
    },
  };
}

export type LaneHistoryCache = ReturnType<typeof createLaneHistoryCache>;

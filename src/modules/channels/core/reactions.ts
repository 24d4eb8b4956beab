// Reactions of one message: a last-writer-wins register per (reaction, user), net counts for
// reactions reported without a user, and display names for reactions keyed by an id (Discord
// custom emoji), all derived from reaction events only. Pure, order- and duplicate-independent.
import type { ChannelEvent, IngestOutcome } from '../../../shared/channel-events.js';

/**
 * One user's last word on one reaction: on (1) or off (0), the event's time in ms and its
 * event id when it had one (the tie-break between events of the same time).
 */
export type ReactorEntry = [state: 0 | 1, at: number, eventId?: string];

/** Per reaction key and user. */
export type Reactors = Record<string, Record<string, ReactorEntry>>;

/** The display name of a reaction keyed by an id: the name, the event's time and its event id. */
type NameEntry = [name: string, at: number, eventId?: string];

export interface ReactionState {
  reactors?: Reactors;
  /**
   * Reactions reported without a user: net counts (adds minus removes, negative while a removal
   * waits for its add). The event-id dedupe of ingest keeps a repeated delivery from counting twice.
   */
  anonymous_reactions?: Record<string, number>;
  /** Names of reactions whose key is an id (`reaction_name`): the latest event's name wins. */
  names?: Record<string, NameEntry>;
}

type ReactionEvent = Extract<ChannelEvent, { type: 'reaction.added' | 'reaction.removed' }>;

const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Which of two entries for the same (reaction, user) is the later word: the later time, then the
 * greater event id (none sorts first), then off over on. A total order, so applying entries in
 * any order, each any number of times, keeps the same one.
 */
function compareReactorEntries(a: ReactorEntry, b: ReactorEntry): number {
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  const byId = order(a[2] ?? '', b[2] ?? '');
  if (byId !== 0) return byId;
  return b[0] - a[0];
}

/** Likewise for names: the later time, the greater event id, then the greater name. */
function compareNameEntries(a: NameEntry, b: NameEntry): number {
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return order(a[2] ?? '', b[2] ?? '') || order(a[0], b[0]);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isEntryTail = (entry: unknown[]) =>
  typeof entry[1] === 'number' &&
  Number.isFinite(entry[1]) &&
  (entry.length === 2 || (entry.length === 3 && typeof entry[2] === 'string'));

/**
 * A stored reaction state with anything not of its shape dropped (rows written before caller
 * metadata and derived state were kept apart may hold what a caller sent).
 */
export function reactionStateOf(value: unknown): ReactionState {
  if (!isRecord(value)) return {};
  const state: ReactionState = {};
  if (isRecord(value.reactors)) {
    const reactors: Reactors = {};
    for (const [name, users] of Object.entries(value.reactors)) {
      if (!isRecord(users)) continue;
      const valid = Object.entries(users).filter(
        (entry): entry is [string, ReactorEntry] =>
          Array.isArray(entry[1]) && (entry[1][0] === 0 || entry[1][0] === 1) && isEntryTail(entry[1]),
      );
      if (valid.length > 0) reactors[name] = Object.fromEntries(valid);
    }
    state.reactors = reactors;
  }
  if (isRecord(value.anonymous_reactions)) {
    state.anonymous_reactions = Object.fromEntries(
      Object.entries(value.anonymous_reactions).filter(
        (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isSafeInteger(entry[1]),
      ),
    );
  }
  if (isRecord(value.names)) {
    state.names = Object.fromEntries(
      Object.entries(value.names).filter(
        (entry): entry is [string, NameEntry] =>
          Array.isArray(entry[1]) && typeof entry[1][0] === 'string' && isEntryTail(entry[1]),
      ),
    );
  }
  return state;
}

/**
 * Shown counts by reaction. A reaction keyed by an id shows as `name:id` once a name is known
 * (Discord's own `<:name:id>` without the brackets), so two emoji of one name never merge.
 */
function deriveReactions(meta: ReactionState): Record<string, number> {
  const out: Record<string, number> = {};
  const label = (key: string) => {
    const name = meta.names?.[key]?.[0];
    return name ? `${name}:${key}` : key;
  };
  for (const [key, users] of Object.entries(meta.reactors ?? {})) {
    const on = Object.values(users).filter(([state]) => state === 1).length;
    if (on > 0) out[label(key)] = on;
  }
  for (const [key, n] of Object.entries(meta.anonymous_reactions ?? {})) {
    if (n > 0) out[label(key)] = (out[label(key)] ?? 0) + n;
  }
  // Key order independent of event order (jsonb would normalize it anyway).
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => order(a, b)));
}

/**
 * Applies a reaction event to a live message's reaction state (the caller checks deletion) and
 * says whether the state changed, so the row is written.
 */
export function applyReactionTo(
  m: { reactionState: ReactionState; reactions: Record<string, number> },
  event: ReactionEvent,
  at: number,
): { outcome: IngestOutcome; reason?: string; changed: boolean } {
  const on: 0 | 1 = event.type === 'reaction.added' ? 1 : 0;
  const meta = { ...m.reactionState };
  // The name is a register of its own: the latest name stays, whatever the add/remove outcome.
  let renamed = false;
  let nameStored = false;
  if (event.reaction_name) {
    const entry: NameEntry = event.event_id
      ? [event.reaction_name, at, event.event_id]
      : [event.reaction_name, at];
    const previous = meta.names?.[event.reaction];
    if (!previous || compareNameEntries(previous, entry) < 0) {
      meta.names = { ...(meta.names ?? {}), [event.reaction]: entry };
      nameStored = true;
      renamed = previous?.[0] !== entry[0];
    }
  }
  const store = () => {
    m.reactionState = meta;
    m.reactions = deriveReactions(meta);
  };
  let result: { outcome: IngestOutcome; reason?: string } = { outcome: 'updated' };
  if (event.user_id) {
    const reactors: Reactors = { ...(meta.reactors ?? {}) };
    const users = { ...(reactors[event.reaction] ?? {}) };
    const previous = users[event.user_id];
    const entry: ReactorEntry = event.event_id ? [on, at, event.event_id] : [on, at];
    if (previous && compareReactorEntries(previous, entry) >= 0) {
      if (nameStored) store();
      if (renamed) return { outcome: 'updated', changed: true };
      return previous[0] === on
        ? { outcome: 'duplicate', changed: nameStored }
        : { outcome: 'ignored', reason: 'a newer reaction event is stored', changed: nameStored };
    }
    // The newer word is kept even when it repeats the state: an older opposite event arriving
    // later must lose to it. A removal with nothing to remove is remembered for the same reason.
    if (previous?.[0] === on) result = { outcome: 'duplicate' };
    else if (!previous && on === 0) result = { outcome: 'ignored', reason: 'the reaction was not present' };
    users[event.user_id] = entry;
    reactors[event.reaction] = users;
    meta.reactors = reactors;
  } else {
    const anonymous = { ...(meta.anonymous_reactions ?? {}) };
    const current = anonymous[event.reaction] ?? 0;
    // A net count: a removal before its add goes below zero and the add brings it back.
    anonymous[event.reaction] = current + (on === 1 ? 1 : -1);
    meta.anonymous_reactions = anonymous;
    if (on === 0 && current <= 0) result = { outcome: 'ignored', reason: 'the reaction was not present' };
  }
  store();
  if (renamed) result = { outcome: 'updated' };
  return { ...result, changed: true };
}

// Injected time and ids: tests and replays control both (docs/design.md §1 determinism).
import { v7 as uuidv7 } from 'uuid';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface IdGenerator {
  /** A UUIDv7 (time-ordered); Postgres 15 has no uuidv7(), so the app mints them. */
  next(): string;
}

export const uuidV7Ids: IdGenerator = { next: () => uuidv7() };

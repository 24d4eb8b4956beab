// A logged payload taken apart for storage and put back byte for byte (docs/api.md "Replay"): the
// elements of its top-level arrays (system blocks, messages, tools) become parts stored once per
// tenant by SHA-256; the rest stays in a small layout. Rebuilding is exact because the payload's
// bytes are JSON.stringify output, and JSON.stringify(JSON.parse(s)) === s for any such s: no
// whitespace, keys in the order parsed, strings escaped one way, numbers printed the shortest way
// that reads back as the same double.
import { createHash } from 'node:crypto';

/** [key, JSON text of the value] or [key, number of parts that make up the array]. */
type LayoutEntry = [string, string | number];

export interface PayloadPart {
  sha256: string;
  body: string;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The payload's bytes as logged and sent, and their SHA-256 (the context log's payload_sha256). */
export function payloadBytes(payload: unknown): { text: string; sha256: string } {
  const text = JSON.stringify(payload);
  return { text, sha256: sha256Hex(text) };
}

/** Splits the payload's JSON text (an object) into its layout and parts. */
export function splitPayload(text: string): { layout: string; parts: PayloadPart[] } {
  const payload = JSON.parse(text) as Record<string, unknown>;
  const layout: LayoutEntry[] = [];
  const parts: PayloadPart[] = [];
  for (const [key, value] of Object.entries(payload)) {
    if (!Array.isArray(value)) {
      layout.push([key, JSON.stringify(value)]);
      continue;
    }
    layout.push([key, value.length]);
    for (const element of value) {
      const body = JSON.stringify(element);
      parts.push({ sha256: sha256Hex(body), body });
    }
  }
  return { layout: JSON.stringify(layout), parts };
}

/** The payload's JSON text from its layout and its parts' bodies, in order. */
export function joinPayload(layout: string, bodies: readonly string[]): string {
  let next = 0;
  const fields = (JSON.parse(layout) as LayoutEntry[]).map(([key, value]) => {
    if (typeof value === 'string') return `${JSON.stringify(key)}:${value}`;
    const elements = bodies.slice(next, next + value);
    if (elements.length !== value) throw new Error('payload layout names more parts than were given');
    next += value;
    return `${JSON.stringify(key)}:[${elements.join(',')}]`;
  });
  if (next !== bodies.length) throw new Error('payload layout names fewer parts than were given');
  return `{${fields.join(',')}}`;
}

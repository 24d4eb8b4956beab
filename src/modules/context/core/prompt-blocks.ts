// An Anthropic Messages payload as the cost model sees it (cost-model.ts): its blocks in the
// provider's order (tools, system, each message's content blocks), each with the hash of the prompt
// up to and including it, its estimated tokens and its breakpoint. The product and bench:cost use
// this one reading, so both bill the same prompt the same way.
import { createHash } from 'node:crypto';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../../shared/tokens.js';
import { plainTextOf } from '../../../shared/content-blocks.js';
import {
  billRequest,
  type BilledRequest,
  type CacheState,
  type CacheTtl,
  type PromptBlock,
} from './cost-model.js';

/** The parts of a Messages request that make up its prompt. */
export interface PromptPayload {
  model?: string;
  tools?: readonly unknown[] | null;
  system?: string | readonly unknown[] | null;
  messages: readonly { role: string; content: string | readonly unknown[] }[];
}

/** Hex characters of a prefix hash kept: 64 bits, ample for the few prefixes a session holds. */
const PREFIX_HASH_CHARS = 16;

/**
 * JSON of a block with its keys sorted and without `cache_control`: where a breakpoint sits does not
 * change the prompt the provider caches, and the same content must hash the same whoever wrote it.
 */
function canonical(value: unknown, top = true): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, false)).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => !(top && k === 'cache_control'))
      .sort();
    const record = value as Record<string, unknown>;
    return `{${keys
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k], false)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A hash of the prompt up to a block: the previous block's, the section and the block's canonical JSON. */
function prefixHash(previous: string, section: string, canonicalJson: string): string {
  return createHash('sha256')
    .update(previous)
    .update('\u0000')
    .update(section)
    .update('\u0000')
    .update(canonicalJson)
    .digest('hex')
    .slice(0, PREFIX_HASH_CHARS);
}

/** A breakpoint is not part of a block's canonical JSON: a plain text block may carry one. */
const PLAIN_WITH = ['cache_control'] as const;

/**
 * Prefix hashes of plain text blocks, by the hash before them and section, then by the block's
 * text: a conversation's calls send the same history after the same prefix, so each of its
 * blocks is hashed once, not on every call (same hashes: a hash is a function of its key). The
 * text is a key of its own (a held string keeps its hash): no canonical JSON is built for a hit.
 * Two generations bounded by the characters of their texts: when the newer is full it becomes the
 * older (the one before is dropped), and a hit in the older moves to the newer, so the history
 * that every call sends stays while each call's new blocks (channel context, notes) pass through.
 */
const TEXT_PREFIXES_MAX_CHARS = 2_000_000;
let newerPrefixes = new Map<string, Map<string, string>>();
let olderPrefixes = new Map<string, Map<string, string>>();
let newerPrefixChars = 0;

function rememberPrefix(head: string, text: string, hash: string): void {
  if (text.length > TEXT_PREFIXES_MAX_CHARS / 100) return;
  if (newerPrefixChars + text.length > TEXT_PREFIXES_MAX_CHARS) {
    olderPrefixes = newerPrefixes;
    newerPrefixes = new Map();
    newerPrefixChars = 0;
  }
  let byText = newerPrefixes.get(head);
  if (!byText) newerPrefixes.set(head, (byText = new Map()));
  byText.set(text, hash);
  newerPrefixChars += text.length + head.length;
}

function textPrefixHash(previous: string, section: string, text: string): string {
  const head = `${previous}\u0000${section}`;
  const newer = newerPrefixes.get(head)?.get(text);
  if (newer !== undefined) return newer;
  const hash =
    olderPrefixes.get(head)?.get(text) ??
    prefixHash(previous, section, `{"text":${JSON.stringify(text)},"type":"text"}`);
  rememberPrefix(head, text, hash);
  return hash;
}

/**
 * Objects that can never change: frozen, with own data properties only (no getters), a plain object
 * or array, and everything inside them the same (the built-in tools, held lane entries). Checked
 * once per object.
 */
const UNCHANGING = new WeakSet<object>();

function unchanging(value: object): boolean {
  if (UNCHANGING.has(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Object.isFrozen(value) || (proto !== Object.prototype && proto !== Array.prototype)) return false;
  for (const key of Object.keys(value)) {
    const property = Object.getOwnPropertyDescriptor(value, key);
    if (!property || !('value' in property)) return false;
    const inner = property.value as unknown;
    if (inner !== null && typeof inner === 'object' && !unchanging(inner)) return false;
  }
  UNCHANGING.add(value);
  return true;
}

/** Canonical JSON (top level) and JSON of unchanging blocks, by the object: built once each. */
const CANONICAL_OF = new WeakMap<object, string>();
const JSON_OF = new WeakMap<object, string>();

function memoOf(memo: WeakMap<object, string>, value: object, make: () => string): string {
  const known = memo.get(value);
  if (known !== undefined) return known;
  const made = make();
  if (unchanging(value)) memo.set(value, made);
  return made;
}

/**
 * The prefix hash of a block that is not plain text: of an unchanging one (the tools every call
 * sends) by its canonical JSON, remembered like a text's (same hash: a function of its key).
 */
function blockPrefixHash(previous: string, section: string, block: unknown): string {
  if (!block || typeof block !== 'object' || !unchanging(block)) {
    return prefixHash(previous, section, canonical(block));
  }
  const json = memoOf(CANONICAL_OF, block, () => canonical(block));
  const head = `${previous}\u0000${section}\u0000json`;
  const newer = newerPrefixes.get(head)?.get(json);
  if (newer !== undefined) return newer;
  const hash = olderPrefixes.get(head)?.get(json) ?? prefixHash(previous, section, json);
  rememberPrefix(head, json, hash);
  return hash;
}

/** A tool's JSON as counted (without its breakpoint). */
function toolJson(tool: unknown): string {
  const bare = withoutCacheControl(tool);
  return bare && typeof bare === 'object'
    ? memoOf(JSON_OF, bare, () => JSON.stringify(bare))
    : JSON.stringify(bare);
}

function breakpointOf(block: unknown): CacheTtl | undefined {
  if (!block || typeof block !== 'object') return undefined;
  const control = (block as { cache_control?: { type?: string; ttl?: string } | null }).cache_control;
  if (!control) return undefined;
  return control.ttl === '1h' ? '1h' : '5m';
}

function withoutCacheControl(block: unknown): unknown {
  if (!block || typeof block !== 'object' || !('cache_control' in block)) return block;
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  return rest;
}

/**
 * `counted`: tokens of text blocks already known (by their text), taken instead of the estimator's
 * count; the product hands over the retrieved block's, which assembly packed row by row.
 */
export function promptBlocks(
  payload: PromptPayload,
  estimator: TokenEstimator,
  counted: ReadonlyMap<string, number> = NONE_COUNTED,
): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  let previous = '';
  const push = (section: string, content: unknown, tokens: number) => {
    // A plain text block's canonical JSON is `{"text":…,"type":"text"}`: hashed by its text.
    const text = plainTextOf(content, PLAIN_WITH);
    previous =
      text === null ? blockPrefixHash(previous, section, content) : textPrefixHash(previous, section, text);
    const breakpoint = breakpointOf(content);
    blocks.push({ prefix: previous, tokens, ...(breakpoint ? { breakpoint } : {}) });
  };
  for (const tool of payload.tools ?? []) {
    push('tool', tool, estimator.text(toolJson(tool)));
  }
  const system = payload.system;
  if (typeof system === 'string') {
    if (system.length > 0) push('system', { type: 'text', text: system }, estimator.text(system));
  } else {
    for (const block of system ?? []) push('system', block, estimator.content([withoutCacheControl(block)]));
  }
  const blockTokens = (block: unknown) => {
    const known = counted.size > 0 ? counted.get((block as { text?: unknown }).text as string) : undefined;
    return known ?? estimator.content([withoutCacheControl(block)]);
  };
  for (const message of payload.messages) {
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    content.forEach((block, index) => {
      // The first block of a message starts it: the role and the message's overhead go there.
      const section = index === 0 ? `message:${message.role}` : 'block';
      push(section, block, blockTokens(block) + (index === 0 ? MESSAGE_OVERHEAD_TOKENS : 0));
    });
  }
  return blocks;
}

const NONE_COUNTED: ReadonlyMap<string, number> = new Map();

/** Bills a payload against the cache state the conversation's earlier requests left (cost-model.ts). */
export function billPayload(params: {
  payload: PromptPayload;
  model: string;
  at: number;
  state: CacheState | null;
  estimator: TokenEstimator;
  counted?: ReadonlyMap<string, number>;
}): BilledRequest {
  return billRequest({
    blocks: promptBlocks(params.payload, params.estimator, params.counted),
    model: params.model,
    at: params.at,
    state: params.state,
  });
}

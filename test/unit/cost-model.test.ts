import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  billRequest,
  minCacheableTokens,
  type CacheState,
  type CacheTtl,
  type PromptBlock,
} from '../../src/modules/context/core/cost-model.js';
import { promptBlocks } from '../../src/modules/context/core/prompt-blocks.js';
import { createTokenEstimator, MESSAGE_OVERHEAD_TOKENS } from '../../src/shared/tokens.js';
import { deepFreeze } from '../../src/shared/deep-freeze.js';

const MODEL = 'claude-sonnet-4-5';
const MINUTE = 60_000;

/** Blocks named by their content: a block's prefix hash is the names up to it, joined. */
function prompt(spec: [name: string, tokens: number, breakpoint?: CacheTtl][]): PromptBlock[] {
  const names: string[] = [];
  return spec.map(([name, tokens, breakpoint]) => {
    names.push(name);
    return { prefix: names.join('|'), tokens, ...(breakpoint ? { breakpoint } : {}) };
  });
}

/** A conversation of `turns` user/assistant pairs after a 2,000-token system, marked as a naive bot marks it. */
function conversation(turns: number): PromptBlock[] {
  const spec: [string, number, CacheTtl?][] = [['system', 2000, '5m']];
  for (let t = 0; t < turns; t += 1) spec.push([`user${t}`, 100], [`assistant${t}`, 200]);
  spec.push([`user${turns}`, 100, '5m']);
  return prompt(spec);
}

const bill = (blocks: PromptBlock[], at: number, state: CacheState | null, model = MODEL) =>
  billRequest({ blocks, model, at, state });

describe('cost model', () => {
  it('bills the first request as writes and uncached input, and says it is cold', () => {
    const { cost, state } = bill(
      prompt([
        ['system', 2000, '5m'],
        ['user', 100],
      ]),
      0,
      null,
    );
    expect(cost).toEqual({
      cache_read: 0,
      cache_write: 2000,
      cache_write_5m: 2000,
      cache_write_1h: 0,
      uncached: 100,
      input_tokens: 2100,
      billed_input: 2600,
      basis: 'cold',
    });
    expect(state.entries).toEqual([{ prefix: 'system', tokens: 2000, expires_at: 5 * MINUTE, ttl: '5m' }]);
  });

  it('reads the previous breakpoint prefix and writes only what follows it', () => {
    const first = bill(conversation(0), 0, null);
    expect(first.cost.cache_write).toBe(2100);
    const second = bill(conversation(1), MINUTE, first.state);
    expect(second.cost).toMatchObject({
      cache_read: 2100,
      cache_write: 300,
      uncached: 0,
      input_tokens: 2400,
      basis: 'warm',
    });
    expect(second.cost.billed_input).toBeCloseTo(2100 * 0.1 + 300 * 1.25, 6);
  });

  it('an entry lives 5 minutes after its last use, and a read restarts the clock', () => {
    const first = bill(conversation(0), 0, null);
    const expired = bill(conversation(1), 5 * MINUTE + 1, first.state);
    expect(expired.cost).toMatchObject({ cache_read: 0, basis: 'expired' });

    const read = bill(conversation(1), 4 * MINUTE, first.state);
    expect(read.cost.cache_read).toBe(2100);
    // The system prefix was read as part of the longer one: it lives on too.
    const later = bill(
      prompt([
        ['system', 2000, '5m'],
        ['other', 50],
      ]),
      8 * MINUTE,
      read.state,
    );
    expect(later.cost).toMatchObject({ cache_read: 2000, basis: 'warm' });
  });

  it('a 1-hour breakpoint is written at 2× and outlives the 5-minute one', () => {
    const blocks = prompt([
      ['system', 3000, '1h'],
      ['user0', 500, '5m'],
      ['tail', 10],
    ]);
    const first = bill(blocks, 0, null);
    expect(first.cost).toMatchObject({ cache_write_1h: 3000, cache_write_5m: 500, uncached: 10 });
    expect(first.cost.billed_input).toBe(3000 * 2 + 500 * 1.25 + 10);
    const later = bill(blocks, 30 * MINUTE, first.state);
    expect(later.cost).toMatchObject({
      cache_read: 3000,
      cache_write_5m: 500,
      cache_write_1h: 0,
      basis: 'warm',
    });
  });

  it('does not cache a prefix shorter than the model minimum', () => {
    const blocks = prompt([
      ['system', 900, '5m'],
      ['user', 100, '5m'],
    ]);
    const { cost, state } = bill(blocks, 0, null);
    // 900 is under 1,024; the 1,000-token prefix is under it too.
    expect(cost).toMatchObject({ cache_write: 0, uncached: 1000, billed_input: 1000 });
    expect(state.entries).toEqual([]);
    expect(bill(prompt([['system', 3000, '5m']]), 0, null, 'claude-haiku-4-5').cost.cache_write).toBe(0);
    expect(bill(prompt([['system', 5000, '5m']]), 0, null, 'claude-haiku-4-5').cost.cache_write).toBe(5000);
  });

  it('finds a cached prefix only within 20 blocks before a breakpoint', () => {
    // The first request marks only the system prompt's end; later ones only the last message.
    const systemOnly = prompt([
      ['system', 2000, '5m'],
      ['user0', 100],
    ]);
    const cached = bill(systemOnly, 0, null).state;
    const near = conversation(9).map((b, i) => (i === 0 ? { prefix: b.prefix, tokens: b.tokens } : b));
    expect(near.length).toBe(20); // the system block is 19 boundaries before the breakpoint
    expect(bill(near, MINUTE, cached).cost.cache_read).toBe(2000);
    const far = conversation(11).map((b, i) => (i === 0 ? { prefix: b.prefix, tokens: b.tokens } : b));
    expect(bill(far, MINUTE, cached).cost).toMatchObject({ cache_read: 0, basis: 'miss' });
  });

  it('reads nothing when an earlier block changed, and never bills more than 4 breakpoints', () => {
    const first = bill(conversation(2), 0, null);
    const edited = conversation(3).map((b) => ({ ...b, prefix: `edited:${b.prefix}` }));
    expect(bill(edited, MINUTE, first.state).cost).toMatchObject({ cache_read: 0, basis: 'miss' });

    const six = prompt([
      ['a', 1100, '5m'],
      ['b', 100, '5m'],
      ['c', 100, '5m'],
      ['d', 100, '5m'],
      ['e', 100, '5m'],
    ]);
    const { cost } = bill(six, 0, null);
    expect(cost).toMatchObject({ cache_write: 1400, uncached: 100 });
  });

  it('is never negative', () => {
    const { cost } = bill(
      prompt([
        ['system', -50, '5m'],
        ['user', 10],
      ]),
      0,
      { entries: [] },
    );
    for (const value of Object.values(cost))
      if (typeof value === 'number') expect(value).toBeGreaterThanOrEqual(0);
    expect(cost.basis).toBe('cold');
  });

  it('keeps the documented minimum per model', () => {
    expect(minCacheableTokens('claude-sonnet-4-5-20250929')).toBe(1024);
    expect(minCacheableTokens('claude-opus-4-1')).toBe(1024);
    expect(minCacheableTokens('claude-opus-4-5')).toBe(4096);
    expect(minCacheableTokens('claude-sonnet-4-6')).toBe(2048);
    expect(minCacheableTokens('claude-haiku-4-5')).toBe(4096);
    expect(minCacheableTokens('anthropic/claude-3-5-haiku-20241022')).toBe(2048);
    expect(minCacheableTokens('claude-sonnet-5-5')).toBe(1024);
  });
});

describe('prompt blocks', () => {
  const estimator = createTokenEstimator();
  const payload = (marked: 'system' | 'last') => ({
    tools: [{ name: 'search', description: 'find', input_schema: { type: 'object' } }],
    system: [
      {
        type: 'text',
        text: 'You are a bot.',
        ...(marked === 'system' ? { cache_control: { type: 'ephemeral' } } : {}),
      },
    ],
    messages: [
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what now?' },
          {
            type: 'text',
            text: 'context',
            ...(marked === 'last' ? { cache_control: { type: 'ephemeral', ttl: '1h' } } : {}),
          },
        ],
      },
    ],
  });

  it('reads tools, system and every content block in order, with tokens by the estimator', () => {
    const blocks = promptBlocks(payload('last'), estimator);
    expect(blocks.map((b) => b.tokens)).toEqual([
      estimator.text(JSON.stringify(payload('last').tools[0])),
      estimator.text('You are a bot.'),
      estimator.text('hello there') + MESSAGE_OVERHEAD_TOKENS,
      estimator.text('hi') + MESSAGE_OVERHEAD_TOKENS,
      estimator.text('what now?') + MESSAGE_OVERHEAD_TOKENS,
      estimator.text('context'),
    ]);
    expect(blocks.map((b) => b.breakpoint)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      '1h',
    ]);
    expect(promptBlocks(payload('system'), estimator)[1]!.breakpoint).toBe('5m');
  });

  it('takes the tokens of a text block already counted (the retrieved block) instead of counting it', () => {
    const counted = new Map([['context', 977]]);
    const blocks = promptBlocks(payload('last'), estimator, counted);
    expect(blocks.map((b) => b.tokens)).toEqual([
      ...promptBlocks(payload('last'), estimator)
        .slice(0, 5)
        .map((b) => b.tokens),
      977,
    ]);
    // The same prompt: only its count is taken.
    expect(blocks.map((b) => b.prefix)).toEqual(
      promptBlocks(payload('last'), estimator).map((b) => b.prefix),
    );
  });

  it('hashes content, not where the breakpoints sit; a change reaches every later prefix', () => {
    const a = promptBlocks(payload('last'), estimator).map((b) => b.prefix);
    expect(promptBlocks(payload('system'), estimator).map((b) => b.prefix)).toEqual(a);
    expect(new Set(a).size).toBe(a.length);
    const edited = payload('last');
    edited.messages[0] = { role: 'user', content: 'hello there!' };
    const b = promptBlocks(edited, estimator).map((x) => x.prefix);
    expect(b.slice(0, 2)).toEqual(a.slice(0, 2));
    for (let i = 2; i < a.length; i += 1) expect(b[i]).not.toBe(a[i]);
    // The same text said by the other role is another prompt.
    const swapped = payload('last');
    swapped.messages[1] = { role: 'user', content: [{ type: 'text', text: 'hi' }] };
    expect(promptBlocks(swapped, estimator)[3]!.prefix).not.toBe(a[3]);
    // A string message and its one text block are the same prompt.
    const asBlocks = payload('last');
    asBlocks.messages[0] = { role: 'user', content: [{ type: 'text', text: 'hello there' }] };
    expect(promptBlocks(asBlocks, estimator).map((x) => x.prefix)).toEqual(a);
  });

  it('hashes a plain text block as any other block, the first time and when it is remembered', () => {
    const hash = (previous: string, section: string, block: unknown) =>
      createHash('sha256')
        .update(`${previous}\u0000${section}\u0000${JSON.stringify(block)}`)
        .digest('hex')
        .slice(0, 16);
    const text = `remembered ${Math.random()}`;
    const content = [
      { type: 'text', text, cache_control: { type: 'ephemeral' } },
      { type: 'text', text, citations: [] },
      { text, type: 'text' },
    ];
    const expected: string[] = [];
    let previous = '';
    for (const [i, block] of content.entries()) {
      const canonical = i === 1 ? { citations: [], text, type: 'text' } : { text: block.text, type: 'text' };
      previous = hash(previous, i === 0 ? 'message:user' : 'block', canonical);
      expected.push(previous);
    }
    for (let call = 0; call < 3; call += 1)
      expect(promptBlocks({ messages: [{ role: 'user', content }] }, estimator).map((b) => b.prefix)).toEqual(
        expected,
      );
  });

  it('blocks that can never change (deep-frozen tools) get the same prefixes and tokens, every call', () => {
    const tool = () => ({
      name: 'search',
      description: `find ${Math.random()}`,
      input_schema: { type: 'object', properties: { q: { type: 'string' } } },
    });
    const thawed = tool();
    const frozen = deepFreeze(structuredClone(thawed));
    const marked = { ...frozen, cache_control: { type: 'ephemeral' } };
    const of = (tools: unknown[]) =>
      promptBlocks({ tools, messages: [{ role: 'user', content: 'hi' }] }, estimator);
    const expected = of([thawed, thawed]);
    for (let call = 0; call < 3; call += 1) {
      expect(of([frozen, frozen])).toEqual(expected);
      expect(of([frozen, marked]).map((b) => [b.prefix, b.tokens])).toEqual(
        expected.map((b) => [b.prefix, b.tokens]),
      );
    }
    // A frozen block holding something that is not frozen is read afresh each time.
    const inner = { type: 'object', note: 'a' };
    const shallow = Object.freeze({ name: 'search', description: 'find', input_schema: inner });
    const first = of([shallow]);
    inner.note = 'b';
    expect(of([shallow])[0]!.prefix).not.toBe(first[0]!.prefix);
  });

  it('bills a payload end to end: the second turn reads the first one’s prefix', () => {
    const long = 'A long, stable system prompt. '.repeat(300);
    const turn = (n: number) => ({
      system: [{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }],
      messages: Array.from({ length: 2 * n + 1 }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: [
          {
            type: 'text',
            text: `message ${i}`,
            ...(i === 2 * n ? { cache_control: { type: 'ephemeral' } } : {}),
          },
        ],
      })),
    });
    const first = billRequest({ blocks: promptBlocks(turn(0), estimator), model: MODEL, at: 0, state: null });
    const second = billRequest({
      blocks: promptBlocks(turn(1), estimator),
      model: MODEL,
      at: MINUTE,
      state: first.state,
    });
    expect(second.cost.cache_read).toBe(first.cost.input_tokens);
    expect(second.cost.basis).toBe('warm');
  });
});

describe('a long warm conversation', () => {
  it('reads the previous request whole on every call, however many prefixes earlier reads renewed', () => {
    let state: CacheState | null = null;
    const reads: number[] = [];
    for (let turns = 0; turns < 30; turns += 1) {
      // Marked as contextd marks it: the previous turn and this turn, so each call writes two prefixes.
      const spec: [string, number, CacheTtl?][] = [['system', 2000, '5m']];
      for (let t = 0; t < turns; t += 1)
        spec.push([`user${t}`, 100], [`assistant${t}`, 200, t === turns - 1 ? '5m' : undefined]);
      spec.push([`user${turns}`, 100, '5m']);
      const billed = bill(prompt(spec), turns * MINUTE, state);
      reads.push(billed.cost.cache_read);
      state = billed.state;
    }
    // From the second call on, everything the previous call sent is read: 2,000 + 300 per turn before it.
    for (let turns = 1; turns < 30; turns += 1) expect(reads[turns]).toBe(2000 + 300 * (turns - 1) + 100);
  });
});

// A logged payload cut into the units the inspector counts, compares and searches: system blocks,
// tools, the lane summary, history messages and this turn, each block labelled by its source and
// carrying its tokens (GET …/context-log/{seq}/tokens, null when unknown).

const CONTEXT_BLOCK = /^<([a-z_]+)((?:\s+[a-z_]+="[^"]*")*)\s*>/;

/** The source label of a text block assembly wrapped (`<retrieved_context … trust="untrusted">`), or null. */
export function contextBlockLabel(text) {
  const match = CONTEXT_BLOCK.exec(text);
  if (!match) return null;
  const attributes = [...match[2].matchAll(/([a-z_]+)="([^"]*)"/g)]
    .filter(([, name]) => name !== 'trust')
    .map(([, name, value]) => `${name}=${value}`);
  return { source: match[1], detail: attributes.join(' ') };
}

/** Whether a payload is the OpenAI chat rendering (system as messages, no top-level system). */
export function isOpenAI(payload) {
  return !payload.system && payload.messages.some((m) => m.role === 'system' || m.role === 'tool');
}

/** The text a reader would search in a block. */
export function blockText(block) {
  if (typeof block === 'string') return block;
  switch (block?.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `${block.name} ${JSON.stringify(block.input)}`;
    case 'tool_result':
      return typeof block.content === 'string'
        ? block.content
        : (block.content ?? []).map(blockText).join('\n');
    case 'thinking':
      return block.thinking ?? '';
    default:
      return JSON.stringify(block);
  }
}

/** Blocks sent after this turn's breakpoint only: never stored, so never seen again in history. */
const PAYLOAD_ONLY = new Set(['retrieved_context', 'context_notes']);

/** The token categories of a payload, in payload order. */
export const CATEGORIES = ['system', 'tools', 'summary', 'history', 'retrieved', 'notes', 'this_turn'];

const blocksOf = (content) =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
const sum = (values) => values.reduce((a, b) => a + (b ?? 0), 0);

/**
 * The payload's units: { section, index, role, label, blocks: [{ source, category, tokens, text,
 * block }], tokens, key }. `key` identifies a message across payloads (cache markers and
 * payload-only blocks left out), for the diff with another turn.
 */
export function payloadUnits(payload, tokens) {
  const openai = isOpenAI(payload);
  const units = [];
  const systemBlocks = openai
    ? payload.messages.flatMap((m, i) => (m.role === 'system' ? [{ text: m.content, at: i }] : []))
    : (payload.system ?? []).map((b, i) => ({ text: b.text, at: i, block: b }));
  systemBlocks.forEach((b, i) => {
    const t = openai ? tokens?.messages[b.at]?.blocks[0] : tokens?.system[b.at];
    units.push({
      section: 'system',
      index: i,
      role: 'system',
      label: `system #${i}`,
      blocks: [{ source: 'system', category: 'system', tokens: t ?? null, text: b.text, block: b.block }],
      tokens: t ?? null,
      key: `system:${b.text}`,
    });
  });
  (payload.tools ?? []).forEach((tool, i) => {
    const name = tool.name ?? tool.function?.name ?? tool.type;
    const t = tokens?.tools[i] ?? null;
    units.push({
      section: 'tools',
      index: i,
      role: 'tool',
      label: name,
      blocks: [
        {
          source: 'tool',
          category: 'tools',
          tokens: t,
          text: `${name} ${tool.description ?? tool.function?.description ?? ''}`,
        },
      ],
      tokens: t,
      key: `tool:${JSON.stringify(tool, (k, v) => (k === 'cache_control' ? undefined : v))}`,
      tool,
    });
  });
  const messageIndexes = payload.messages
    .map((m, i) => i)
    .filter((i) => payload.messages[i].role !== 'system');
  const last = messageIndexes.at(-1);
  messageIndexes.forEach((at, position) => {
    const message = payload.messages[at];
    const measured = tokens?.messages[at] ?? null;
    const isThisTurn = at === last;
    const blocks = blocksOf(message.content).map((block, j) => {
      const label = block.type === 'text' ? contextBlockLabel(block.text) : null;
      const source = label ? label.source : isThisTurn ? 'user content' : message.role;
      const category = isThisTurn
        ? source === 'retrieved_context'
          ? 'retrieved'
          : source === 'context_notes'
            ? 'notes'
            : 'this_turn'
        : source === 'lane_summary'
          ? 'summary'
          : 'history';
      return {
        source,
        detail: label?.detail ?? '',
        category,
        tokens: measured?.blocks[j] ?? null,
        text: blockText(block),
        block,
      };
    });
    const section = isThisTurn ? 'this-turn' : blocks[0]?.source === 'lane_summary' ? 'summary' : 'history';
    const kept = blocksOf(message.content).filter((b) => {
      const label = b.type === 'text' ? contextBlockLabel(b.text) : null;
      return !(label && PAYLOAD_ONLY.has(label.source));
    });
    units.push({
      section,
      index: position,
      at,
      role: message.role,
      label: `#${position} ${message.role}`,
      blocks,
      message,
      overhead: measured?.overhead ?? 0,
      tokens: measured ? measured.overhead + sum(measured.blocks) : null,
      key: `${message.role}:${JSON.stringify(kept, (k, v) => (k === 'cache_control' ? undefined : v))}`,
    });
  });
  return units;
}

/** Tokens by category (CATEGORIES); a message's overhead counts with its first block's category. */
export function tokensByCategory(units) {
  const totals = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  for (const unit of units) {
    unit.blocks.forEach((b, j) => {
      totals[b.category] += (b.tokens ?? 0) + (j === 0 ? (unit.overhead ?? 0) : 0);
    });
  }
  return totals;
}

/**
 * What changed from the previous payload to this one, by unit: history messages, summary, system
 * blocks and tools are matched by content (cache markers and payload-only blocks aside); this
 * turn is always new, the previous turn's payload-only blocks are always gone.
 */
export function diffUnits(previous, current) {
  const count = (units) => {
    const m = new Map();
    for (const u of units) m.set(u.key, (m.get(u.key) ?? 0) + 1);
    return m;
  };
  const before = count(previous);
  const after = count(current);
  const added = [];
  const removed = [];
  const seen = new Map();
  for (const u of current) {
    const n = (seen.get(u.key) ?? 0) + 1;
    seen.set(u.key, n);
    if (n > (before.get(u.key) ?? 0)) added.push(u);
  }
  seen.clear();
  for (const u of previous) {
    const n = (seen.get(u.key) ?? 0) + 1;
    seen.set(u.key, n);
    if (n > (after.get(u.key) ?? 0)) removed.push(u);
  }
  return { added, removed, kept: current.length - added.length };
}

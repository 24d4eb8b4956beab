// A logged payload as the model saw it: system blocks, tools, the history, and this turn with each
// context block labelled by its source (the tag assembly wrapped it in). Cache breakpoints are
// shown where the payload carries cache_control.
import { formatTokens, h } from './dom.js';
import { contextBlockLabel, isOpenAI } from './units.js';

export { contextBlockLabel };

/** "123 tok" beside a block, when its tokens are known. */
const tokenBadge = (tokens) =>
  tokens === null || tokens === undefined
    ? null
    : h('span', { class: 'badge tokens', dataset: { tokens } }, `${formatTokens(tokens)} tok`);

const breakpointBadge = (item) =>
  item && typeof item === 'object' && item.cache_control
    ? h(
        'span',
        { class: 'badge cache', dataset: { breakpoint: 'true' } },
        `cache breakpoint (${item.cache_control.ttl ?? '5m'})`,
      )
    : null;

function blockBody(block) {
  switch (block.type) {
    case 'text':
      return h('pre', {}, block.text);
    case 'tool_use':
      return h('pre', {}, `${block.name}(${JSON.stringify(block.input, null, 2)})  id=${block.id}`);
    case 'tool_result':
      return h(
        'div',
        {},
        h('div', { class: 'meta' }, `for ${block.tool_use_id}${block.is_error ? ' (error)' : ''}`),
        typeof block.content === 'string'
          ? h('pre', {}, block.content)
          : (block.content ?? []).map((inner) => blockView(inner, 'result')),
      );
    case 'thinking':
      return h('details', {}, h('summary', {}, 'thinking'), h('pre', {}, block.thinking));
    case 'image':
    case 'document':
      return h(
        'div',
        { class: 'meta' },
        `${block.type}: ${block.source?.media_type ?? block.source?.type ?? ''} ${block.title ?? ''}`,
      );
    default:
      return h('pre', {}, JSON.stringify(block, null, 2));
  }
}

function blockView(block, fallbackLabel, tokens = null) {
  const label = block.type === 'text' ? contextBlockLabel(block.text) : null;
  const source = label ? label.source : fallbackLabel;
  return h(
    'div',
    { class: `block${label ? ' context-block' : ''}`, dataset: { source } },
    h(
      'div',
      { class: 'block-head' },
      h('span', { class: 'badge source' }, source),
      tokenBadge(tokens),
      label?.detail ? h('span', { class: 'meta' }, label.detail) : null,
      block.type !== 'text' ? h('span', { class: 'meta' }, block.type) : null,
      breakpointBadge(block),
    ),
    blockBody(block),
  );
}

function messageView(message, index, { isThisTurn, measured }) {
  const blocks =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  const total = measured ? measured.overhead + measured.blocks.reduce((a, b) => a + b, 0) : null;
  return h(
    'div',
    { class: `message role-${message.role}`, dataset: { index, role: message.role } },
    h(
      'div',
      { class: 'message-head' },
      `#${index} ${message.role}${isThisTurn ? ' — this turn' : ''}`,
      total === null
        ? null
        : h('span', { class: 'meta', dataset: { unitTokens: total } }, ` · ${formatTokens(total)} tokens`),
    ),
    (blocks ?? []).map((block, j) =>
      blockView(block, isThisTurn ? 'user content' : message.role, measured?.blocks[j] ?? null),
    ),
    message.tool_calls ? h('pre', {}, JSON.stringify(message.tool_calls, null, 2)) : null,
  );
}

function section(title, count, ...children) {
  return h(
    'details',
    { class: 'payload-section', open: true, dataset: { section: title.toLowerCase().replace(' ', '-') } },
    h('summary', {}, `${title} (${count})`),
    ...children,
  );
}

/**
 * The Anthropic payload (or its OpenAI rendering) of one logged call; `tokens` (GET
 * …/context-log/{seq}/tokens, or null) puts each block's tokens beside it.
 */
export function renderPayload(payload, tokens = null) {
  const openai = isOpenAI(payload);
  const systemAt = openai ? payload.messages.flatMap((m, i) => (m.role === 'system' ? [i] : [])) : [];
  const system = openai
    ? systemAt.map((i) => ({ type: 'text', text: payload.messages[i].content }))
    : (payload.system ?? []);
  const systemTokens = openai ? systemAt.map((i) => tokens?.messages[i]?.blocks[0]) : (tokens?.system ?? []);
  const messageAt = payload.messages.flatMap((m, i) => (openai && m.role === 'system' ? [] : [i]));
  const messages = messageAt.map((i) => payload.messages[i]);
  const measuredAt = (k) => tokens?.messages[messageAt[k]] ?? null;
  const tools = payload.tools ?? [];
  const last = messages.length - 1;
  return h(
    'div',
    { class: 'payload', 'data-testid': 'payload' },
    h(
      'div',
      { class: 'meta' },
      `model ${payload.model}, max_tokens ${payload.max_tokens}${openai ? ', OpenAI format' : ''}`,
    ),
    section(
      'System',
      system.length,
      system.map((block, i) =>
        h(
          'div',
          { class: 'block', dataset: { source: 'system', index: i } },
          h(
            'div',
            { class: 'block-head' },
            h('span', { class: 'badge source' }, `system #${i}`),
            tokenBadge(systemTokens[i]),
            breakpointBadge(block),
          ),
          h('pre', {}, block.text),
        ),
      ),
    ),
    section(
      'Tools',
      tools.length,
      h(
        'ul',
        { class: 'tools' },
        tools.map((tool, i) =>
          h(
            'li',
            {},
            h('code', {}, tool.name ?? tool.function?.name ?? tool.type),
            ' ',
            tokenBadge(tokens?.tools[i]),
            ' ',
            h('span', { class: 'meta' }, tool.description ?? tool.function?.description ?? tool.type ?? ''),
            breakpointBadge(tool),
          ),
        ),
      ),
    ),
    section(
      'History',
      Math.max(0, last),
      messages
        .slice(0, last)
        .map((m, i) => messageView(m, i, { isThisTurn: false, measured: measuredAt(i) })),
    ),
    section(
      'This turn',
      last >= 0 ? 1 : 0,
      last >= 0 ? messageView(messages[last], last, { isThisTurn: true, measured: measuredAt(last) }) : null,
    ),
  );
}

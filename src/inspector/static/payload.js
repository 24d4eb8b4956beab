// A logged payload as the model saw it: system blocks, tools, the history, and this turn with each
// context block labelled by its source (the tag assembly wrapped it in). Cache breakpoints are
// shown where the payload carries cache_control.
import { h } from './dom.js';

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

function blockView(block, fallbackLabel) {
  const label = block.type === 'text' ? contextBlockLabel(block.text) : null;
  const source = label ? label.source : fallbackLabel;
  return h(
    'div',
    { class: `block${label ? ' context-block' : ''}`, dataset: { source } },
    h(
      'div',
      { class: 'block-head' },
      h('span', { class: 'badge source' }, source),
      label?.detail ? h('span', { class: 'meta' }, label.detail) : null,
      block.type !== 'text' ? h('span', { class: 'meta' }, block.type) : null,
      breakpointBadge(block),
    ),
    blockBody(block),
  );
}

function messageView(message, index, { isThisTurn }) {
  const blocks =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return h(
    'div',
    { class: `message role-${message.role}`, dataset: { index, role: message.role } },
    h('div', { class: 'message-head' }, `#${index} ${message.role}${isThisTurn ? ' — this turn' : ''}`),
    (blocks ?? []).map((block) => blockView(block, isThisTurn ? 'user content' : message.role)),
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

/** The Anthropic payload (or its OpenAI rendering) of one logged call. */
export function renderPayload(payload) {
  const openai = !payload.system && payload.messages.some((m) => m.role === 'system' || m.role === 'tool');
  const system = openai
    ? payload.messages.filter((m) => m.role === 'system').map((m) => ({ type: 'text', text: m.content }))
    : (payload.system ?? []);
  const messages = openai ? payload.messages.filter((m) => m.role !== 'system') : payload.messages;
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
        tools.map((tool) =>
          h(
            'li',
            {},
            h('code', {}, tool.name ?? tool.function?.name ?? tool.type),
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
      messages.slice(0, last).map((m, i) => messageView(m, i, { isThisTurn: false })),
    ),
    section(
      'This turn',
      last >= 0 ? 1 : 0,
      last >= 0 ? messageView(messages[last], last, { isThisTurn: true }) : null,
    ),
  );
}

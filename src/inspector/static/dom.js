// Building DOM nodes without markup: every piece of data goes in as a text node, so nothing the API
// returns (transcript text, summaries, tool descriptions) can become HTML or script.

/**
 * h('div', { class: 'x', dataset: { seq: 3 }, onclick }, 'text', child) → an element.
 * Attributes are set one by one; children are nodes or strings (strings become text nodes).
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') for (const [k, v] of Object.entries(value)) node.dataset[k] = String(v);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
}

/** Replaces a node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Integers with thousands separators, the same in every locale (the test compares them). */
export function formatTokens(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatPercent(share) {
  return `${(share * 100).toFixed(1)}%`;
}

/** A two-column table of label → value rows. */
export function keyValueTable(rows, props = {}) {
  return h(
    'table',
    { class: 'kv', ...props },
    h(
      'tbody',
      {},
      rows.map(([label, value, rowProps]) => h('tr', rowProps ?? {}, h('th', {}, label), h('td', {}, value))),
    ),
  );
}

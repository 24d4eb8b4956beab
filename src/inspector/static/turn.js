// One logged turn: "was X in this payload, and if not, why" (find), tokens by block, its budget
// drawn, its expected cost, what was left out, truncated or deferred and why, the diff with the
// previous logged turn, cache breakpoints, the context by source with retrieved items and their
// scores, deferred tools, notes, the lane with its summary (expandable to the entries it covers),
// and the payload as the model saw it, each block with its tokens.
import { api, sessionPath } from './api.js';
import { renderBudget } from './budget.js';
import { fill, formatPercent, formatTokens, h, keyValueTable } from './dom.js';
import { renderPayload } from './payload.js';
import { entryText, matcher, sessionTranscript, snippet } from './search.js';
import { CATEGORIES, diffUnits, payloadUnits, tokensByCategory } from './units.js';

/** What each left-out reason means (the API's LeftOut schema says the same). */
export const LEFT_OUT_REASONS = {
  below_relevance:
    'scored under the relevance floor (without max_context_tokens: at least half the best hit and 0.1)',
  over_limit: 'ranked past the number of candidates retrieval keeps for its token cap',
  lane_summary: "a lane summary: this lane's own is the payload's summary block (or lane summaries are off)",
  other_lane: 'from another lane and scored under the other-lane minimum (0.8)',
  already_shown: 'its message is the anchor, the quoted reply, or in the snapshot or thread attached',
  in_view: 'the history this payload sends already holds it',
  did_not_fit:
    'did not fit the room left for retrieved material (max_context_tokens, the default cap, or the window)',
};

const panel = (title, testid, ...children) =>
  h('section', { class: 'panel', 'data-testid': testid }, h('h3', {}, title), ...children);

const empty = (text) => h('p', { class: 'empty' }, text);

function cachePanel(entry) {
  const cache = entry.cache;
  if (!cache)
    return panel('Cache', 'cache', empty('not logged for this call (logged before cache reports were kept)'));
  const used = entry.budget.used;
  return panel(
    'Cache',
    'cache',
    keyValueTable([
      [
        'stable prefix',
        h('span', { dataset: { field: 'stable_prefix_tokens' } }, formatTokens(cache.stable_prefix_tokens)),
      ],
      [
        'share of used',
        h(
          'span',
          { dataset: { field: 'stable_prefix_share' } },
          formatPercent(used > 0 ? cache.stable_prefix_tokens / used : 0),
        ),
      ],
    ]),
    cache.breakpoints.length === 0
      ? empty('no cache breakpoints')
      : h(
          'ol',
          { class: 'breakpoints' },
          cache.breakpoints.map((b) =>
            h(
              'li',
              { dataset: { position: b.position } },
              `${b.position} #${b.index}${b.block !== undefined ? ` block ${b.block}` : ''}`,
            ),
          ),
        ),
  );
}

function contextPanel(entry) {
  const context = entry.context;
  if (!context) return panel('Context', 'context', empty('not logged for this call'));
  const retrieved = context.retrieved;
  return panel(
    'Context by source',
    'context',
    keyValueTable([
      ['channel', context.channel ? `${context.channel.platform} ${context.channel.channel_id}` : '—'],
      ['snapshot', context.snapshot],
      ['thread', context.thread],
      ['quoted reply', context.quoted_reply],
      [
        'pending slot',
        context.pending_slot ? `${context.pending_slot.name} = ${context.pending_slot.value}` : '—',
      ],
      [
        'lane view',
        `${context.lane.lane_key} v${context.lane.version}, summary v${context.lane.summary_version}${context.lane.summary_included ? ' (sent)' : ''}, first kept #${context.lane.first_kept_seq}, first sent #${context.lane.first_sent_seq ?? '—'}, ${context.lane.dropped_entries} dropped`,
      ],
    ]),
    h('h4', {}, `Retrieved items (${retrieved.length})`),
    retrieved.length === 0
      ? empty('nothing retrieved for this turn')
      : h(
          'table',
          { class: 'retrieved' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', {}, 'kind'), h('th', {}, 'id'), h('th', {}, 'score'), h('th', {}, 'tokens')),
          ),
          h(
            'tbody',
            {},
            retrieved.map((item) =>
              h(
                'tr',
                { dataset: { retrieved: item.id } },
                h('td', {}, item.kind),
                h('td', {}, h('code', {}, item.id)),
                h('td', { class: 'num', dataset: { field: 'score' } }, item.score.toFixed(4)),
                h('td', { class: 'num' }, formatTokens(item.tokens)),
              ),
            ),
          ),
        ),
  );
}

function deferredPanel(entry) {
  const tools = entry.deferred_tool_details ?? [];
  return panel(
    'Deferred tools',
    'deferred-tools',
    tools.length === 0
      ? empty('no tools deferred')
      : h(
          'ul',
          {},
          tools.map((t) =>
            h(
              'li',
              { dataset: { tool: t.name } },
              h('code', {}, t.name),
              ` ${t.source}, ${formatTokens(t.tokens)} tokens — ${t.description}`,
            ),
          ),
        ),
  );
}

function notesPanel(entry) {
  const notes = entry.notes ?? [];
  const attachments = entry.attachments ?? [];
  return panel(
    'Notes and attachments',
    'notes',
    notes.length === 0
      ? empty('no notes')
      : h(
          'ul',
          {},
          notes.map((n) => h('li', {}, n)),
        ),
    attachments.length === 0
      ? empty('no attachments')
      : h(
          'ul',
          {},
          attachments.map((a) =>
            h(
              'li',
              {},
              `${a.display_name} (${a.media_type}) ${a.disposition}, ${formatTokens(a.tokens)} tokens`,
            ),
          ),
        ),
  );
}

function entryView(e) {
  const text = Array.isArray(e.content)
    ? e.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
    : typeof e.content === 'string'
      ? e.content
      : JSON.stringify(e.content);
  return h(
    'li',
    { dataset: { seq: e.seq } },
    h('span', { class: 'meta' }, `#${e.seq} ${e.role ?? e.kind}`),
    h('pre', {}, text),
  );
}

/** The lane's summary, and on request the original entries it covers (GET …/lanes/{lane}?expand=true). */
function lanePanel(sessionId, laneKey) {
  const body = h('div', {}, empty('loading…'));
  const lanePath = (query) => sessionPath(sessionId, `/lanes/${encodeURIComponent(laneKey)}${query}`);
  api(lanePath(''))
    .then((lane) => {
      const covered = h('ul', { class: 'covered' });
      let after = null;
      const more = h('button', { type: 'button' }, 'Show the entries the summary covers');
      more.addEventListener('click', async () => {
        more.disabled = true;
        try {
          const page = await api(lanePath(`?expand=true${after === null ? '' : `&after=${after}`}`));
          covered.append(...page.expanded.entries.map(entryView));
          after = page.expanded.next_cursor;
          more.textContent = 'More';
          more.disabled = after === null;
          if (after === null && covered.childElementCount === 0)
            covered.append(empty('the summary covers no entries'));
        } catch (error) {
          covered.append(empty(error.message));
        }
      });
      fill(
        body,
        keyValueTable([
          ['summary version', `${lane.summary_version}${lane.summary_stale ? ' (stale)' : ''}`],
          ['summarized through', `#${lane.summarized_through_seq}`],
          [
            'kept',
            `${lane.kept_entries} entries, ${formatTokens(lane.kept_tokens)} tokens from #${lane.first_kept_seq}`,
          ],
          ['compactions', String(lane.compactions)],
        ]),
        lane.summary
          ? h('pre', { class: 'summary' }, lane.summary)
          : empty('no summary yet (the lane was never compacted)'),
        lane.summary ? more : null,
        covered,
      );
    })
    .catch((error) => fill(body, empty(error.message)));
  const section = panel(`Lane ${laneKey}`, 'lane', body);
  section.dataset.lane = laneKey;
  return section;
}

/** The payload's tokens by category (system, tools, summary, history, retrieved, notes, this turn). */
function tokensPanel(units, tokens) {
  if (!tokens) return panel('Tokens by block', 'tokens', empty('token counts could not be read'));
  const totals = tokensByCategory(units);
  const count = (section) => units.filter((u) => u.section === section).length;
  const counts = {
    system: count('system'),
    tools: count('tools'),
    summary: count('summary'),
    history: count('history'),
    retrieved: units.flatMap((u) => u.blocks).filter((b) => b.category === 'retrieved').length,
    notes: units.flatMap((u) => u.blocks).filter((b) => b.category === 'notes').length,
    this_turn: count('this-turn'),
  };
  const label = {
    system: 'system blocks',
    tools: 'tools',
    summary: 'lane summary',
    history: 'history units (messages)',
    retrieved: 'retrieved block',
    notes: 'notes block',
    this_turn: 'this turn (the message, channel context)',
  };
  return panel(
    'Tokens by block',
    'tokens',
    h(
      'table',
      { class: 'tokens' },
      h('thead', {}, h('tr', {}, h('th', {}, 'block'), h('th', {}, 'count'), h('th', {}, 'tokens'))),
      h(
        'tbody',
        {},
        CATEGORIES.map((c) =>
          h(
            'tr',
            { dataset: { category: c } },
            h('td', {}, label[c]),
            h('td', { class: 'num' }, String(counts[c])),
            h('td', { class: 'num', dataset: { field: `tokens.${c}` } }, formatTokens(totals[c])),
          ),
        ),
        h(
          'tr',
          { class: 'total' },
          h('td', {}, 'total'),
          h('td', {}, ''),
          h('td', { class: 'num', dataset: { field: 'tokens.total' } }, formatTokens(tokens.total)),
        ),
      ),
    ),
    h(
      'p',
      { class: 'meta' },
      "contextd's estimates per block; each block's own count is beside it in the payload below.",
    ),
  );
}

/** The payload's expected cost (budget.cost) and the usage the bot reported for the reply, if any. */
function costPanel(entry, reported) {
  const cost = entry.budget.cost;
  if (!cost)
    return panel('Cost', 'cost', empty('no cost report for this call (logged before costs were kept)'));
  const field = (name, value) => h('span', { dataset: { field: `cost.${name}` } }, value);
  return panel(
    'Cost (expected, base-input tokens)',
    'cost',
    keyValueTable([
      ['basis', field('basis', cost.basis)],
      ['cache read (0.1×)', field('cache_read', formatTokens(cost.cache_read))],
      ['cache write (1.25× 5 min, 2× 1 h)', field('cache_write', `${formatTokens(cost.cache_write)}`)],
      ['uncached (1×)', field('uncached', formatTokens(cost.uncached))],
      ['input tokens', field('input_tokens', formatTokens(cost.input_tokens))],
      ['billed input', field('billed_input', formatTokens(cost.billed_input))],
      [
        'reported by the bot',
        reported
          ? field(
              'reported',
              `input ${formatTokens(reported.input_tokens)}, cache read ${formatTokens(reported.cache_read_input_tokens ?? 0)}, cache write ${formatTokens(reported.cache_creation_input_tokens ?? 0)} (turn #${reported.seq})`,
            )
          : 'no usage reported for the reply',
      ],
    ]),
  );
}

/** What this payload left out, truncated or deferred, and why, in one list. */
function leftOutPanel(entry) {
  const context = entry.context;
  const items = [];
  const item = (kind, text, props = {}) =>
    items.push(h('li', { ...props, dataset: { kind, ...(props.dataset ?? {}) } }, text));
  if (context) {
    const lane = context.lane;
    if (lane.dropped_entries > 0)
      item(
        'history',
        `${lane.dropped_entries} history entr${lane.dropped_entries === 1 ? 'y' : 'ies'} of lane ${lane.lane_key} left out to fit the budget (sent from #${lane.first_sent_seq ?? '—'}; kept from #${lane.first_kept_seq}).`,
      );
    if (lane.first_kept_seq > 0)
      item(
        'summarized',
        `Entries before #${lane.first_kept_seq} are summarized${lane.summary_included ? ' (the summary was sent)' : ' (the summary was not sent)'}.`,
      );
    for (const part of ['snapshot', 'thread', 'quoted_reply'])
      if (context[part] === 'omitted_budget')
        item(part, `The ${part.replace('_', ' ')} was left out for room.`);
  }
  const deferred = entry.deferred_tool_details ?? [];
  if (deferred.length > 0)
    item(
      'deferred',
      `${deferred.length} tool${deferred.length === 1 ? '' : 's'} deferred (tools took too much of the window): ${deferred.map((t) => t.name).join(', ')}.`,
    );
  const unused = entry.budget.unused;
  if (unused)
    item('unused', `Room left after retrieval: ${formatTokens(unused.tokens)} tokens (${unused.reason}).`);
  const leftOut = entry.left_out;
  const counts = leftOut ? Object.entries(leftOut.counts) : [];
  return panel(
    'Left out, truncated, deferred — and why',
    'left-out',
    items.length > 0
      ? h('ul', { class: 'reasons' }, items)
      : empty('nothing left out of the history, the channel context or the tools'),
    h('h4', {}, 'Retrieval candidates not sent'),
    !leftOut
      ? empty('not logged for this call (logged before left-out candidates were kept)')
      : counts.length === 0
        ? empty('none: every candidate retrieval found was sent')
        : h(
            'div',
            {},
            h(
              'ul',
              { class: 'counts' },
              counts.map(([reason, n]) =>
                h(
                  'li',
                  { dataset: { reason } },
                  h('code', {}, reason),
                  ` ${n} — ${LEFT_OUT_REASONS[reason] ?? ''}`,
                ),
              ),
            ),
            h(
              'div',
              { class: 'scroll' },
              h(
                'table',
                { class: 'left-out' },
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    h('th', {}, 'kind'),
                    h('th', {}, 'score'),
                    h('th', {}, 'reason'),
                    h('th', {}, 'tokens'),
                    h('th', {}, 'text'),
                  ),
                ),
                h(
                  'tbody',
                  {},
                  leftOut.items.map((x) =>
                    h(
                      'tr',
                      { dataset: { leftOut: x.id, reason: x.reason } },
                      h('td', {}, x.kind),
                      h('td', { class: 'num' }, x.score.toFixed(4)),
                      h('td', {}, h('code', {}, x.reason)),
                      h('td', { class: 'num' }, x.tokens === undefined ? '—' : formatTokens(x.tokens)),
                      h(
                        'td',
                        {},
                        h('div', { class: 'excerpt' }, x.excerpt),
                        h('div', { class: 'meta' }, x.id),
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
  );
}

const unitLine = (u, kind) =>
  h(
    'li',
    { dataset: { diff: kind, section: u.section } },
    `${kind === 'added' ? '+' : '−'} ${u.section} ${u.label}${u.tokens === null ? '' : ` (${formatTokens(u.tokens)} tokens)`}: `,
    h(
      'span',
      { class: 'meta' },
      u.blocks
        .map((b) => b.text)
        .join(' ')
        .slice(0, 140),
    ),
  );

/** The diff with the previous logged turn of the session, by unit and by category. */
async function diffPanel(body, sessionId, previous, current) {
  if (!previous) return fill(body, empty('the first logged call of this session: nothing to compare'));
  if (!previous.replayable)
    return fill(body, empty(`turn #${previous.turn_seq} was logged before payloads were stored`));
  const [payload, tokens] = await Promise.all([
    api(sessionPath(sessionId, `/context-log/${previous.turn_seq}/payload`)),
    api(sessionPath(sessionId, `/context-log/${previous.turn_seq}/tokens`)).catch(() => null),
  ]);
  const before = payloadUnits(payload, tokens);
  const { added, removed, kept } = diffUnits(before, current.units);
  const was = tokensByCategory(before);
  const now = tokensByCategory(current.units);
  const sign = (n) => (n > 0 ? `+${formatTokens(n)}` : n < 0 ? `−${formatTokens(-n)}` : '0');
  fill(
    body,
    h(
      'p',
      {},
      `Against turn #${previous.turn_seq}: ${added.length} unit${added.length === 1 ? '' : 's'} added, ${removed.length} removed, ${kept} the same.`,
    ),
    h(
      'table',
      { class: 'tokens' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'block'),
          h('th', {}, `#${previous.turn_seq}`),
          h('th', {}, 'now'),
          h('th', {}, 'change'),
        ),
      ),
      h(
        'tbody',
        {},
        CATEGORIES.map((c) =>
          h(
            'tr',
            { dataset: { category: c } },
            h('td', {}, c),
            h('td', { class: 'num' }, formatTokens(was[c])),
            h('td', { class: 'num' }, formatTokens(now[c])),
            h('td', { class: 'num', dataset: { field: `diff.${c}` } }, sign(now[c] - was[c])),
          ),
        ),
      ),
    ),
    removed.length + added.length === 0
      ? empty('the same units')
      : h(
          'ul',
          { class: 'diff' },
          removed.map((u) => unitLine(u, 'removed')),
          added.map((u) => unitLine(u, 'added')),
        ),
  );
}

/**
 * "Was X in this payload, and if not, why": the payload's blocks holding it, the retrieval
 * candidates left out that hold it (with the reason), and the session's turns that said it.
 */
async function findIn(result, query, sessionId, entry, units) {
  const match = matcher(query);
  if (!match) return fill(result, empty('type something to look for'));
  const inPayload = units.flatMap((u) =>
    u.blocks.filter((b) => match(b.text)).map((b) => ({ unit: u, block: b })),
  );
  const leftOut = (entry.left_out?.items ?? []).filter((x) => match(x.excerpt));
  const verdict = inPayload.length > 0 ? 'in-payload' : leftOut.length > 0 ? 'left-out' : 'not-in-payload';
  const lines = [];
  if (inPayload.length > 0) {
    lines.push(
      h(
        'p',
        { class: 'verdict yes' },
        `Yes: in this payload, in ${inPayload.length} block${inPayload.length === 1 ? '' : 's'}.`,
      ),
      h(
        'ul',
        {},
        inPayload
          .slice(0, 20)
          .map(({ unit, block }) =>
            h(
              'li',
              { dataset: { found: unit.section, source: block.source } },
              `${unit.section} ${unit.label} · ${block.source}${block.tokens === null ? '' : ` · ${formatTokens(block.tokens)} tokens`}: `,
              h('span', { class: 'meta' }, snippet(block.text, query)),
            ),
          ),
      ),
    );
  } else {
    lines.push(h('p', { class: 'verdict no' }, 'No: not in this payload.'));
  }
  if (leftOut.length > 0) {
    lines.push(
      h('p', {}, 'Retrieval found it and left it out:'),
      h(
        'ul',
        {},
        leftOut.map((x) =>
          h(
            'li',
            { dataset: { leftOut: x.id, reason: x.reason } },
            `${x.kind} ${x.id} (score ${x.score.toFixed(4)}${x.tokens === undefined ? '' : `, ${formatTokens(x.tokens)} tokens`}) — `,
            h('code', {}, x.reason),
            `: ${LEFT_OUT_REASONS[x.reason] ?? ''}. `,
            h('span', { class: 'meta' }, snippet(x.excerpt, query)),
          ),
        ),
      ),
    );
  } else if (inPayload.length === 0 && entry.left_out) {
    const n = Object.values(entry.left_out.counts).reduce((a, b) => a + b, 0);
    lines.push(
      h(
        'p',
        { class: 'meta' },
        `None of the ${n} retrieval candidates left out holds it${n > entry.left_out.items.length ? ` (the best ${entry.left_out.items.length} are kept)` : ''}.`,
      ),
    );
  }
  const result2 = h('div', {}, empty('searching the session’s turns…'));
  lines.push(result2);
  result.dataset.verdict = verdict;
  fill(result, ...lines);
  try {
    const { entries, complete } = await sessionTranscript(sessionId);
    const said = entries.filter((e) => match(entryText(e)));
    const firstSent = entry.context?.lane.first_sent_seq ?? null;
    fill(
      result2,
      said.length === 0
        ? empty(`No turn of the session says it${complete ? '' : ' (in the turns read)'}.`)
        : h(
            'div',
            {},
            h('p', {}, `Said in ${said.length} turn${said.length === 1 ? '' : 's'} of the session:`),
            h(
              'ul',
              { class: 'said' },
              said.slice(0, 20).map((e) => {
                const where =
                  e.seq >= entry.turn_seq
                    ? 'after this call'
                    : e.lane_key !== entry.lane_key
                      ? `another lane (${e.lane_key})`
                      : firstSent !== null && e.seq < firstSent
                        ? `before the first entry sent (#${firstSent}): dropped or summarized`
                        : 'in the lane history this call could send';
                return h(
                  'li',
                  { dataset: { seq: e.seq } },
                  `#${e.seq} ${e.role ?? e.kind} — ${where}: `,
                  h('span', { class: 'meta' }, snippet(entryText(e), query)),
                );
              }),
            ),
          ),
    );
  } catch (error) {
    fill(result2, empty(error.message));
  }
}

function findPanel(sessionId, entry, state) {
  const input = h('input', {
    type: 'search',
    id: 'find-text',
    placeholder: 'a word, a name, an id…',
    spellcheck: 'false',
  });
  const result = h('div', { class: 'find-result', 'data-testid': 'find-result' });
  const form = h(
    'form',
    { class: 'inline-form', id: 'find-form' },
    h('label', { for: 'find-text' }, 'Was it in this payload?'),
    input,
    h('button', { type: 'submit' }, 'Find'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fill(result, empty('looking…'));
    state.ready
      .then((units) => findIn(result, input.value, sessionId, entry, units))
      .catch((error) => fill(result, empty(error.message)));
  });
  return panel('Find', 'find', form, result);
}

/** The usage the bot reported on the reply to this call: the next assistant turn of the lane. */
async function reportedUsage(sessionId, entry) {
  const { entries } = await sessionTranscript(sessionId);
  const reply = entries.find(
    (e) => e.seq > entry.turn_seq && e.role === 'assistant' && e.lane_key === entry.lane_key,
  );
  return reply?.usage ? { ...reply.usage, seq: reply.seq } : null;
}

/**
 * Fills `target` with the turn `entry` of the session (its log entry and its replayed payload);
 * `laneKeys` are the session's logged lanes, the turn's own shown first; `previous` is the
 * session's logged call before it (for the diff), or null. `query` pre-fills the find box.
 */
export async function showTurn(
  target,
  sessionId,
  entry,
  thresholds,
  laneKeys = [entry.lane_key],
  { previous = null, query = '' } = {},
) {
  const payloadBox = h('div', {}, empty('loading the payload…'));
  const tokensBox = h('div', {}, empty('loading token counts…'));
  const costBox = h('div', {}, costPanel(entry, null));
  const diffBody = h('div', {}, empty('loading the previous turn…'));
  let resolveUnits;
  let rejectUnits;
  const state = {
    ready: new Promise((resolve, reject) => ((resolveUnits = resolve), (rejectUnits = reject))),
  };
  state.ready.catch(() => {});
  const find = findPanel(sessionId, entry, state);
  delete target.dataset.dryRun;
  fill(
    target,
    h(
      'h2',
      {},
      `Turn #${entry.turn_seq}`,
      h(
        'span',
        { class: 'meta' },
        ` ${entry.created_at} · ${entry.model ?? ''} · sha256 ${entry.payload_sha256.slice(0, 12)}…`,
      ),
    ),
    find,
    tokensBox,
    panel('Budget', 'budget-panel', renderBudget(entry.budget, thresholds)),
    costBox,
    leftOutPanel(entry),
    panel('Diff with the previous turn', 'diff', diffBody),
    cachePanel(entry),
    contextPanel(entry),
    deferredPanel(entry),
    notesPanel(entry),
    [entry.lane_key, ...laneKeys.filter((k) => k !== entry.lane_key)].map((k) => lanePanel(sessionId, k)),
    panel('Payload as the model saw it', 'payload-panel', payloadBox),
  );
  reportedUsage(sessionId, entry)
    .then((reported) => reported && fill(costBox, costPanel(entry, reported)))
    .catch(() => {});
  if (!entry.replayable) {
    fill(payloadBox, empty('this call was logged before payloads were stored'));
    fill(
      tokensBox,
      panel('Tokens by block', 'tokens', empty('this call was logged before payloads were stored')),
    );
    fill(diffBody, empty('this call was logged before payloads were stored'));
    rejectUnits(new Error('this call was logged before payloads were stored'));
    return;
  }
  try {
    const [payload, tokens] = await Promise.all([
      api(sessionPath(sessionId, `/context-log/${entry.turn_seq}/payload`)),
      api(sessionPath(sessionId, `/context-log/${entry.turn_seq}/tokens`)).catch(() => null),
    ]);
    const units = payloadUnits(payload, tokens);
    resolveUnits(units);
    fill(tokensBox, tokensPanel(units, tokens));
    fill(payloadBox, renderPayload(payload, tokens));
    diffPanel(diffBody, sessionId, previous, { units }).catch((error) =>
      fill(diffBody, empty(error.message)),
    );
    if (query) {
      find.querySelector('input').value = query;
      find.querySelector('form').requestSubmit();
    }
  } catch (error) {
    rejectUnits(error);
    fill(payloadBox, empty(error.message));
    fill(tokensBox, empty(error.message));
    fill(diffBody, empty(error.message));
  }
}

/** A dry run's reply shown as a turn: what a context call with this question would get now. */
export function showDryRun(target, reply, thresholds, question) {
  const entry = {
    budget: reply.budget,
    context: reply.context,
    cache: reply.cache,
    notes: reply.notes,
    attachments: reply.attachments,
    deferred_tool_details: reply.deferred_tools,
    left_out: reply.left_out ?? null,
  };
  fill(
    target,
    h(
      'h2',
      {},
      'Dry run',
      h('span', { class: 'meta' }, ` nothing was stored · sha256 ${reply.payload_sha256.slice(0, 12)}…`),
    ),
    h('p', { class: 'meta', 'data-testid': 'dry-run-question' }, `Question: ${question}`),
    panel('Budget', 'budget-panel', renderBudget(reply.budget, thresholds)),
    costPanel(entry, null),
    contextPanel(entry),
    leftOutPanel(entry),
    notesPanel(entry),
    panel('Payload a context call would get', 'payload-panel', renderPayload(reply.payload, null)),
  );
  target.dataset.dryRun = 'true';
}

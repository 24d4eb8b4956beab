// One logged turn: its budget drawn, cache breakpoints and the stable-prefix share, the context by
// source with retrieved items and their scores, deferred tools, notes, the lane with its summary
// (expandable to the entries it covers), and the payload as the model saw it.
import { api, sessionPath } from './api.js';
import { renderBudget } from './budget.js';
import { fill, formatPercent, formatTokens, h, keyValueTable } from './dom.js';
import { renderPayload } from './payload.js';

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

/**
 * Fills `target` with the turn `entry` of the session (its log entry and its replayed payload);
 * `laneKeys` are the session's logged lanes, the turn's own shown first.
 */
export async function showTurn(target, sessionId, entry, thresholds, laneKeys = [entry.lane_key]) {
  const payloadBox = h('div', {}, empty('loading the payload…'));
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
    panel('Budget', 'budget-panel', renderBudget(entry.budget, thresholds)),
    cachePanel(entry),
    contextPanel(entry),
    deferredPanel(entry),
    notesPanel(entry),
    [entry.lane_key, ...laneKeys.filter((k) => k !== entry.lane_key)].map((k) => lanePanel(sessionId, k)),
    panel('Payload as the model saw it', 'payload-panel', payloadBox),
  );
  if (!entry.replayable) {
    fill(payloadBox, empty('this call was logged before payloads were stored'));
    return;
  }
  try {
    fill(
      payloadBox,
      renderPayload(await api(sessionPath(sessionId, `/context-log/${entry.turn_seq}/payload`))),
    );
  } catch (error) {
    fill(payloadBox, empty(error.message));
  }
}

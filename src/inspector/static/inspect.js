// The inspector page: paste a key, pick a session (its cost totals, a search over its turns, a
// dry-run box), pick a logged turn, see it (turn.js).
import { api, apiPost, forgetKey, sessionPath, storedKey, storeKey } from './api.js';
import { fill, formatPercent, formatTokens, h, keyValueTable } from './dom.js';
import { entryText, forgetTranscripts, matcher, sessionTranscript, snippet } from './search.js';
import { showDryRun, showTurn } from './turn.js';

const $ = (id) => document.getElementById(id);
const status = (text, isError = false) => {
  fill($('status'), text);
  $('status').className = isError ? 'error' : '';
};

const MAX_LANES = 20;

/** The instance's budget thresholds (the bar's marks), read once at start. */
let thresholds;

/** The open session and its logged calls (oldest first), with their buttons by seq. */
let current = null;

/** The session's expected cost totals (every logged call's budget.cost summed) and reported usage. */
function sessionCost(session) {
  const totals = session.cost_totals;
  const field = (name, value) => h('span', { dataset: { field: `totals.${name}` } }, value);
  const reported = Object.entries(session.calibration ?? {});
  return keyValueTable([
    ['calls priced', field('calls', formatTokens(totals?.calls ?? 0))],
    ['cache read', field('cache_read', formatTokens(totals?.cache_read ?? 0))],
    ['cache write', field('cache_write', formatTokens(totals?.cache_write ?? 0))],
    ['uncached', field('uncached', formatTokens(totals?.uncached ?? 0))],
    ['billed input', field('billed_input', formatTokens(totals?.billed_input ?? 0))],
    [
      'reported by the bot',
      reported.length === 0
        ? 'no usage reported'
        : reported
            .map(
              ([model, c]) =>
                `${model}: ${c.calls} calls, cache-read share ${c.cache_read_share === null ? '—' : formatPercent(c.cache_read_share)}`,
            )
            .join('; '),
    ],
  ]);
}

function openTurn(entry, query = '') {
  if (!current) return;
  const button = current.buttons.get(entry.turn_seq);
  if (button) select($('turns'), button);
  remember(current.session.id, entry.turn_seq);
  const at = current.entries.indexOf(entry);
  void showTurn($('turn'), current.session.id, entry, thresholds, current.laneKeys, {
    previous: at > 0 ? current.entries[at - 1] : null,
    query,
  }).catch((e) => status(e.message, true));
}

async function searchTurns(query) {
  const results = $('search-results');
  const match = matcher(query);
  if (!current || !match) return fill(results, h('p', { class: 'empty' }, 'type something to look for'));
  fill(results, h('p', { class: 'empty' }, 'searching…'));
  const { entries, complete } = await sessionTranscript(current.session.id);
  const found = entries.filter((e) => match(entryText(e)));
  fill(
    results,
    h(
      'p',
      { class: 'meta' },
      `${found.length} turn${found.length === 1 ? '' : 's'} of ${entries.length}${complete ? '' : ' read'} say it${found.length > 50 ? ' (the first 50 shown)' : ''}`,
    ),
    found.slice(0, 50).map((e) => {
      // The context call that sent this turn or the first one after it.
      const call = current.entries.find((c) => c.turn_seq >= e.seq) ?? null;
      const button = h(
        'button',
        { type: 'button', class: 'item', dataset: { hit: e.seq }, disabled: call === null },
        h('strong', {}, `#${e.seq} ${e.role ?? e.kind}`),
        h(
          'span',
          { class: 'meta' },
          ` ${e.lane_key}${call ? ` → call #${call.turn_seq}` : ' · no call after it'}`,
        ),
        h('div', { class: 'snippet' }, snippet(entryText(e), query)),
      );
      if (call) button.addEventListener('click', () => openTurn(call, query));
      return button;
    }),
  );
}

async function dryRun(question, cap) {
  if (!current) return;
  const body = {
    message: { content: question },
    dry_run: true,
    ...(cap ? { budget: { max_context_tokens: cap } } : {}),
  };
  fill($('turn'), h('p', { class: 'empty' }, 'asking…'));
  for (const b of $('turns').querySelectorAll('button.item')) b.classList.remove('selected');
  const reply = await apiPost(sessionPath(current.session.id, '/context'), body);
  showDryRun($('turn'), reply, thresholds, question);
}

function select(list, button) {
  for (const b of list.querySelectorAll('button.item')) b.classList.toggle('selected', b === button);
}

/** The selection lives in the URL fragment (#session=…&turn=…), never the key: a reload reopens it. */
function wanted() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { sessionId: params.get('session'), seq: Number(params.get('turn')) || null };
}

function remember(sessionId, seq = null) {
  const params = new URLSearchParams({ session: sessionId, ...(seq ? { turn: String(seq) } : {}) });
  history.replaceState(null, '', `#${params}`);
}

async function loadTurns(session, wantedSeq = null) {
  const list = $('turns');
  fill(list, h('p', { class: 'empty' }, 'loading…'));
  fill($('turn'));
  fill($('search-results'));
  forgetTranscripts();
  current = null;
  $('session-tools').hidden = false;
  fill($('session-cost'), sessionCost(session));
  const entries = [];
  let after = 0;
  do {
    const page = await api(sessionPath(session.id, `/context-log?limit=500&after_seq=${after}`));
    entries.push(...page.entries);
    after = page.next_cursor;
  } while (after !== null);
  fill(list);
  // The session's lanes as its log names them (at most MAX_LANES panels: a channel has many threads).
  const laneKeys = [...new Set(entries.map((e) => e.lane_key))].slice(0, MAX_LANES);
  current = { session, entries, laneKeys, buttons: new Map() };
  if (entries.length === 0) {
    list.append(h('p', { class: 'empty' }, 'no context calls logged in this session yet'));
    return;
  }
  let wantedEntry = null;
  for (const entry of [...entries].reverse()) {
    const cost = entry.budget.cost;
    const button = h(
      'button',
      { type: 'button', class: `item state-${entry.budget.state}`, dataset: { seq: entry.turn_seq } },
      h('strong', {}, `#${entry.turn_seq}`),
      ` ${entry.lane_key} · ${formatPercent(entry.budget.percentage)} · ${entry.budget.state}`,
      cost
        ? h(
            'span',
            { class: 'meta', dataset: { field: 'billed' } },
            ` · ${formatTokens(cost.billed_input)} billed`,
          )
        : null,
    );
    button.addEventListener('click', () => openTurn(entry));
    current.buttons.set(entry.turn_seq, button);
    list.append(button);
    if (entry.turn_seq === wantedSeq) wantedEntry = entry;
  }
  if (wantedEntry) openTurn(wantedEntry);
}

async function loadSessions(cursor = null) {
  const list = $('sessions');
  if (cursor === null) fill(list);
  list.querySelector('.more')?.remove();
  const page = await api(`/v1/sessions?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  if (cursor === null && page.sessions.length === 0)
    list.append(h('p', { class: 'empty' }, 'no sessions yet'));
  for (const session of page.sessions) {
    const button = h(
      'button',
      { type: 'button', class: 'item', dataset: { session: session.id } },
      h('strong', {}, session.session_key),
      h(
        'span',
        { class: 'meta' },
        ` ${session.turn_count} ${session.turn_count === 1 ? 'turn' : 'turns'}${session.live ? '' : ' · ended'} · ${session.id}`,
      ),
    );
    button.addEventListener('click', () => {
      select(list, button);
      remember(session.id);
      loadTurns(session).catch((e) => status(e.message, true));
    });
    list.append(button);
  }
  if (page.next_cursor) {
    const more = h('button', { type: 'button', class: 'more' }, 'More sessions');
    more.addEventListener('click', () =>
      loadSessions(page.next_cursor).catch((e) => status(e.message, true)),
    );
    list.append(more);
  }
}

async function open() {
  try {
    const me = await api('/v1/me');
    status(`tenant ${me.tenant_id ?? ''}`);
    $('forget').hidden = false;
    await loadSessions();
    const { sessionId, seq } = wanted();
    if (sessionId) {
      const button = $('sessions').querySelector(`[data-session="${CSS.escape(sessionId)}"]`);
      if (button) select($('sessions'), button);
      await loadTurns(await api(sessionPath(sessionId)), seq);
    }
  } catch (error) {
    // A key the server does not know is not kept.
    if (error.status === 401) forgetKey();
    status(error.message, true);
  }
}

async function start() {
  thresholds = await fetch('/inspect/thresholds.json').then((r) => r.json());
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = $('api-key').value.trim();
    if (!key) return status('paste an API key', true);
    storeKey(key);
    $('api-key').value = '';
    void open();
  });
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    searchTurns($('search-text').value).catch((e) => status(e.message, true));
  });
  $('dry-run-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const question = $('dry-run-text').value.trim();
    if (!question) return status('type a question for the dry run', true);
    const cap = Number($('dry-run-cap').value) || null;
    dryRun(question, cap).catch((e) => {
      fill($('turn'), h('p', { class: 'empty error' }, e.message));
      status(e.message, true);
    });
  });
  $('forget').addEventListener('click', () => {
    forgetKey();
    current = null;
    forgetTranscripts();
    $('session-tools').hidden = true;
    fill($('sessions'));
    fill($('turns'));
    fill($('turn'));
    $('forget').hidden = true;
    history.replaceState(null, '', location.pathname);
    status('key forgotten');
  });
  if (storedKey()) await open();
}

void start();

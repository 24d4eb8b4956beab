// The inspector page: paste a key, pick a session, pick a logged turn, see it (turn.js).
import { api, forgetKey, sessionPath, storedKey, storeKey } from './api.js';
import { fill, formatPercent, h } from './dom.js';
import { showTurn } from './turn.js';

const $ = (id) => document.getElementById(id);
const status = (text, isError = false) => {
  fill($('status'), text);
  $('status').className = isError ? 'error' : '';
};

const MAX_LANES = 20;

/** The instance's budget thresholds (the bar's marks), read once at start. */
let thresholds;

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
  const entries = [];
  let after = 0;
  do {
    const page = await api(sessionPath(session.id, `/context-log?limit=500&after_seq=${after}`));
    entries.push(...page.entries);
    after = page.next_cursor;
  } while (after !== null);
  fill(list);
  if (entries.length === 0) {
    list.append(h('p', { class: 'empty' }, 'no context calls logged in this session yet'));
    return;
  }
  // The session's lanes as its log names them (at most MAX_LANES panels: a channel has many threads).
  const laneKeys = [...new Set(entries.map((e) => e.lane_key))].slice(0, MAX_LANES);
  for (const entry of entries.reverse()) {
    const button = h(
      'button',
      { type: 'button', class: `item state-${entry.budget.state}`, dataset: { seq: entry.turn_seq } },
      h('strong', {}, `#${entry.turn_seq}`),
      ` ${entry.lane_key} · ${formatPercent(entry.budget.percentage)} · ${entry.budget.state}`,
    );
    button.addEventListener('click', () => {
      select(list, button);
      remember(session.id, entry.turn_seq);
      void showTurn($('turn'), session.id, entry, thresholds, laneKeys).catch((e) => status(e.message, true));
    });
    list.append(button);
    if (entry.turn_seq === wantedSeq) button.click();
  }
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
  $('forget').addEventListener('click', () => {
    forgetKey();
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

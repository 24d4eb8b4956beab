// Redaction measured through the HTTP API: every case of the generated corpus (secrets of every
// kind, and look-alikes) is sent as a memory, a turn and a channel message of one channel session,
// then read back through every surface a model or a client reads — the search route (memories,
// transcript chunks, channel messages), context payloads, the agent tools, the transcript and the
// channel reads. A secret leaks on a surface when it (or, for a long one, a 12-character piece of
// its middle) is in anything that surface returned; a look-alike is changed on a surface when an item
// of it that the surface returned holds a redaction marker the look-alike did not.
import { lookAlikes, positiveCases, type PositiveCase } from './secret-corpus.js';

export type Request = (
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
) => Promise<{ statusCode: number; json(): unknown }>;

export interface SurfaceRow {
  surface: string;
  /** Secrets the surface returned an item of. */
  secrets: number;
  /** Of those, secrets some of whose text the surface returned. */
  leaked: number;
  /** Look-alikes the surface returned an item of. */
  lookAlikes: number;
  /** Of those, look-alikes whose text the surface did not return as sent. */
  changed: number;
}

export interface SurfaceReport {
  rows: SurfaceRow[];
  secretCount: number;
  kindCount: number;
  lookAlikeCount: number;
  /** Leaked secrets per surface, to show what went wrong. */
  leaks: { surface: string; kind: string; secret: string }[];
  changes: { surface: string; family: string; text: string }[];
}

const CHANNEL = 'CREDACT';
/** A tag word per case (letters only, one lexeme) so each case can be searched for. */
const tag = (i: number) => {
  let out = '';
  let n = i;
  for (let d = 0; d < 3; d += 1) {
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  }
  return `qz${out}`;
};

interface Case {
  tag: string;
  text: string;
  secret?: PositiveCase;
  family?: string;
}

const escaped = (s: string) => JSON.stringify(s).slice(1, -1);
/** The pieces of a secret whose presence is a leak: the whole, and the middle of a long one. */
const pieces = (secret: string) => {
  const out = [secret, escaped(secret)];
  if (secret.length >= 24) {
    const mid = secret.slice(Math.floor(secret.length / 2) - 6, Math.floor(secret.length / 2) + 6);
    out.push(mid, escaped(mid));
  }
  return out;
};
const markers = (s: string) => s.split('[REDACTED:').length - 1;

export async function measureRedactionSurfaces(
  request: Request,
  options: { perKind?: number; perFamily?: number } = {},
): Promise<SurfaceReport> {
  const positives = positiveCases(31_031, options.perKind ?? 7);
  const negatives = lookAlikes(13_013, options.perFamily ?? 7);
  const cases: Case[] = [
    ...positives.map((c, i) => ({
      tag: tag(i),
      text: `${tag(i)}: ${c.before}${c.secret}${c.after}`,
      secret: c,
    })),
    ...negatives.map((c, i) => ({
      tag: tag(positives.length + i),
      text: `${tag(positives.length + i)}: ${c.text}`,
      family: c.family,
    })),
  ];
  const ok = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const response = await request(method, url, payload);
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url}: ${response.statusCode} ${JSON.stringify(response.json())}`);
    return response.json() as Record<string, unknown>;
  };

  // The channel session, and every case as a memory, a turn and a channel message.
  const session = (
    (await ok('POST', '/v1/sessions', {
      agent_id: 'redaction',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: CHANNEL,
    })) as { session: { id: string } }
  ).session.id;
  for (const c of cases) {
    await ok('POST', '/v1/memories', {
      scope: 'channel',
      scope_key: `slack:${CHANNEL}`,
      type: 'fact',
      text: c.text,
    });
  }
  for (let from = 0; from < cases.length; from += 50) {
    await ok('POST', `/v1/sessions/${session}/turns`, {
      turns: cases.slice(from, from + 50).flatMap((c) => [
        { role: 'user', content: c.text },
        { role: 'assistant', content: `noted ${c.tag}` },
      ]),
    });
  }
  const base = Date.UTC(2026, 0, 1, 9);
  for (let from = 0; from < cases.length; from += 50) {
    await ok('POST', '/v1/events', {
      events: cases.slice(from, from + 50).map((c, k) => ({
        type: 'message.created',
        platform: 'slack',
        channel_id: CHANNEL,
        message_id: `m-${c.tag}`,
        ts: new Date(base + (from + k) * 1_000).toISOString(),
        author: { id: 'U1', name: 'Ana' },
        text: c.text,
      })),
    });
  }

  // What each surface returned for each case: the texts of the items that name its tag.
  const seen = new Map<string, Map<string, string[]>>();
  const saw = (surface: string, text: string) => {
    let bySurface = seen.get(surface);
    if (!bySurface) seen.set(surface, (bySurface = new Map()));
    for (const match of text.matchAll(/qz[a-z]{3}/g)) {
      const list = bySurface.get(match[0]) ?? [];
      list.push(text);
      bySurface.set(match[0], list);
    }
  };

  // The search route: 16 tags a query (the query's words are OR'ed), every source.
  for (let from = 0; from < cases.length; from += 16) {
    const tags = cases.slice(from, from + 16).map((c) => c.tag);
    const reply = (await ok('POST', '/v1/memories/search', {
      query: tags.join(' '),
      include_transcripts: true,
      include_channel_messages: true,
      max_results: 100,
    })) as { results: { kind: string; text: string; snippet: string }[] };
    for (const r of reply.results) {
      saw(`search: ${r.kind.replace('_', ' ')}`, r.text);
      saw(`search: ${r.kind.replace('_', ' ')}`, r.snippet);
    }
  }

  // Context payloads. In the channel session: its channel snapshot, summary, recent history and
  // what was retrieved for a few tags. In DM sessions of 50 cases each: every case in the history.
  const payloadCases = async (sessionId: string, about: Case[]) => {
    const reply = (await ok('POST', `/v1/sessions/${sessionId}/context`, {
      message: { content: `what did we say about ${about.map((c) => c.tag).join(' and ')}?` },
      budget: { max_context_tokens: 4_000 },
      dry_run: true,
    })) as { payload: unknown };
    const payload = JSON.stringify(reply.payload);
    // One text per case the payload holds: the payload's text from its tag to the next case's.
    for (const match of payload.matchAll(/qz[a-z]{3}:/g))
      saw('context payload', payloadItem(payload, match.index));
  };
  for (let from = 0; from < cases.length; from += Math.ceil(cases.length / 4))
    await payloadCases(session, cases.slice(from, from + 2));
  for (let from = 0; from < cases.length; from += 50) {
    const dm = (
      (await ok('POST', '/v1/sessions', {
        agent_id: 'redaction',
        platform: 'slack',
        chat_type: 'dm',
        user_id: `U${from}`,
      })) as { session: { id: string } }
    ).session.id;
    const batch = cases.slice(from, from + 50);
    await ok('POST', `/v1/sessions/${dm}/turns`, {
      turns: batch.flatMap((c) => [
        { role: 'user', content: c.text },
        { role: 'assistant', content: `noted ${c.tag}` },
      ]),
    });
    await payloadCases(dm, batch.slice(0, 2));
  }

  // The agent tools and the plain reads.
  for (let from = 0; from < cases.length; from += 16) {
    const tags = cases.slice(from, from + 16).map((c) => c.tag);
    const found = (await ok('POST', `/v1/sessions/${session}/tools/memory_search`, {
      input: { query: tags.join(' '), max_results: 50 },
    })) as { content: { text: string }[] };
    for (const r of (JSON.parse(found.content[0]!.text) as { results: { text: string }[] }).results)
      saw('tool: memory_search', r.text);
  }
  for (let from = 0; from < cases.length; from += 50) {
    const read = (await ok('POST', `/v1/sessions/${session}/tools/channel_messages`, {
      input: { message_ids: cases.slice(from, from + 50).map((c) => `m-${c.tag}`) },
    })) as { content: { text: string }[] };
    for (const m of (JSON.parse(read.content[0]!.text) as { messages: { text: string }[] }).messages)
      saw('tool: channel_messages', m.text);
  }
  let cursor: string | null = null;
  do {
    const page = (await ok(
      'GET',
      `/v1/sessions/${session}/transcript?limit=500${cursor ? `&cursor=${cursor}` : ''}`,
    )) as { entries: { content: unknown }[]; next_cursor: string | null };
    for (const e of page.entries)
      saw('GET transcript', typeof e.content === 'string' ? e.content : JSON.stringify(e.content));
    cursor = page.next_cursor;
  } while (cursor);
  cursor = null;
  do {
    const page = (await ok(
      'GET',
      `/v1/channels/slack/${CHANNEL}/messages?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )) as { messages: { text: string }[]; next_cursor: string | null };
    for (const m of page.messages) saw('GET channel messages', m.text);
    cursor = page.next_cursor;
  } while (cursor);

  const rows: SurfaceRow[] = [];
  const leaks: SurfaceReport['leaks'] = [];
  const changes: SurfaceReport['changes'] = [];
  for (const [surface, byTag] of seen) {
    const row: SurfaceRow = { surface, secrets: 0, leaked: 0, lookAlikes: 0, changed: 0 };
    for (const c of cases) {
      const texts = byTag.get(c.tag);
      if (!texts) continue;
      if (c.secret) {
        row.secrets += 1;
        const secret = c.secret.secret;
        if (texts.some((t) => pieces(secret).some((p) => t.includes(p)))) {
          row.leaked += 1;
          leaks.push({ surface, kind: c.secret.kind, secret });
        }
      } else {
        row.lookAlikes += 1;
        // Changed: an item holding it has a marker the sent text did not have (snippets and cut
        // chunk lines hold part of a text, so the text itself is not compared).
        const sent = c.text.slice(c.tag.length + 2);
        const before = markers(sent);
        if (texts.some((t) => markers(t) > before)) {
          row.changed += 1;
          changes.push({ surface, family: c.family!, text: sent });
        }
      }
    }
    rows.push(row);
  }
  rows.sort((a, b) => (a.surface < b.surface ? -1 : 1));
  return {
    rows,
    secretCount: positives.length,
    kindCount: new Set(positives.map((c) => c.kind)).size,
    lookAlikeCount: negatives.length,
    leaks,
    changes,
  };
}

/** The payload's text from `at` to the next case's tag (one case's turn, as JSON text). */
function payloadItem(payload: string, at: number): string {
  const next = payload.slice(at + 6).search(/qz[a-z]{3}:/);
  return payload.slice(at, next < 0 ? at + 4_000 : at + 6 + next);
}

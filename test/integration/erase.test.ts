// Erasing content: DELETE of a channel message's or a transcript entry's content leaves the text in
// no table (transcript entries, payload parts, context log, stored replies, lane states, memories,
// chunks, the message), in no later payload, search, tool result or summary; a tombstone and an
// audit record stay; a replay of an affected turn says the content was erased; another tenant's
// target and an unknown one are 404s; a second erase answers the first.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';
import {
  appendTurns,
  channelSession,
  fillerTurns,
  memorySearchText,
  memorySearchToolText,
} from '../helpers/content-reads.js';

let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;
let channelSeq = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => ctx?.close());

const TABLES = [
  'channel_messages',
  'transcript_entries',
  'transcript_chunks',
  'lane_states',
  'memories',
  'payload_parts',
  'context_log',
  'idempotency_records',
  'content_erasures',
];

/** Tables whose rows hold `needle` anywhere (every column, as the row's text). */
async function tablesHolding(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of TABLES) {
    const [row] = await queryRows<{ n: number }>(
      ctx.deps.database.db,
      sql`select count(*)::int as n from ${sql.identifier(table)} d where strpos(d::text, ${needle}) > 0`,
    );
    if (Number(row!.n) > 0) found.push(table);
  }
  return found;
}

const session = (tenant: TestTenant = t, channelId = `ER${++channelSeq}`) =>
  channelSession(tenant, channelId);

const eraseMessage = (tenant: TestTenant, channelId: string, messageId: string, headers = {}) =>
  tenant.inject({
    method: 'DELETE',
    url: `/v1/channels/slack/${channelId}/messages/${messageId}/content`,
    headers,
  });
const eraseEntry = (tenant: TestTenant, sessionId: string, seq: number | string) =>
  tenant.inject({ method: 'DELETE', url: `/v1/sessions/${sessionId}/transcript/${seq}/content` });

describe('DELETE /v1/channels/{platform}/{channelId}/messages/{messageId}/content', () => {
  it('erases the text from every table and every later read; tombstone, audit record, replay note', async () => {
    const s = await session();
    const token = 'QUARTZHERON';
    const secret = `The acquisition target is ${token} Holdings and the board votes on it in March`;
    await ingest(t, s.channelId, [{ message_id: 'm1', ts: at(1), text: secret }]);
    // The message as a turn, a quote of it, a context call (payload logged, reply stored under a
    // key), a summary over them, and a memory a user wrote with the text.
    await appendTurns(t, s.id, [
      {
        role: 'user',
        content: secret,
        source: { platform: 'slack', channel_id: s.channelId, message_id: 'm1' },
      },
      { role: 'assistant', content: `I will remember: "${secret}".` },
    ]);
    const call = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      headers: { 'idempotency-key': `erase-${s.id}` },
      payload: { message: { content: 'What is the acquisition target?' } },
    });
    expect(call.statusCode).toBe(200);
    expect(call.body).toContain(token);
    const callSeq = call.json().turn_seq as number;
    await appendTurns(t, s.id, [{ role: 'assistant', content: 'See above.' }, ...fillerTurns(12, 4)]);
    expect(
      (await t.inject({ method: 'POST', url: `/v1/sessions/${s.id}/compact`, payload: { wait: true } }))
        .statusCode,
    ).toBe(200);
    const memory = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'tenant', type: 'fact', text: `Ana said: ${secret}` },
    });
    expect(memory.statusCode).toBe(201);
    expect((await tablesHolding(token)).sort()).toEqual(
      [
        'channel_messages',
        'context_log',
        'idempotency_records',
        'lane_states',
        'memories',
        'payload_parts',
        'transcript_chunks',
        'transcript_entries',
      ].sort(),
    );

    const erased = await eraseMessage(t, s.channelId, 'm1');
    expect(erased.statusCode).toBe(200);
    const body = erased.json();
    expect(body.already_erased).toBe(false);
    expect(body.erasure).toMatchObject({
      target: { kind: 'channel_message', platform: 'slack', channel_id: s.channelId, message_id: 'm1' },
    });
    expect(body.erasure.actor.api_key_id).toEqual(expect.any(String));
    expect(body.erasure.touched.transcript_entries).toBeGreaterThanOrEqual(2);
    expect(body.erasure.touched.payload_parts).toBeGreaterThanOrEqual(1);

    expect(await tablesHolding(token)).toEqual([]);
    expect(await tablesHolding('The acquisition target is')).toEqual([]);
    // The tombstone: the entry keeps its place and role; the message is a deleted one.
    const transcript = await t.inject({ url: `/v1/sessions/${s.id}/transcript?limit=100` });
    expect(transcript.body).toContain('[content erased]');
    expect(transcript.body).not.toContain(token);
    const messages = await t.inject({ url: `/v1/channels/slack/${s.channelId}/messages` });
    expect(messages.body).not.toContain(token);
    expect(await memorySearchText(t, `${token} acquisition target`)).not.toContain(token);
    expect(await memorySearchToolText(t, s.id, `${token} acquisition target`)).not.toContain(token);
    const lane = (await t.inject({ url: `/v1/sessions/${s.id}/lanes/${encodeURIComponent(s.lane)}` })).json();
    expect(lane.summary ?? '').not.toContain(token);
    expect(lane.summary_stale).toBe(false);
    // The replay of the call that sent it.
    const replay = await t.inject({ url: `/v1/sessions/${s.id}/context-log/${callSeq}/payload` });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['content-erased']).toBe('true');
    expect(replay.body).not.toContain(token);
    expect(replay.body).toContain('[content erased]');
    // The stored reply of the keyed call answers a retry without the text.
    const retry = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      headers: { 'idempotency-key': `erase-${s.id}` },
      payload: { message: { content: 'What is the acquisition target?' } },
    });
    expect(retry.body).not.toContain(token);
    // A later payload.
    const next = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      payload: { message: { content: 'Remind me of the acquisition target' } },
    });
    expect(next.statusCode).toBe(200);
    expect(next.body).not.toContain(token);

    // Idempotent: the first erase's record, nothing changed.
    const again = await eraseMessage(t, s.channelId, 'm1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ erasure: body.erasure, already_erased: true });
  });

  it("404 for another tenant's message and an unknown one; 400 for bad input", async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      { message_id: 'x1', ts: at(1), text: 'a message only its tenant may erase' },
    ]);
    const foreign = await eraseMessage(other, s.channelId, 'x1');
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign).code).toBe('channel_message.not_found');
    const unknown = await eraseMessage(t, s.channelId, 'nope');
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown).code).toBe('channel_message.not_found');
    // Nothing was erased by the refused calls.
    const messages = await t.inject({ url: `/v1/channels/slack/${s.channelId}/messages` });
    expect(messages.body).toContain('a message only its tenant may erase');
    const tooLong = await eraseMessage(t, s.channelId, 'm'.repeat(300));
    expect(tooLong.statusCode).toBe(400);
    expect(errorOf(tooLong).code).toBe('request.invalid');
    const badKey = await eraseMessage(t, s.channelId, 'x1', { 'idempotency-key': '' });
    expect(badKey.statusCode).toBe(400);
  });
});

describe('DELETE /v1/sessions/{id}/transcript/{seq}/content', () => {
  it('erases an entry everywhere, keeps its place as a tombstone, and answers again the same', async () => {
    const s = await session();
    const token = 'LANTERNMOSS';
    const said = `The offsite venue we booked is the ${token} lodge and the bus leaves in June`;
    await appendTurns(t, s.id, [{ role: 'user', content: 'Where is the offsite venue?' }]);
    const appended = await appendTurns(t, s.id, [{ role: 'assistant', content: said }]);
    const seq = appended.entries[0].seq as number;
    expect(seq).toEqual(expect.any(Number));
    const call = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      payload: { message: { content: 'Thanks, and when does the bus leave?' } },
    });
    expect(call.body).toContain(token);
    const callSeq = call.json().turn_seq as number;
    expect(await memorySearchText(t, `${token} offsite venue lodge`)).toContain(token);

    const erased = await eraseEntry(t, s.id, seq);
    expect(erased.statusCode).toBe(200);
    expect(erased.json().erasure.target).toEqual({ kind: 'transcript_entry', session_id: s.id, seq });
    expect(await tablesHolding(token)).toEqual([]);
    const transcript = (await t.inject({ url: `/v1/sessions/${s.id}/transcript?limit=100` })).json();
    const entry = JSON.stringify(transcript).includes('[content erased]');
    expect(entry).toBe(true);
    expect(await memorySearchText(t, `${token} offsite venue lodge`)).not.toContain(token);
    const replay = await t.inject({ url: `/v1/sessions/${s.id}/context-log/${callSeq}/payload` });
    expect(replay.headers['content-erased']).toBe('true');
    expect(replay.body).not.toContain(token);
    const next = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      payload: { message: { content: 'Say the venue again' } },
    });
    expect(next.statusCode).toBe(200);
    expect(next.body).not.toContain(token);
    // A replay of a turn the erase did not touch says nothing.
    const untouched = await t.inject({
      url: `/v1/sessions/${s.id}/context-log/${next.json().turn_seq}/payload`,
    });
    expect(untouched.headers['content-erased']).toBeUndefined();

    const again = await eraseEntry(t, s.id, seq);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ erasure: erased.json().erasure, already_erased: true });
  });

  it("404 for another tenant's session, an unknown session or seq; 400 for bad input", async () => {
    const s = await session();
    await appendTurns(t, s.id, [{ role: 'user', content: 'an entry only its tenant may erase' }]);
    const foreign = await eraseEntry(other, s.id, 1);
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign).code).toBe('session.not_found');
    const unknownSession = await eraseEntry(t, '0190e3c0-0000-7000-8000-000000000000', 1);
    expect(unknownSession.statusCode).toBe(404);
    expect(errorOf(unknownSession).code).toBe('session.not_found');
    const unknownSeq = await eraseEntry(t, s.id, 999);
    expect(unknownSeq.statusCode).toBe(404);
    expect(errorOf(unknownSeq).code).toBe('transcript_entry.not_found');
    for (const bad of ['0', '-1', 'abc', '1.5']) {
      const response = await eraseEntry(t, s.id, bad);
      expect(response.statusCode).toBe(400);
      expect((errorOf(response).details as { path: string }[])[0]?.path).toBe('params.seq');
    }
    const badId = await eraseEntry(t, 'not-a-uuid', 1);
    expect(badId.statusCode).toBe(400);
    const transcript = await t.inject({ url: `/v1/sessions/${s.id}/transcript` });
    expect(transcript.body).toContain('an entry only its tenant may erase');
  });
});

// A deleted channel message's text leaves everything that serves later turns: the summary a quoting
// turn was folded into (rebuilt without it), the transcript chunks of turns that quoted it (search
// and the retrieval of a later payload), memory_search and POST /v1/memories/search (the lane's
// summary memory too). An edit of a summarized message rebuilds the summary with the edited text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
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
let channelSeq = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => ctx?.close());

const session = (channelId = `DT${++channelSeq}`) => channelSession(t, channelId);

const laneOf = async (sessionId: string, lane: string) =>
  (await t.inject({ url: `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(lane)}` })).json();

const deleteMessage = async (channelId: string, messageId: string, minute: number) => {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/events',
    payload: {
      events: [
        {
          type: 'message.deleted',
          platform: 'slack',
          channel_id: channelId,
          message_id: messageId,
          ts: at(minute),
        },
      ],
    },
  });
  expect(response.statusCode).toBe(200);
};

describe('a deleted message is gone from later turns', () => {
  it('quoted by a summarized turn: not in the summary, chunks, searches, tools or a later payload', async () => {
    const s = await session();
    const token = 'ZEPHYRQUILL';
    const secret = `The vendor escrow passphrase is ${token}-77 for the harbor project rollout next week`;
    await ingest(t, s.channelId, [{ message_id: 'q1', ts: at(1), text: secret }]);
    // The user quotes the message in a turn of their own (not the message itself: no source).
    await appendTurns(t, s.id, [
      { role: 'user', content: `Ana wrote earlier: "${secret}". Should we rotate it before the rollout?` },
      { role: 'assistant', content: 'Yes, rotate it first.' },
      ...fillerTurns(12, 2),
    ]);
    const compacted = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/compact`,
      payload: { wait: true },
    });
    expect(compacted.statusCode).toBe(200);
    // Before the delete the text is everywhere this test looks (so each check below can fail).
    expect((await laneOf(s.id, s.lane)).summary).toContain(token);
    expect(await memorySearchText(t, `${token} escrow passphrase`)).toContain(token);
    expect(await memorySearchToolText(t, s.id, `${token} escrow passphrase`)).toContain(token);

    await deleteMessage(s.channelId, 'q1', 5);

    expect(await memorySearchText(t, `${token} escrow passphrase`)).not.toContain(token);
    expect(await memorySearchToolText(t, s.id, `${token} escrow passphrase`)).not.toContain(token);
    const next = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      payload: { message: { content: 'What was the harbor escrow passphrase again?' } },
    });
    expect(next.statusCode).toBe(200);
    expect(JSON.stringify(next.json().payload)).not.toContain(token);
    expect(JSON.stringify(next.json().context)).not.toContain(token);
    expect((await laneOf(s.id, s.lane)).summary ?? '').not.toContain(token);
    // Later appends re-index the lane's newest chunk: the quote stays out.
    await appendTurns(t, s.id, [{ role: 'assistant', content: 'Noted.' }, ...fillerTurns(4, 20)]);
    expect(await memorySearchText(t, `${token} escrow passphrase`)).not.toContain(token);
    const compactedAgain = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/compact`,
      payload: { wait: true, force: true },
    });
    expect(compactedAgain.statusCode).toBe(200);
    expect((await laneOf(s.id, s.lane)).summary ?? '').not.toContain(token);
    expect(await memorySearchText(t, `${token} escrow passphrase`)).not.toContain(token);
  });

  it('quoted by a turn still in the view: not in the chunks or searches, before any context call', async () => {
    const s = await session();
    const token = 'MARBLEFINCH';
    const secret = `Door code for the lab storage room is ${token} 4471, change it monthly please`;
    await ingest(t, s.channelId, [{ message_id: 'v1', ts: at(1), text: secret }]);
    await appendTurns(t, s.id, [
      { role: 'user', content: `Quoting the channel: ${secret}` },
      { role: 'assistant', content: 'Understood.' },
    ]);
    expect(await memorySearchText(t, `${token} door code`)).toContain(token);
    await deleteMessage(s.channelId, 'v1', 5);
    expect(await memorySearchText(t, `${token} door code`)).not.toContain(token);
    expect(await memorySearchToolText(t, s.id, `${token} door code`)).not.toContain(token);
  });
});

describe('an edit of a summarized message', () => {
  it('rebuilds the summary with the edited text', async () => {
    const s = await session();
    const original = 'The budget for the offsite is 12,000 EUR and the venue is Lisbon';
    await ingest(t, s.channelId, [{ message_id: 'e1', ts: at(1), text: original }]);
    await appendTurns(t, s.id, [
      {
        role: 'user',
        content: original,
        source: { platform: 'slack', channel_id: s.channelId, message_id: 'e1' },
      },
      { role: 'assistant', content: 'Noted.' },
      ...fillerTurns(12, 2),
    ]);
    expect(
      (await t.inject({ method: 'POST', url: `/v1/sessions/${s.id}/compact`, payload: { wait: true } }))
        .statusCode,
    ).toBe(200);
    expect((await laneOf(s.id, s.lane)).summary).toContain('12,000');
    const edited = await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.edited',
            platform: 'slack',
            channel_id: s.channelId,
            message_id: 'e1',
            text: 'The budget for the offsite is 9,000 EUR and the venue is Porto',
            ts: at(5),
          },
        ],
      },
    });
    expect(edited.statusCode).toBe(200);
    expect((await laneOf(s.id, s.lane)).summary_stale).toBe(true);
    expect(
      (await t.inject({ method: 'POST', url: `/v1/sessions/${s.id}/compact`, payload: { wait: true } }))
        .statusCode,
    ).toBe(200);
    const lane = await laneOf(s.id, s.lane);
    expect(lane.summary_stale).toBe(false);
    expect(lane.summary).toContain('9,000');
    expect(lane.summary).not.toContain('12,000');
    expect(await memorySearchText(t, 'offsite budget Lisbon')).not.toContain('12,000');
  });
});

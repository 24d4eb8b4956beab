// A delete of a channel message that an idle session's lane summary covers queues the summary's
// rebuild at once (a compaction job, after the ingest commits), so what the summary said of it —
// here in other words than the message's, as an LLM summarizer writes, which no scrub of the
// message's text can find — is gone from the lane view (what the inspector shows) and search without any later
// call or compaction of that session.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';
import { SLOW_TEST_TIMEOUT_MS, waitUntil } from '../helpers/wait.js';

let ctx: TestContext;
let t: TestTenant;

beforeAll(async () => {
  // One compaction worker: queued jobs run.
  ctx = await createTestApp({ env: { COMPACTION_WORKERS: '1' } });
  t = await ctx.tenant();
});
afterAll(async () => ctx?.close());

const filler = (n: number, from: number) =>
  Array.from({ length: n }, (_, k) => ({
    role: (from + k) % 2 === 0 ? 'user' : 'assistant',
    content: `Step ${from + k}: build ${2000 + from + k} touches /srv/svc-${from + k}/config.yaml for ticket OPS-${from + k}.`,
  }));

const laneOf = async (sessionId: string, lane: string) =>
  (await t.inject({ url: `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(lane)}` })).json() as {
    summary: string | null;
    summary_stale: boolean;
  };

const search = async (query: string) => {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/memories/search',
    payload: { query, max_results: 50, include_transcripts: true, include_channel_messages: true },
  });
  expect(response.statusCode).toBe(200);
  return JSON.stringify(response.json().results);
};

describe('a delete of a summarized message in an idle session', () => {
  it(
    'rebuilds the summary without it at once: lane view and search',
    async () => {
      const channelId = 'CREBUILD';
      const lane = `root:${channelId}`;
      const created = await t.inject({
        method: 'POST',
        url: '/v1/sessions',
        payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
      });
      const sessionId = created.json().session.id as string;
      const said = 'The launch codename is OSPREYLARK and it ships in March to the Lisbon office';
      await ingest(t, channelId, [{ message_id: 'r1', ts: at(1), text: said }]);
      const appended = await t.inject({
        method: 'POST',
        url: `/v1/sessions/${sessionId}/turns`,
        payload: {
          turns: [
            {
              role: 'user',
              content: said,
              source: { platform: 'slack', channel_id: channelId, message_id: 'r1' },
            },
            { role: 'assistant', content: 'Noted.' },
            ...filler(12, 2),
          ],
        },
      });
      expect(appended.statusCode).toBe(201);
      const compacted = await t.inject({
        method: 'POST',
        url: `/v1/sessions/${sessionId}/compact`,
        payload: { wait: true },
      });
      expect(compacted.statusCode).toBe(200);
      // The summary as an LLM summarizer would have written it: the message in other words.
      const reworded =
        'Ana shared that the spring release is called KESTRELWING internally, bound for Portugal.';
      await queryRows(
        ctx.deps.database.db,
        sql`update lane_states set summary = ${reworded} where tenant_id = ${t.tenantId}
              and session_id = ${sessionId}::uuid and lane_key = ${lane}`,
      );
      await queryRows(
        ctx.deps.database.db,
        sql`update memories set text = ${reworded} where tenant_id = ${t.tenantId} and type = 'lane_summary'`,
      );
      expect((await laneOf(sessionId, lane)).summary).toContain('KESTRELWING');
      expect(await search('KESTRELWING release')).toContain('KESTRELWING');

      const deleted = await t.inject({
        method: 'POST',
        url: '/v1/events',
        payload: {
          events: [
            {
              type: 'message.deleted',
              platform: 'slack',
              channel_id: channelId,
              message_id: 'r1',
              ts: at(5),
            },
          ],
        },
      });
      expect(deleted.statusCode).toBe(200);

      // No call, no compaction asked for: the queued rebuild runs on the worker.
      await waitUntil(async () => {
        const view = await laneOf(sessionId, lane);
        return !view.summary_stale && !(view.summary ?? '').includes('KESTRELWING');
      });
      const view = await laneOf(sessionId, lane);
      expect(view.summary ?? '').not.toContain('OSPREYLARK');
      expect(await search('KESTRELWING release')).not.toContain('KESTRELWING');
      expect(await search('OSPREYLARK launch codename')).not.toContain('OSPREYLARK');
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});

// The series docs/operations.md promises beyond HTTP latency: channel events by platform and
// outcome, assembled tokens per budget component, tool runs by tool and outcome. Each is counted
// once for what was done, never for an Idempotency-Key replay, and its labels stay bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

/** The value of one series in the /metrics text (0 when absent). */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const body = (await ctx.app.inject({ url: '/metrics' })).body;
  const wanted = Object.entries(labels);
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('usage metrics', () => {
  it('counts ingested events by platform and outcome, not their Idempotency-Key replays', async () => {
    await ingest(t, 'CM1', [
      { message_id: 'm1', ts: at(1), text: 'first' },
      { message_id: 'm2', ts: at(2), text: 'second' },
    ]);
    await ingest(t, 'CM1', [{ message_id: 'm1', ts: at(1), text: 'first' }]);
    expect(await metric('contextd_events_ingested_total', { platform: 'slack', outcome: 'created' })).toBe(2);
    expect(await metric('contextd_events_ingested_total', { platform: 'slack', outcome: 'duplicate' })).toBe(
      1,
    );

    const update = {
      update_id: 11,
      message: {
        message_id: 110,
        from: { id: 5, is_bot: false, first_name: 'Ivan' },
        chat: { id: 99, type: 'private', first_name: 'Ivan' },
        date: 1767268800,
        text: 'hello',
      },
    };
    const headers = { 'idempotency-key': 'metrics-telegram-1' };
    for (let i = 0; i < 2; i += 1) {
      const response = await t.inject({
        method: 'POST',
        url: '/v1/events/telegram',
        headers,
        payload: update,
      });
      expect(response.statusCode).toBe(200);
    }
    expect(await metric('contextd_events_ingested_total', { platform: 'telegram', outcome: 'created' })).toBe(
      1,
    );

    // A platform name contextd has no adapter for is accepted in normalized events, but not as a label.
    const custom = await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform: 'matrix-x7',
            channel_id: 'R1',
            message_id: 'x1',
            ts: at(3),
            author: { id: 'U1' },
            text: 'hi',
          },
        ],
      },
    });
    expect(custom.statusCode).toBe(200);
    expect(await metric('contextd_events_ingested_total', { platform: 'other', outcome: 'created' })).toBe(1);
    expect((await ctx.app.inject({ url: '/metrics' })).body).not.toContain('matrix-x7');
  });

  it('observes every returned payload per budget component, and tool runs by tool and outcome', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CM1' },
    });
    const sessionId = created.json().session.id as string;
    const call = (headers: Record<string, string> = {}) =>
      t.inject({
        method: 'POST',
        url: `/v1/sessions/${sessionId}/context`,
        headers,
        payload: {
          message: { content: 'what was first?' },
          system: [{ name: 'persona', text: 'You are a helpful bot.' }],
        },
      });
    const reply = await call({ 'idempotency-key': 'metrics-context-1' });
    expect(reply.statusCode).toBe(200);
    expect((await call({ 'idempotency-key': 'metrics-context-1' })).headers['idempotent-replayed']).toBe(
      'true',
    );
    const { components } = reply.json().budget as { components: Record<string, number> };
    expect(components.system).toBeGreaterThan(0);
    for (const component of Object.keys(components)) {
      expect(await metric('contextd_assembled_tokens_count', { component })).toBe(1);
      expect(await metric('contextd_assembled_tokens_sum', { component })).toBe(components[component]);
    }

    const run = (name: string, input: unknown) =>
      t.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/tools/${name}`, payload: { input } });
    expect((await run('channel_context', { intent: 'first' })).statusCode).toBe(200);
    expect((await run('channel_context', { intent: 42 })).statusCode).toBe(400);
    expect((await run('made_up_tool_9', {})).statusCode).toBe(404);
    expect(await metric('contextd_tool_calls_total', { tool: 'channel_context', outcome: 'ok' })).toBe(1);
    expect(await metric('contextd_tool_calls_total', { tool: 'channel_context', outcome: 'rejected' })).toBe(
      1,
    );
    expect(await metric('contextd_tool_calls_total', { tool: 'unknown', outcome: 'rejected' })).toBe(1);
    expect((await ctx.app.inject({ url: '/metrics' })).body).not.toContain('made_up_tool_9');
  });
});

// Text that quotes a tokenizer's special token ("<|endoftext|>") is ordinary text: it is stored,
// counted and sent back like any other (the tokenizer's default refuses it, which made a 500).
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

describe('special tokens in text', () => {
  it('are ingested, counted and sent in the context call', async () => {
    const quoted = 'the model printed <|endoftext|> and stopped';
    const events = await ingest(t, 'C1', [{ message_id: 'm1', ts: at(1), text: quoted }]);
    expect(events.json().results[0].outcome).toBe('created');
    const session = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: {
        session_key: 'special',
        agent_id: 'a',
        platform: 'slack',
        chat_type: 'channel',
        channel_id: 'C1',
      },
    });
    const id = session.json().session.id as string;
    const context = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: {
        message: {
          content: 'why <|endoftext|>?',
          source: { platform: 'slack', channel_id: 'C1', message_id: 'm1' },
        },
        dry_run: true,
      },
    });
    expect(context.statusCode).toBe(200);
    const body = context.body;
    expect(body).toContain('why <|endoftext|>?');
    expect(body).toContain('printed <|endoftext|> and stopped');
  });
});

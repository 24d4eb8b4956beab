// Slack and Telegram webhooks: signatures, freshness window, retries, url_verification, unknown
// tenants; the global JSON parser stays intact for every other route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature } from '../../src/platforms/slack.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let tenant: TestTenant;
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TELEGRAM_SECRET = 'tg-secret_123';

beforeAll(async () => {
  ctx = await createTestApp();
  tenant = await ctx.tenant();
  await ctx.app.services.tenants.setSecret({
    tenantId: tenant.tenantId,
    platform: 'slack',
    secret: SLACK_SECRET,
  });
  await ctx.app.services.tenants.setSecret({
    tenantId: tenant.tenantId,
    platform: 'telegram',
    secret: TELEGRAM_SECRET,
  });
});
afterAll(async () => {
  await ctx?.close();
});

const nowSeconds = () => String(Math.floor(ctx.clock.now().getTime() / 1000));
const slackMessage = (eventId: string, ts: string, text = 'hello from slack') =>
  JSON.stringify({
    token: 'x',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: eventId,
    event_time: 1767225600,
    event: { type: 'message', channel: 'CWEB', user: 'U1', text, ts, channel_type: 'channel' },
  });

function postSlack(
  body: string,
  options: { secret?: string; timestamp?: string; tenantId?: string; headers?: Record<string, string> } = {},
) {
  const timestamp = options.timestamp ?? nowSeconds();
  const signature = slackSignature(options.secret ?? SLACK_SECRET, timestamp, body);
  return ctx.app.inject({
    method: 'POST',
    url: `/v1/webhooks/slack/${options.tenantId ?? tenant.tenantId}`,
    payload: body,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
      ...options.headers,
    },
  });
}

async function storedTexts(channelId: string) {
  const response = await tenant.inject({ url: `/v1/channels/slack/${channelId}/messages` });
  return (response.json().messages as { message_id: string; text: string }[]).map((m) => m.text);
}

describe('POST /v1/webhooks/slack/{tenantId}', () => {
  it('answers url_verification with the challenge', async () => {
    const response = await postSlack(
      JSON.stringify({ token: 'x', challenge: 'abc123', type: 'url_verification' }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ ok: true, outcome: 'challenge', challenge: 'abc123' });
  });

  it('ingests a signed event and answers a retry with the same event_id as a duplicate', async () => {
    const body = slackMessage('EvRETRY1', '1767225600.000100');
    const first = await postSlack(body);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ outcome: 'ingested', results: [{ outcome: 'created' }] });
    const retry = await postSlack(body, {
      headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    });
    expect(retry.json()).toMatchObject({ outcome: 'ingested', results: [{ outcome: 'duplicate' }] });
    expect(await storedTexts('CWEB')).toEqual(['hello from slack']);
  });

  it('rejects a wrong secret, a tampered body, a stale or future timestamp and missing headers with 401, storing nothing', async () => {
    const body = slackMessage('EvBAD', '1767225700.000100', 'must not be stored');
    const stale = String(Number(nowSeconds()) - 301);
    const future = String(Number(nowSeconds()) + 301);
    const attempts = [
      await postSlack(body, { secret: 'wrong' }),
      await postSlack(body, { timestamp: stale }),
      await postSlack(body, { timestamp: future }),
      await ctx.app.inject({
        method: 'POST',
        url: `/v1/webhooks/slack/${tenant.tenantId}`,
        payload: body.replace('must not', 'MUST not'),
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': nowSeconds(),
          'x-slack-signature': slackSignature(SLACK_SECRET, nowSeconds(), body),
        },
      }),
      await ctx.app.inject({
        method: 'POST',
        url: `/v1/webhooks/slack/${tenant.tenantId}`,
        payload: body,
        headers: { 'content-type': 'application/json' },
      }),
    ];
    for (const response of attempts) {
      expect(response.statusCode).toBe(401);
      expect(errorOf(response).code).toBe('webhook.unauthorized');
    }
    expect(await storedTexts('CWEB')).not.toContain('must not be stored');
  });

  it('answers an unknown tenant exactly like a bad signature', async () => {
    const response = await postSlack(slackMessage('EvX', '1767225800.000100'), {
      tenantId: 'no_such_tenant',
    });
    expect(response.statusCode).toBe(401);
    expect(errorOf(response).code).toBe('webhook.unauthorized');
  });

  it('accepts a signed but unsupported event as ignored, and signed junk JSON as 400', async () => {
    const ignored = await postSlack(
      JSON.stringify({ type: 'event_callback', event_id: 'EvI', event: { type: 'team_join' } }),
    );
    expect(ignored.statusCode).toBe(200);
    expect(ignored.json()).toMatchObject({
      outcome: 'ignored',
      reason: expect.stringContaining('team_join'),
    });
    const junk = await postSlack('{not json');
    expect(junk.statusCode).toBe(400);
  });

  it('leaves the JSON parser of other routes intact', async () => {
    const response = await tenant.inject({
      method: 'POST',
      url: '/v1/events',
      payload: '{bad json',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('request.malformed_json');
  });
});

describe('POST /v1/webhooks/telegram/{tenantId}', () => {
  const update = (updateId: number, text: string) => ({
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: 7, is_bot: false, first_name: 'Ivan' },
      chat: { id: -100, type: 'supergroup', title: 'Team' },
      date: 1767225600,
      text,
    },
  });
  const post = (payload: unknown, secret?: string, tenantId = tenant.tenantId) =>
    ctx.app.inject({
      method: 'POST',
      url: `/v1/webhooks/telegram/${tenantId}`,
      payload: JSON.stringify(payload),
      headers: {
        'content-type': 'application/json',
        ...(secret !== undefined ? { 'x-telegram-bot-api-secret-token': secret } : {}),
      },
    });

  it('ingests an update with the right secret token', async () => {
    const response = await post(update(1, 'привет'), TELEGRAM_SECRET);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      outcome: 'ingested',
      results: [{ outcome: 'created', lane_key: 'root:-100' }],
    });
    const stored = await tenant.inject({ url: '/v1/channels/telegram/-100/messages' });
    expect(stored.json().messages.map((m: { text: string }) => m.text)).toEqual(['привет']);
  });

  it('rejects a wrong, missing or other tenant secret with 401 and stores nothing', async () => {
    const other = await ctx.tenant();
    for (const response of [
      await post(update(2, 'x'), 'wrong'),
      await post(update(2, 'x')),
      await post(update(2, 'x'), TELEGRAM_SECRET, other.tenantId),
      await post(update(2, 'x'), TELEGRAM_SECRET, 'ghost'),
    ]) {
      expect(response.statusCode).toBe(401);
    }
    const stored = await tenant.inject({ url: '/v1/channels/telegram/-100/messages' });
    expect(stored.json().messages).toHaveLength(1);
  });
});

// Per-tenant platform bot tokens through HTTP: store, read back only a hint, replace, delete;
// tenant isolation; bad input; the token in no reply, no log line and (with a key) not in the table.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

const SLACK_TOKEN = 'xoxb-1111111111-2222222222-SeCrEtSlAcKtOkEn42';
const TELEGRAM_TOKEN = '123456789:AAsecretTelegramTokenAbCdEfGhIjKlMn';
const DISCORD_TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0Mw.GfAkEd.secretdiscordtokenAbCdEfGhIjKlMn';
const lines: string[] = [];
const replies: string[] = [];
let ctx: TestContext;
let a: TestTenant;
let b: TestTenant;

beforeAll(async () => {
  ctx = await createTestApp({
    env: { LOG_LEVEL: 'trace', PLATFORM_TOKEN_KEY: randomBytes(32).toString('hex') },
    logger: { stream: { write: (line) => lines.push(line) } },
  });
  a = recorded(await ctx.tenant());
  b = recorded(await ctx.tenant());
});
afterAll(async () => {
  await ctx?.close();
});

/** The tenant with every reply body kept for the final check. */
function recorded(tenant: TestTenant): TestTenant {
  return {
    ...tenant,
    inject: async (options) => {
      const response = await tenant.inject(options);
      replies.push(response.body);
      return response;
    },
  };
}

const put = (tenant: TestTenant, platform: string, payload: unknown, headers: Record<string, string> = {}) =>
  tenant.inject({
    method: 'PUT',
    url: `/v1/platforms/${platform}/credentials`,
    payload: payload as object,
    headers,
  });
const get = (tenant: TestTenant, platform: string) =>
  tenant.inject({ url: `/v1/platforms/${platform}/credentials` });

describe('platform credentials', () => {
  it('stores a token and answers with a hint only; a second PUT replaces it', async () => {
    const created = await put(a, 'slack', { bot_token: SLACK_TOKEN, workspace_id: 'T0FAKE01' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({
      platform: 'slack',
      configured: true,
      workspace_id: 'T0FAKE01',
      token_hint: 'En42',
      encrypted: true,
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    ctx.clock.advance(1000);
    const replaced = await put(a, 'slack', { bot_token: 'xoxb-1111111111-2222222222-otherTokenZZZZ' });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({
      token_hint: 'ZZZZ',
      workspace_id: null,
      updated_at: '2026-01-01T00:00:01.000Z',
    });
    await put(a, 'slack', { bot_token: SLACK_TOKEN, workspace_id: 'T0FAKE01' });
    expect((await get(a, 'slack')).json()).toMatchObject({ configured: true, token_hint: 'En42' });
    const credential = await ctx.app.services.platformCredentials.credentialFor({
      tenantId: a.tenantId,
      platform: 'slack',
    });
    expect(credential).toEqual({
      tenantId: a.tenantId,
      platform: 'slack',
      token: SLACK_TOKEN,
      workspaceId: 'T0FAKE01',
    });
  });

  it('keeps tenants apart', async () => {
    expect((await get(b, 'slack')).json()).toMatchObject({
      configured: false,
      token_hint: null,
      updated_at: null,
    });
    const deleted = await b.inject({ method: 'DELETE', url: '/v1/platforms/slack/credentials' });
    expect(deleted.statusCode).toBe(204);
    expect((await get(a, 'slack')).json()).toMatchObject({ configured: true });
    expect(
      await ctx.app.services.platformCredentials.credentialFor({ tenantId: b.tenantId, platform: 'slack' }),
    ).toBeNull();
  });

  it('stores Telegram and Discord tokens; deletes; Idempotency-Key replays', async () => {
    const headers = { 'idempotency-key': 'tg-1' };
    const first = await put(a, 'telegram', { bot_token: TELEGRAM_TOKEN }, headers);
    expect(first.statusCode).toBe(201);
    const replay = await put(a, 'telegram', { bot_token: TELEGRAM_TOKEN }, headers);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const reused = await put(a, 'telegram', { bot_token: TELEGRAM_TOKEN.replace('AA', 'BB') }, headers);
    expect(reused.statusCode).toBe(409);
    expect(
      (await put(a, 'discord', { bot_token: DISCORD_TOKEN, workspace_id: '400000000000000001' })).statusCode,
    ).toBe(201);
    const removed = await a.inject({ method: 'DELETE', url: '/v1/platforms/discord/credentials' });
    expect(removed.statusCode).toBe(204);
    expect((await get(a, 'discord')).json()).toMatchObject({ configured: false });
  });

  it('refuses bad input with the field path and a stable code', async () => {
    const cases: [string, unknown, string, string][] = [
      ['slack', { bot_token: TELEGRAM_TOKEN }, 'platform.credentials_invalid', 'body.bot_token'],
      [
        'telegram',
        { bot_token: TELEGRAM_TOKEN, workspace_id: 'T1' },
        'platform.credentials_invalid',
        'body.workspace_id',
      ],
      [
        'discord',
        { bot_token: DISCORD_TOKEN, workspace_id: 'T0FAKE' },
        'platform.credentials_invalid',
        'body.workspace_id',
      ],
      ['slack', {}, 'request.invalid', 'body.bot_token'],
      ['slack', { bot_token: 42 }, 'request.invalid', 'body.bot_token'],
      ['slack', { bot_token: 'x'.repeat(600) }, 'request.invalid', 'body.bot_token'],
      ['irc', { bot_token: SLACK_TOKEN }, 'request.invalid', 'params.platform'],
    ];
    for (const [platform, body, code, path] of cases) {
      const response = await put(a, platform, body);
      expect(response.statusCode, response.body).toBe(400);
      const error = errorOf(response);
      expect(error.code).toBe(code);
      expect(JSON.stringify(error.details)).toContain(path);
    }
    expect((await a.inject({ url: '/v1/platforms/irc/credentials' })).statusCode).toBe(400);
    expect((await ctx.app.inject({ url: '/v1/platforms/slack/credentials' })).statusCode).toBe(401);
  });

  it('is sealed at rest, and no reply or log line carries a token', async () => {
    const rows = await ctx.deps.database.db.execute(sql`select token from platform_credentials`);
    const stored = JSON.stringify(rows);
    expect(stored).toContain('enc:v1:');
    for (const token of [SLACK_TOKEN, TELEGRAM_TOKEN, DISCORD_TOKEN]) {
      expect(stored).not.toContain(token);
      expect(replies.join('\n')).not.toContain(token);
      expect(lines.join('\n')).not.toContain(token);
    }
    // The log did see these requests (the check above is not vacuous).
    expect(lines.some((l) => l.includes('/v1/platforms/slack/credentials'))).toBe(true);
  });
});

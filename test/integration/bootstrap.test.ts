// API keys at start-up: API_KEYS pairs, the printed development key, refusal in production.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapApiKeys, DEV_TENANT } from '../../src/bootstrap.js';
import { createPlatformCredentialsRepository } from '../../src/modules/platforms/platform-credentials.repository.js';
import { createPlatformCredentialsService } from '../../src/modules/platforms/platform-credentials.service.js';
import { createTestApp, testConfig, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

describe('bootstrapApiKeys', () => {
  it('stores API_KEYS pairs (hashed) so those keys authenticate as their tenants', async () => {
    const lines: string[] = [];
    await bootstrapApiKeys(
      testConfig({ API_KEYS: 'acme:acme-secret-1,beta:beta-secret-2' }),
      ctx.app.services,
      (l) => lines.push(l),
    );
    // Running twice (a restart) is harmless.
    await bootstrapApiKeys(testConfig({ API_KEYS: 'acme:acme-secret-1' }), ctx.app.services, () => {});
    expect(lines).toEqual([]);
    const me = await ctx.app.inject({ url: '/v1/me', headers: { authorization: 'Bearer acme-secret-1' } });
    expect(me.json()).toMatchObject({ tenant_id: 'acme' });
    const beta = await ctx.app.inject({ url: '/v1/me', headers: { authorization: 'Bearer beta-secret-2' } });
    expect(beta.json()).toMatchObject({ tenant_id: 'beta' });
  });

  it('prints a working development key once when no keys are configured', async () => {
    const lines: string[] = [];
    await bootstrapApiKeys(testConfig({ NODE_ENV: 'development' }), ctx.app.services, (l) => lines.push(l));
    const key = /key for tenant "dev": (\S+)/.exec(lines[0] ?? '')?.[1];
    expect(key).toBeDefined();
    const me = await ctx.app.inject({ url: '/v1/me', headers: { authorization: `Bearer ${key}` } });
    expect(me.json()).toMatchObject({ tenant_id: DEV_TENANT });
    const again: string[] = [];
    await bootstrapApiKeys(testConfig({ NODE_ENV: 'development' }), ctx.app.services, (l) => again.push(l));
    expect(again[0]).toContain('already has a key');
  });

  it('refuses to start in production without PLATFORM_TOKEN_KEY once bot tokens are stored', async () => {
    const production = testConfig({ NODE_ENV: 'production', API_KEYS: 'acme:acme-secret-1' });
    await expect(bootstrapApiKeys(production, ctx.app.services, () => {})).resolves.toBeUndefined();
    const t = await ctx.tenant();
    await ctx.app.services.platformCredentials.put({
      tenantId: t.tenantId,
      platform: 'slack',
      botToken: 'xoxb-1111111111-2222222222-storedTokenZZZZ',
    });
    await expect(bootstrapApiKeys(production, ctx.app.services, () => {})).rejects.toThrow(
      /PLATFORM_TOKEN_KEY is required in production/,
    );
    const sealed = testConfig({
      NODE_ENV: 'production',
      API_KEYS: 'acme:acme-secret-1',
      PLATFORM_TOKEN_KEY: 'a'.repeat(64),
    });
    await expect(bootstrapApiKeys(sealed, ctx.app.services, () => {})).resolves.toBeUndefined();
  });

  it('production stores no bot token without PLATFORM_TOKEN_KEY (503 platform.token_key_missing)', async () => {
    const service = createPlatformCredentialsService({
      credentials: createPlatformCredentialsRepository(ctx.deps.database.db),
      clock: ctx.clock,
      tokenKey: undefined,
      production: true,
    });
    const t = await ctx.tenant();
    await expect(
      service.put({
        tenantId: t.tenantId,
        platform: 'slack',
        botToken: 'xoxb-1111111111-2222222222-plainTokenZZZZ',
      }),
    ).rejects.toMatchObject({ statusCode: 503, code: 'platform.token_key_missing' });
    expect((await service.get({ tenantId: t.tenantId, platform: 'slack' })).configured).toBe(false);
  });

  it('refuses to start in production without API_KEYS', async () => {
    await expect(
      bootstrapApiKeys(testConfig({ NODE_ENV: 'production' }), ctx.app.services, () => {}),
    ).rejects.toThrow(/API_KEYS is required in production/);
  });
});

describe('tenancy', () => {
  it('tells each key its own tenant', async () => {
    const a = await ctx.tenant();
    const b = await ctx.tenant();
    expect((await a.inject({ url: '/v1/me' })).json()).toMatchObject({ tenant_id: a.tenantId });
    expect((await b.inject({ url: '/v1/me' })).json()).toMatchObject({ tenant_id: b.tenantId });
  });
});

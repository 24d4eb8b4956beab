// Agent sections through HTTP: create/replace, read, list in prompt order, delete, isolation.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const put = (agent: string, name: string, payload: Record<string, unknown>, tenant = t) =>
  tenant.inject({ method: 'PUT', url: `/v1/agents/${agent}/sections/${name}`, payload });

describe('agent sections', () => {
  it('creates, replaces and reads a section with hash and token estimate', async () => {
    const created = await put('bot', 'SOUL.md', { content: 'You are kind.', position: 2 });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      agent_id: 'bot',
      name: 'SOUL.md',
      content: 'You are kind.',
      position: 2,
      cacheable: true,
      sha256: createHash('sha256').update('You are kind.').digest('hex'),
    });
    expect(created.json().token_estimate).toBeGreaterThan(0);
    const replaced = await put('bot', 'SOUL.md', {
      content: 'You are terse.',
      position: 2,
      cacheable: false,
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ content: 'You are terse.', cacheable: false });
    const read = await t.inject({ url: '/v1/agents/bot/sections/SOUL.md' });
    expect(read.json()).toMatchObject({ content: 'You are terse.' });
  });

  it('lists in prompt order (position, then name) and exports listAgentSections', async () => {
    await put('ordered', 'b', { content: 'B', position: 1 });
    await put('ordered', 'a', { content: 'A', position: 1 });
    await put('ordered', 'AGENTS.md', { content: 'rules', position: 0 });
    const list = (await t.inject({ url: '/v1/agents/ordered/sections' })).json();
    expect(list.sections.map((s: { name: string }) => s.name)).toEqual(['AGENTS.md', 'a', 'b']);
    const rows = await ctx.app.services.agentSections.listAgentSections(t.tenantId, 'ordered');
    expect(rows.map((r) => r.name)).toEqual(['AGENTS.md', 'a', 'b']);
  });

  it('deletes, then 404s', async () => {
    await put('gone', 'x', { content: 'x' });
    expect((await t.inject({ method: 'DELETE', url: '/v1/agents/gone/sections/x' })).statusCode).toBe(204);
    const missing = await t.inject({ url: '/v1/agents/gone/sections/x' });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing).code).toBe('agent_section.not_found');
    expect((await t.inject({ method: 'DELETE', url: '/v1/agents/gone/sections/x' })).statusCode).toBe(404);
  });

  it('rejects bad input with field paths', async () => {
    const empty = await put('bot', 'x', { content: '' });
    expect(empty.statusCode).toBe(400);
    expect(JSON.stringify(errorOf(empty).details)).toContain('body.content');
    const badName = await put('bot', 'bad%20name', { content: 'x' });
    expect(badName.statusCode).toBe(400);
    expect(JSON.stringify(errorOf(badName).details)).toContain('params.name');
    const badPosition = await put('bot', 'x', { content: 'x', position: 1.5 });
    expect(badPosition.statusCode).toBe(400);
  });

  it('keeps tenants apart and survives a restart', async () => {
    await put('shared-name', 'SOUL.md', { content: 'mine' });
    const other = await ctx.tenant();
    expect((await other.inject({ url: '/v1/agents/shared-name/sections/SOUL.md' })).statusCode).toBe(404);
    expect((await other.inject({ url: '/v1/agents/shared-name/sections' })).json().sections).toEqual([]);
    expect(
      (await other.inject({ method: 'DELETE', url: '/v1/agents/shared-name/sections/SOUL.md' })).statusCode,
    ).toBe(404);
    const second = await createTestApp({ testDb: ctx.testDb });
    try {
      const read = await second.app.inject({
        url: '/v1/agents/shared-name/sections/SOUL.md',
        headers: t.headers,
      });
      expect(read.json()).toMatchObject({ content: 'mine' });
    } finally {
      await second.close();
    }
  });
});

// The channel snapshot a lane without channel context attaches, read in the context call's first
// statement (ContextRepository.loadTurn, snapshot-rows.repository.ts snapshotJsonSql) instead of a
// statement of its own: the rows it carries are the separate read's, column for column, for every
// anchor of a channel with threads, reply lanes, deleted messages, placeholders and tied times; it
// is read only when the lane has no context attached, only in the session's channel, and never for
// another tenant's message; and the snapshot the channel service builds from it is the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelsRepository } from '../../src/modules/channels/channels.repository.js';
import { threadRootFor } from '../../src/modules/channels/channels.service.js';
import { replyLane } from '../../src/modules/channels/core/lanes.js';
import { createContextRepository } from '../../src/modules/context/context.repository.js';
import { lastHourWindow, DEFAULT_ADJACENT_COUNT } from '../../src/modules/channels/core/snapshot.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { ingest } from '../helpers/channel.js';

let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const CHANNEL = 'CSNAP';
/** 2026-01-01T10:00:00Z plus `minutes` (fractions keep milliseconds). */
const time = (minutes: number) =>
  new Date(Date.UTC(2026, 0, 1, 10) + Math.round(minutes * 60_000)).toISOString();

async function channelSession(tenant: TestTenant, channelId: string) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().session.id as string;
}

/** 30 top-level messages (two pairs at the same millisecond), threads with replies inside and outside the anchor's hour, a deleted message and a reply before its root (a placeholder). */
function channelEvents() {
  const events: Record<string, unknown>[] = [];
  for (let i = 0; i < 30; i += 1) {
    const minutes = i < 4 ? 2 : i * 3.0005;
    events.push({
      message_id: `m${String(i).padStart(2, '0')}`,
      ts: time(minutes),
      text: `message ${i} <b>&</b>`,
    });
  }
  for (const root of ['m05', 'm12', 'm20']) {
    const rootMinute = Number(root.slice(1)) * 3.0005;
    for (const [k, after] of [5, 40, 95].entries())
      events.push({
        message_id: `${root}r${k}`,
        thread_id: root,
        ts: time(rootMinute + after),
        text: `reply ${k} to ${root}`,
        author: { id: 'U2', name: 'Bo' },
      });
  }
  // A reply to a root that has not arrived: the root is a placeholder, never shown.
  events.push({ message_id: 'late-r0', thread_id: 'late', ts: time(50), text: 'reply before its root' });
  return events;
}

describe('snapshot read in the load statement', () => {
  it('carries the separate read, column for column, for every anchor', async () => {
    await ingest(t, CHANNEL, channelEvents());
    const deleted = await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.deleted',
            platform: 'slack',
            channel_id: CHANNEL,
            message_id: 'm17',
            ts: time(80),
          },
        ],
      },
    });
    expect(deleted.statusCode).toBe(200);
    const sessionId = await channelSession(t, CHANNEL);
    const db = ctx.deps.database.db;
    const context = createContextRepository(db);
    const channels = createChannelsRepository(db);
    const scope = { tenantId: t.tenantId, platform: 'slack', channelId: CHANNEL };

    const anchors = [
      ...Array.from({ length: 30 }, (_, i) => `m${String(i).padStart(2, '0')}`),
      'm05r1',
      'm12r2',
    ];
    const load = async (messageId: string) =>
      (await context.loadTurn({
        tenantId: t.tenantId,
        sessionId,
        anchor: { ...scope, messageId },
        snapshot: true,
        laneKey: null,
        agentId: null,
        lexemeText: null,
        laneRead: null,
      }))!;
    let compared = 0;
    for (const messageId of anchors) {
      const loaded = await load(messageId);
      if (messageId === 'm17') {
        // A deleted anchor: no snapshot is built for it, so none is read.
        expect(loaded.snapshot).toBeNull();
        continue;
      }
      expect(loaded.anchor?.messageId).toBe(messageId);
      const window = lastHourWindow(loaded.anchor!.ts);
      const separate = await channels.snapshotRows({
        ...scope,
        ts: loaded.anchor!.ts,
        messageId,
        limit: DEFAULT_ADJACENT_COUNT,
        repliesFrom: window.from,
        repliesTo: window.to,
      });
      expect(loaded.snapshot).toEqual({ ...separate, limit: DEFAULT_ADJACENT_COUNT });
      compared += loaded.snapshot!.rows.length;
    }
    // The comparisons covered real rows, replies counted in the window, and the limit.
    expect(compared).toBeGreaterThan(300);

    // The anchor's thread comes with it: the root's row and the newest replies as the thread's own
    // reads give them, with their count and oldest time when there are more than asked for.
    let threads = 0;
    for (const messageId of ['m05', 'm05r1', 'm12r2', 'm20', 'm06']) {
      for (const newest of [2, 335]) {
        const loaded = (await context.loadTurn({
          tenantId: t.tenantId,
          sessionId,
          anchor: { ...scope, messageId },
          snapshot: true,
          threadNewest: newest,
          laneKey: null,
          agentId: null,
          lexemeText: null,
          laneRead: null,
        }))!;
        const rootId = threadRootFor(loaded.anchor!);
        if (!rootId) {
          expect(loaded.thread, messageId).toBeNull();
          continue;
        }
        const [root, replies] = await Promise.all([
          channels.getRow({ ...scope, messageId: rootId }),
          channels.threadReplies({ ...scope, rootId, replyLane: replyLane(CHANNEL, rootId), newest }),
        ]);
        expect(loaded.thread, `${messageId}, ${newest}`).toEqual({ rootId, newest, root, ...replies });
        threads += 1;
      }
    }
    expect(threads).toBe(8);
    const last = await load('m29');
    expect(last.snapshot!.rows).toHaveLength(DEFAULT_ADJACENT_COUNT);
    expect(last.snapshot!.rows.map((r) => r.messageId)).not.toContain('m17');
    expect(last.snapshot!.rows.some((r) => r.repliesInWindow > 0)).toBe(true);
    expect(last.snapshot!.rows.every((r) => !r.isPlaceholder)).toBe(true);

    // The channel service builds the same snapshot from the carried rows as from its own read.
    const service = ctx.app.services.channels;
    const anchorRow = last.anchor!;
    const own = await service.loadAnchorContext({ ...scope, messageId: 'm29', anchor: anchorRow });
    const carried = await service.loadAnchorContext({
      ...scope,
      messageId: 'm29',
      anchor: anchorRow,
      snapshotRead: last.snapshot,
    });
    expect(carried).toEqual(own);
    // A read of another count is not used in its place.
    const fewer = await service.loadAnchorContext({
      ...scope,
      messageId: 'm29',
      anchor: anchorRow,
      adjacentCount: 5,
      snapshotRead: last.snapshot,
    });
    expect(fewer.snapshot.adjacent).toHaveLength(5);
  });

  it('is read only for a lane without context, in the session channel, in the caller tenant', async () => {
    await ingest(t, 'CSNAP2', [
      { message_id: 'a1', ts: time(1), text: 'first' },
      { message_id: 'a2', ts: time(2), text: 'second' },
    ]);
    await ingest(other, 'CSNAP2', [{ message_id: 'x1', ts: time(1), text: 'other tenant' }]);
    const sessionId = await channelSession(t, 'CSNAP2');
    const context = createContextRepository(ctx.deps.database.db);
    const load = (tenantId: string, messageId: string, laneKey: string | null = null, snapshot = true) =>
      context.loadTurn({
        tenantId,
        sessionId,
        anchor: { platform: 'slack', channelId: 'CSNAP2', messageId },
        snapshot,
        laneKey,
        agentId: null,
        lexemeText: null,
        laneRead: null,
      });

    expect((await load(t.tenantId, 'a2'))!.snapshot!.rows.map((r) => r.messageId)).toEqual(['a1']);
    // Not asked for; another tenant's message id in this tenant's channel.
    expect((await load(t.tenantId, 'a2', null, false))!.snapshot).toBeNull();
    expect((await load(t.tenantId, 'x1'))!.snapshot).toBeNull();
    // Another tenant cannot load this session at all.
    expect(await load(other.tenantId, 'x1')).toBeNull();

    // A call that attaches the channel context to the lane: later loads of that lane read no snapshot.
    const call = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: {
        message: {
          content: 'what was said?',
          source: { platform: 'slack', channel_id: 'CSNAP2', message_id: 'a2' },
        },
      },
    });
    expect(call.statusCode).toBe(200);
    const lane = call.json().context.lane.lane_key as string;
    const attached = (await load(t.tenantId, 'a2', lane))!;
    expect(attached.lane?.contextAttachedSeq).not.toBeNull();
    expect(attached.snapshot).toBeNull();
  });
});

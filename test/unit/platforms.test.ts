// Platform adapters with payloads shaped as the platforms document them (Slack Events API,
// Telegram Bot API Update, Discord gateway dispatch).
import { describe, expect, it } from 'vitest';
import { adaptPlatformPayload } from '../../src/platforms/index.js';
import { discordDispatchToEvents, snowflakeTime } from '../../src/platforms/discord.js';
import { slackEnvelopeToEvents, slackSignature, verifySlackSignature } from '../../src/platforms/slack.js';
import { telegramUpdateToEvents, verifyTelegramSecret } from '../../src/platforms/telegram.js';

const envelope = (event: Record<string, unknown>, eventId = 'Ev08MFMKH6') => ({
  token: 'XXYYZZ',
  team_id: 'T0001',
  api_app_id: 'A0001',
  event,
  type: 'event_callback',
  event_id: eventId,
  event_time: 1355517523,
  authorizations: [{ team_id: 'T0001', user_id: 'U0BOT', is_bot: true }],
});
const events = (result: ReturnType<typeof slackEnvelopeToEvents>) => {
  if (result.kind !== 'events') throw new Error(`expected events, got ${JSON.stringify(result)}`);
  return result.events;
};

describe('Slack', () => {
  it('answers url_verification with its challenge', () => {
    expect(
      slackEnvelopeToEvents({
        token: 'x',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
        type: 'url_verification',
      }),
    ).toEqual({
      kind: 'challenge',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
  });

  it('maps a thread reply with the event id, thread_ts and channel kind', () => {
    const [e] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          channel: 'C2147483705',
          user: 'U2147483697',
          text: 'Hello world',
          ts: '1355517523.000005',
          thread_ts: '1355517500.000001',
          channel_type: 'channel',
          event_ts: '1355517523.000005',
          user_profile: { display_name: 'spengler', real_name: 'Egon Spengler' },
        }),
      ),
    );
    expect(e).toEqual({
      type: 'message.created',
      event_id: 'Ev08MFMKH6',
      platform: 'slack',
      channel_id: 'C2147483705',
      message_id: '1355517523.000005',
      ts: '2012-12-14T20:38:43.000Z',
      author: { id: 'U2147483697', is_bot: false, name: 'spengler' },
      text: 'Hello world',
      thread_id: '1355517500.000001',
      channel: { kind: 'channel' },
    });
  });

  it('maps bot messages and file shares', () => {
    const [bot] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          subtype: 'bot_message',
          text: 'deploy done',
          ts: '1700000000.000100',
          bot_id: 'B123',
          username: 'ci-bot',
          channel: 'C1',
          channel_type: 'group',
        }),
      ),
    );
    expect(bot).toMatchObject({
      author: { id: 'B123', is_bot: true, name: 'ci-bot' },
      channel: { kind: 'group' },
    });
    const [file] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          subtype: 'file_share',
          text: 'the graph',
          user: 'U1',
          ts: '1700000001.000200',
          channel: 'C1',
          files: [
            {
              id: 'F1',
              name: 'graph.png',
              title: 'Latency graph',
              mimetype: 'image/png',
              size: 48213,
              original_w: 800,
              original_h: 600,
              url_private: 'https://files.slack.com/files-pri/T1-F1/graph.png',
            },
          ],
        }),
      ),
    );
    expect(file).toMatchObject({
      type: 'message.created',
      media: [
        {
          url: 'https://files.slack.com/files-pri/T1-F1/graph.png',
          media_type: 'image/png',
          filename: 'graph.png',
          byte_length: 48213,
          width: 800,
          height: 600,
          caption: 'Latency graph',
        },
      ],
      metadata: { slack_subtype: 'file_share' },
    });
  });

  it('maps message_changed (real edits only) and message_deleted', () => {
    const [edit] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          subtype: 'message_changed',
          hidden: true,
          channel: 'C1',
          ts: '1700000100.000300',
          event_ts: '1700000100.000300',
          message: {
            type: 'message',
            user: 'U1',
            text: 'fixed typo',
            ts: '1700000000.000100',
            edited: { user: 'U1', ts: '1700000099.000000' },
          },
          previous_message: { type: 'message', user: 'U1', text: 'fixd typo', ts: '1700000000.000100' },
        }),
      ),
    );
    expect(edit).toMatchObject({
      type: 'message.edited',
      message_id: '1700000000.000100',
      text: 'fixed typo',
      ts: '2023-11-14T22:14:59.000Z',
      message_ts: '2023-11-14T22:13:20.000Z',
    });
    const unfurl = slackEnvelopeToEvents(
      envelope({
        type: 'message',
        subtype: 'message_changed',
        channel: 'C1',
        ts: '1.1',
        message: { type: 'message', user: 'U1', text: 'x', ts: '1700000000.000100', attachments: [{}] },
      }),
    );
    expect(unfurl).toMatchObject({ kind: 'ignored' });
    const [deleted] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          subtype: 'message_deleted',
          hidden: true,
          channel: 'C1',
          ts: '1700000200.000000',
          deleted_ts: '1700000000.000100',
          event_ts: '1700000200.000000',
          previous_message: { type: 'message', user: 'U1', text: 'bye', ts: '1700000000.000100' },
        }),
      ),
    );
    expect(deleted).toMatchObject({
      type: 'message.deleted',
      message_id: '1700000000.000100',
      ts: '2023-11-14T22:16:40.000Z',
    });
  });

  it('maps reaction_added and reaction_removed on messages, ignores file reactions', () => {
    const reaction = (type: string, item: Record<string, unknown>) =>
      slackEnvelopeToEvents(
        envelope({
          type,
          user: 'U024BE7LH',
          reaction: 'thumbsup',
          item_user: 'U0G9QF9C6',
          item,
          event_ts: '1360782804.083113',
        }),
      );
    const [added] = events(
      reaction('reaction_added', { type: 'message', channel: 'C0G9QF9GZ', ts: '1360782400.498405' }),
    );
    expect(added).toEqual({
      type: 'reaction.added',
      event_id: 'Ev08MFMKH6',
      platform: 'slack',
      channel_id: 'C0G9QF9GZ',
      message_id: '1360782400.498405',
      ts: '2013-02-13T19:13:24.083Z',
      message_ts: '2013-02-13T19:06:40.498Z',
      reaction: 'thumbsup',
      user_id: 'U024BE7LH',
    });
    expect(events(reaction('reaction_removed', { type: 'message', channel: 'C1', ts: '1.5' }))[0]!.type).toBe(
      'reaction.removed',
    );
    expect(reaction('reaction_added', { type: 'file', file: 'F1' })).toMatchObject({ kind: 'ignored' });
  });

  it('ignores other subtypes, other events and junk with a reason', () => {
    expect(
      slackEnvelopeToEvents(
        envelope({ type: 'message', subtype: 'channel_join', channel: 'C1', ts: '1.0', user: 'U' }),
      ),
    ).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('channel_join') });
    expect(slackEnvelopeToEvents(envelope({ type: 'app_mention_unknown' }))).toMatchObject({
      kind: 'ignored',
    });
    for (const junk of [
      null,
      42,
      'x',
      [],
      { type: 'event_callback' },
      { type: 'event_callback', event: [] },
    ]) {
      expect(adaptPlatformPayload('slack', junk, { receivedAt: new Date() }).result.kind).toBe('ignored');
    }
  });

  it('maps app_mention as the message it is, the same event as its message event', () => {
    const mention = {
      type: 'app_mention',
      user: 'U061F7AUR',
      text: '<@U0LAN0Z89> is it everything a river should be?',
      ts: '1515449522.000016',
      channel: 'C0LAN2Q65',
      event_ts: '1515449522000016',
    };
    const [fromMention] = events(slackEnvelopeToEvents(envelope(mention, 'Ev1')));
    const [fromMessage] = events(slackEnvelopeToEvents(envelope({ ...mention, type: 'message' }, 'Ev2')));
    expect(fromMention).toEqual({ ...fromMessage, event_id: 'Ev1' });
    expect(fromMention).toMatchObject({ message_id: '1515449522.000016', type: 'message.created' });
  });

  it('falls back to previous_message.ts, to event_ts, and keeps Slack Connect file ids', () => {
    const [edit] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          subtype: 'message_changed',
          channel: 'C1',
          event_ts: '1700000100.000300',
          message: {
            type: 'message',
            user: 'U1',
            text: 'new',
            edited: { user: 'U1', ts: '1700000099.000000' },
          },
          previous_message: { type: 'message', user: 'U1', text: 'old', ts: '1700000000.000100' },
        }),
      ),
    );
    expect(edit).toMatchObject({ type: 'message.edited', message_id: '1700000000.000100', text: 'new' });
    // The documented app_mention example writes event_ts without its dot.
    const [bare] = events(
      slackEnvelopeToEvents(
        envelope({ type: 'message', channel: 'C1', user: 'U1', text: 'x', event_ts: '1700000200000400' }),
      ),
    );
    expect(bare).toMatchObject({ message_id: '1700000200.000400', ts: '2023-11-14T22:16:40.000Z' });
    const [connect] = events(
      slackEnvelopeToEvents(
        envelope({
          type: 'message',
          subtype: 'file_share',
          channel: 'C1',
          user: 'U1',
          text: '',
          ts: '1700000300.000500',
          files: [{ id: 'F07ABC', mode: 'hidden_by_limit', file_access: 'check_file_info' }],
        }),
      ),
    );
    expect(connect).toMatchObject({ text: '[file F07ABC]', media: [{ url: 'slack-file:F07ABC' }] });
  });

  it('renders blocks once: rich_text only when text is empty, other blocks unless text has them', () => {
    const richText = {
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'ship it' }] }],
    };
    const section = { type: 'section', text: { type: 'mrkdwn', text: 'ship it' } };
    const render = (event: Record<string, unknown>) =>
      events(
        slackEnvelopeToEvents(
          envelope({ type: 'message', channel: 'C1', user: 'U1', ts: '1.000001', ...event }),
        ),
      )[0]!;
    expect(render({ text: 'ship it', blocks: [richText, section] })).toMatchObject({ text: 'ship it' });
    expect(render({ text: '', blocks: [richText] })).toMatchObject({ text: 'ship it' });
    expect(render({ text: 'fallback', blocks: [section] })).toMatchObject({ text: 'fallback\n\nship it' });
  });

  it('verifies signature v0 with a 5-minute window', () => {
    const body = Buffer.from('{"type":"event_callback"}');
    const now = new Date(1_700_000_000_000);
    const ts = '1700000000';
    const signature = slackSignature('8f742231b10e8888abcd99yyyzzz85a5', ts, body);
    const ok = { secret: '8f742231b10e8888abcd99yyyzzz85a5', timestamp: ts, signature, rawBody: body, now };
    expect(verifySlackSignature(ok)).toEqual({ ok: true });
    expect(verifySlackSignature({ ...ok, rawBody: Buffer.from('{"type":"event_callback" }') }).ok).toBe(
      false,
    );
    expect(verifySlackSignature({ ...ok, secret: 'other' }).ok).toBe(false);
    expect(verifySlackSignature({ ...ok, now: new Date(now.getTime() + 301_000) })).toEqual({
      ok: false,
      reason: 'stale timestamp',
    });
    expect(verifySlackSignature({ ...ok, now: new Date(now.getTime() - 299_000) }).ok).toBe(true);
    expect(verifySlackSignature({ ...ok, signature: 'v0=abc' }).ok).toBe(false);
    expect(verifySlackSignature({ ...ok, timestamp: undefined }).ok).toBe(false);
  });
});

describe('Telegram', () => {
  const from = {
    id: 111,
    is_bot: false,
    first_name: 'Ivan',
    last_name: 'Petrov',
    username: 'ivanp',
    language_code: 'en',
  };
  const chat = { id: -1001234567890, title: 'Dev team', type: 'supergroup', is_forum: true };

  it('maps a forum topic message that replies to another message', () => {
    const result = telegramUpdateToEvents({
      update_id: 10000,
      message: {
        message_id: 1365,
        message_thread_id: 1200,
        is_topic_message: true,
        from,
        chat,
        date: 1700000000,
        text: 'Привет, мир 👋',
        reply_to_message: { message_id: 1300, from, chat, date: 1699999000, text: 'earlier' },
      },
    });
    expect(result).toEqual({
      kind: 'events',
      events: [
        {
          type: 'message.created',
          platform: 'telegram',
          channel_id: '-1001234567890',
          message_id: '1365',
          ts: '2023-11-14T22:13:20.000Z',
          author: { id: '111', is_bot: false, name: 'Ivan Petrov' },
          text: 'Привет, мир 👋',
          thread_id: '1200',
          topic_id: '1200',
          reply_to_id: '1300',
          channel: { kind: 'group', name: 'Dev team' },
        },
        {
          // The replied-to message comes whole: a copy that fills it until its own create.
          type: 'message.created',
          platform: 'telegram',
          channel_id: '-1001234567890',
          message_id: '1300',
          ts: '2023-11-14T21:56:40.000Z',
          author: { id: '111', is_bot: false, name: 'Ivan Petrov' },
          text: 'earlier',
          is_copy: true,
        },
      ],
    });
  });

  it('ignores message_thread_id outside forum topics', () => {
    const result = telegramUpdateToEvents({
      update_id: 1,
      message: {
        message_id: 5,
        message_thread_id: 3,
        from,
        chat: { id: -5, type: 'supergroup', title: 'x' },
        date: 1700000000,
        text: 'hi',
      },
    });
    expect(result.kind === 'events' && result.events[0]).not.toHaveProperty('topic_id');
  });

  it('maps photos (largest size, caption as text) and documents', () => {
    const result = telegramUpdateToEvents({
      update_id: 2,
      message: {
        message_id: 7,
        from,
        chat: { id: 42, type: 'private', first_name: 'Ivan' },
        date: 1700000000,
        caption: 'look at this',
        photo: [
          { file_id: 'AgAD-small', file_unique_id: 'a', width: 90, height: 67, file_size: 1234 },
          { file_id: 'AgAD-large', file_unique_id: 'b', width: 1280, height: 960, file_size: 98765 },
        ],
      },
    });
    expect(result).toMatchObject({
      kind: 'events',
      events: [
        {
          text: 'look at this',
          channel: { kind: 'dm' },
          media: [
            {
              url: 'telegram-file:AgAD-large',
              width: 1280,
              height: 960,
              byte_length: 98765,
              media_type: 'image/jpeg',
            },
          ],
        },
      ],
    });
    const doc = telegramUpdateToEvents({
      update_id: 3,
      message: {
        message_id: 8,
        from,
        chat,
        date: 1700000000,
        document: {
          file_id: 'BQAD',
          file_unique_id: 'c',
          file_name: 'report.pdf',
          mime_type: 'application/pdf',
          file_size: 5000,
        },
      },
    });
    expect(doc).toMatchObject({
      events: [
        {
          text: '[file: report.pdf]',
          media: [{ filename: 'report.pdf', media_type: 'application/pdf', byte_length: 5000 }],
        },
      ],
    });
  });

  it('maps edited_message with edit_date and message_reaction diffs', () => {
    const edit = telegramUpdateToEvents({
      update_id: 4,
      edited_message: { message_id: 9, from, chat, date: 1700000000, edit_date: 1700000060, text: 'fixed' },
    });
    expect(edit).toMatchObject({
      events: [
        {
          type: 'message.edited',
          event_id: 'update:4',
          ts: '2023-11-14T22:14:20.000Z',
          message_ts: '2023-11-14T22:13:20.000Z',
          text: 'fixed',
        },
      ],
    });
    const reaction = telegramUpdateToEvents({
      update_id: 5,
      message_reaction: {
        chat,
        message_id: 9,
        user: from,
        date: 1700000100,
        old_reaction: [{ type: 'emoji', emoji: '👍' }],
        new_reaction: [{ type: 'emoji', emoji: '🔥' }],
      },
    });
    expect(reaction).toMatchObject({
      events: [
        { type: 'reaction.added', reaction: '🔥', user_id: '111', message_id: '9' },
        { type: 'reaction.removed', reaction: '👍', user_id: '111' },
      ],
    });
  });

  it('ignores service messages and unknown updates with a reason', () => {
    expect(
      telegramUpdateToEvents({
        update_id: 6,
        message: { message_id: 10, from, chat, date: 1700000000, new_chat_members: [from] },
      }),
    ).toMatchObject({ kind: 'ignored' });
    expect(telegramUpdateToEvents({ update_id: 7, callback_query: { id: '1' } })).toEqual({
      kind: 'ignored',
      reason: 'unsupported Telegram update "callback_query"',
    });
  });

  it('checks the secret token in constant time', () => {
    expect(verifyTelegramSecret('s3cret', 's3cret')).toBe(true);
    expect(verifyTelegramSecret('s3cret', 's3cre')).toBe(false);
    expect(verifyTelegramSecret('s3cret', undefined)).toBe(false);
  });
});

describe('Discord', () => {
  const ctx = { receivedAt: new Date('2026-01-01T00:00:00.000Z') };
  const author = {
    id: '80351110224678912',
    username: 'nelly',
    global_name: 'Nelly',
    avatar: null,
    discriminator: '0',
  };
  const create = (d: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    discordDispatchToEvents(
      {
        op: 0,
        t: 'MESSAGE_CREATE',
        s: 42,
        d: { type: 0, tts: false, mentions: [], attachments: [], embeds: [], pinned: false, ...d },
        ...extra,
      },
      ctx,
    );

  it('maps MESSAGE_CREATE with a reply reference and attachments', () => {
    const result = create({
      id: '1180000000000000001',
      channel_id: '1170000000000000000',
      guild_id: '1160000000000000000',
      author,
      member: { nick: 'Nel', roles: [] },
      content: 'see the log',
      timestamp: '2023-11-26T10:00:00.123000+00:00',
      edited_timestamp: null,
      type: 19,
      message_reference: {
        message_id: '1179999999999999999',
        channel_id: '1170000000000000000',
        guild_id: '1160000000000000000',
      },
      attachments: [
        {
          id: '1',
          filename: 'log.txt',
          size: 2048,
          url: 'https://cdn.discordapp.com/attachments/1/2/log.txt',
          proxy_url: 'x',
          content_type: 'text/plain; charset=utf-8',
        },
      ],
    });
    expect(result).toEqual({
      kind: 'events',
      events: [
        {
          type: 'message.created',
          platform: 'discord',
          channel_id: '1170000000000000000',
          message_id: '1180000000000000001',
          ts: '2023-11-26T10:00:00.123Z',
          author: { id: '80351110224678912', is_bot: false, name: 'Nel' },
          text: 'see the log\n\n[attachment: log.txt]',
          reply_to_id: '1179999999999999999',
          media: [
            {
              url: 'https://cdn.discordapp.com/attachments/1/2/log.txt',
              media_type: 'text/plain; charset=utf-8',
              filename: 'log.txt',
              byte_length: 2048,
            },
          ],
        },
      ],
    });
  });

  it('stores a thread message under its parent channel when the parent is given', () => {
    const result = create(
      {
        id: '1180000000000000002',
        channel_id: '1175000000000000000',
        author,
        content: 'in thread',
        timestamp: '2023-11-26T10:00:00+00:00',
        guild_id: 'g',
      },
      { parent_channel_id: '1170000000000000000' },
    );
    expect(result).toMatchObject({
      events: [
        {
          channel_id: '1170000000000000000',
          thread_id: '1175000000000000000',
          topic_id: '1175000000000000000',
        },
      ],
    });
    const without = create({
      id: '1180000000000000003',
      channel_id: '1175000000000000000',
      author,
      content: 'x',
      timestamp: '2023-11-26T10:00:00+00:00',
      guild_id: 'g',
    });
    expect(without).toMatchObject({ events: [{ channel_id: '1175000000000000000' }] });
  });

  it('maps MESSAGE_UPDATE edits, ignores embed-only updates', () => {
    const edit = discordDispatchToEvents(
      {
        op: 0,
        t: 'MESSAGE_UPDATE',
        d: {
          id: '1180000000000000001',
          channel_id: 'c',
          guild_id: 'g',
          content: 'edited',
          edited_timestamp: '2023-11-26T10:05:00.000000+00:00',
          timestamp: '2023-11-26T10:00:00.123000+00:00',
          author,
        },
      },
      ctx,
    );
    expect(edit).toMatchObject({
      events: [
        {
          type: 'message.edited',
          ts: '2023-11-26T10:05:00.000Z',
          message_ts: '2023-11-26T10:00:00.123Z',
          text: 'edited',
        },
      ],
    });
    expect(
      discordDispatchToEvents(
        { op: 0, t: 'MESSAGE_UPDATE', d: { id: '1', channel_id: 'c', embeds: [{}] } },
        ctx,
      ),
    ).toMatchObject({ kind: 'ignored' });
  });

  it('maps deletes (single and bulk) with the received time', () => {
    const del = discordDispatchToEvents(
      { op: 0, t: 'MESSAGE_DELETE', d: { id: '1180000000000000001', channel_id: 'c', guild_id: 'g' } },
      ctx,
    );
    expect(del).toMatchObject({
      events: [
        {
          type: 'message.deleted',
          ts: '2026-01-01T00:00:00.000Z',
          message_ts: snowflakeTime('1180000000000000001'),
        },
      ],
    });
    const bulk = discordDispatchToEvents(
      { op: 0, t: 'MESSAGE_DELETE_BULK', d: { ids: ['1', '2'], channel_id: 'c' } },
      ctx,
    );
    expect(bulk.kind === 'events' && bulk.events.map((e) => e.message_id)).toEqual(['1', '2']);
  });

  it('maps reactions with unicode and custom emoji', () => {
    const add = discordDispatchToEvents(
      {
        op: 0,
        t: 'MESSAGE_REACTION_ADD',
        d: {
          user_id: 'u1',
          channel_id: 'c',
          message_id: '1180000000000000001',
          guild_id: 'g',
          emoji: { id: null, name: '🔥' },
          burst: false,
          type: 0,
        },
      },
      ctx,
    );
    expect(add).toMatchObject({ events: [{ type: 'reaction.added', reaction: '🔥', user_id: 'u1' }] });
    const remove = discordDispatchToEvents(
      {
        op: 0,
        t: 'MESSAGE_REACTION_REMOVE',
        d: {
          user_id: 'u1',
          channel_id: 'c',
          message_id: '1',
          emoji: { id: '41771983429993937', name: 'LUL' },
        },
      },
      ctx,
    );
    expect(remove).toMatchObject({
      events: [{ type: 'reaction.removed', reaction: '41771983429993937', reaction_name: 'LUL' }],
    });
  });

  it('derives times from snowflakes and ignores system messages and other dispatches', () => {
    expect(snowflakeTime('175928847299117063')).toBe('2016-04-30T11:18:25.796Z');
    expect(
      create({
        id: '1',
        channel_id: 'c',
        author,
        content: '',
        timestamp: '2023-11-26T10:00:00+00:00',
        type: 7,
      }),
    ).toMatchObject({ kind: 'ignored', reason: 'Discord system message type 7' });
    expect(
      discordDispatchToEvents({ op: 0, t: 'GUILD_CREATE', d: { id: 'g', channel_id: 'c' } }, ctx),
    ).toMatchObject({ kind: 'ignored' });
    expect(discordDispatchToEvents({ op: 11 }, ctx)).toMatchObject({ kind: 'ignored' });
  });
});

describe('adaptPlatformPayload', () => {
  it('drops adapted events that fail the normalized schema, with a reason', () => {
    const adapted = adaptPlatformPayload(
      'discord',
      {
        op: 0,
        t: 'MESSAGE_CREATE',
        d: {
          id: '1',
          channel_id: 'c',
          author: { id: 'u' },
          content: 'bad \ud800',
          timestamp: '2023-11-26T10:00:00+00:00',
          type: 0,
        },
      },
      { receivedAt: new Date() },
    );
    expect(adapted.result).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('text') });
  });
});

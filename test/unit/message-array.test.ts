// The load statement carries messages as json arrays (messageArraySql): their places must stay the
// MESSAGE_COLUMNS' order, and an array must map to the message its row maps to.
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import {
  MESSAGE_COLUMNS,
  MESSAGE_FIELDS,
  messageOfArray,
  toMessage,
  type MessageRow,
} from '../../src/modules/channels/channel-rows.repository.js';

describe('messages as json arrays', () => {
  it('lists MESSAGE_COLUMNS in their order', () => {
    const text = new PgDialect().sqlToQuery(MESSAGE_COLUMNS).sql;
    // Each column's output name: the alias after "as", else the column itself.
    const names = text.split(/,(?![^(]*\))/).map((part) =>
      part
        .trim()
        .split(/\s+as\s+/i)
        .pop()!
        .trim(),
    );
    expect(names).toEqual([...MESSAGE_FIELDS]);
  });

  it('maps an array as toMessage maps the row', () => {
    const row: MessageRow = {
      platform: 'slack',
      channel_id: 'C1',
      message_id: 'm1',
      thread_id: 't1',
      reply_to_id: 'r1',
      topic_id: 'p1',
      lane_key: 'thread:C1:t1',
      ts_ms: 1_700_000_000_123,
      author_id: 'U1',
      author_name: 'Ana',
      author_is_bot: true,
      text: 'hello',
      reactions: { eyes: 2 },
      media: [{ url: 'https://x' }],
      reply_count: 3,
      last_reply_ms: 1_700_000_001_000,
      edited_ms: 1_700_000_002_000,
      media_edited_ms: null,
      deleted_ms: null,
      is_placeholder: false,
      token_estimate: 7,
      metadata: { k: 'v' },
      reaction_state: null,
    };
    expect(messageOfArray(MESSAGE_FIELDS.map((f) => row[f]))).toEqual(toMessage(row));
  });
});

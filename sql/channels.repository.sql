-- ChannelsRepository.snapshotRows, limit 20
-- $1: tenantId, $2: platform, $3: channelId, $4: tenantId, $5: platform, $6: channelId, $7: repliesFrom, $8: repliesTo, $9: tenantId, $10: platform, $11: channelId, $12: repliesFrom, $13: repliesTo, $14: tenantId, $15: platform, $16: channelId, $17: ts, $18: messageId
select
  (
    select
      name
    from
      channels
    where
      tenant_id = $1
      and platform = $2
      and channel_id = $3
  ) as channel_name,
  x.*
from
  (
    select
      1
  ) as one
  left join lateral (
    select
      m.*,
      case
        when m.reply_count = 0 then 0
        else (
          select
            count(*)::int
          from
            channel_messages r
          where
            r.tenant_id = $4
            and r.platform = $5
            and r.channel_id = $6
            and r.thread_id = m.message_id
            and r.message_id <> r.thread_id
            and r.ts > to_timestamp($7 / 1000.0)
            and r.ts <= to_timestamp($8 / 1000.0)
            and not r.is_placeholder
            and r.deleted_at is null
        ) + (
          select
            count(*)::int
          from
            channel_messages r
          where
            r.tenant_id = $9
            and r.lane_key = 'reply:' || m.channel_id || ':' || m.message_id
            and r.platform = $10
            and r.channel_id = $11
            and r.thread_id is null
            and r.ts > to_timestamp($12 / 1000.0)
            and r.ts <= to_timestamp($13 / 1000.0)
            and not r.is_placeholder
            and r.deleted_at is null
        )
      end as replies_in_window
    from
      (
        select
          platform,
          channel_id,
          message_id,
          thread_id,
          reply_to_id,
          topic_id,
          lane_key,
          (
            extract(
              epoch
              from
                ts
            ) * 1000
          )::float8 as ts_ms,
          author_id,
          author_name,
          author_is_bot,
          text,
          reactions,
          media,
          reply_count,
          (
            extract(
              epoch
              from
                last_reply_ts
            ) * 1000
          )::float8 as last_reply_ms,
          (
            extract(
              epoch
              from
                edited_at
            ) * 1000
          )::float8 as edited_ms,
          (
            extract(
              epoch
              from
                media_edited_at
            ) * 1000
          )::float8 as media_edited_ms,
          (
            extract(
              epoch
              from
                deleted_at
            ) * 1000
          )::float8 as deleted_ms,
          is_placeholder,
          token_estimate,
          metadata,
          reaction_state
        from
          channel_messages
        where
          tenant_id = $14
          and platform = $15
          and channel_id = $16
          and not is_placeholder
          and deleted_at is null
          and (
            thread_id is null
            or thread_id = message_id
          )
          and (ts, message_id) < (to_timestamp($17 / 1000.0), $18)
        order by
          ts desc,
          message_id desc
        limit
          20
      ) m
  ) x on true;

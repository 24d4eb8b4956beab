-- ContextRepository.loadTurn (load_turn) {"anchor":false,"snapshot":false,"lexemes":false,"laneRead":false}
-- $1: laneKey, $2: "memories", $3: "memories", $4: "memories", $5: "memories", $6: "transcript_chunks", $7: agentId, $8: agentId, $9: agentId, $10: laneKey, $11: tenantId, $12: sessionId, $13: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    null::text,
    $1::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  null,
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  null,
  null,
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($2::text, 'tenant:'),
          (
            $3::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $4::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($5::text, 'session:' || "sessions"."session_key"),
          ($6::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($7::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($8::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($9::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      null::text,
      $10::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $11
    and "sessions"."id" = $12
  )
limit
  $13;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":false,"lexemes":false,"laneRead":false}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: "memories", $11: "memories", $12: "memories", $13: "memories", $14: "transcript_chunks", $15: agentId, $16: agentId, $17: agentId, $18: tenantId, $19: platform, $20: channelId, $21: messageId, $22: laneKey, $23: tenantId, $24: sessionId, $25: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  null,
  null,
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($10::text, 'tenant:'),
          (
            $11::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $12::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($13::text, 'session:' || "sessions"."session_key"),
          ($14::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($15::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($16::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($17::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $18
          and m.platform = $19
          and m.channel_id = $20
          and m.message_id = $21
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $22::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $23
    and "sessions"."id" = $24
  )
limit
  $25;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":true,"lexemes":false,"laneRead":false}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: messageId, $11: threadNewest, $12: threadNewest, $13: messageId, $14: "memories", $15: "memories", $16: "memories", $17: "memories", $18: "transcript_chunks", $19: agentId, $20: agentId, $21: agentId, $22: tenantId, $23: platform, $24: channelId, $25: messageId, $26: laneKey, $27: tenantId, $28: sessionId, $29: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'channel_name',
          (
            select
              name
            from
              channels
            where
              tenant_id = "sessions"."tenant_id"
              and platform = "sessions"."platform"
              and channel_id = "sessions"."channel_id"
          ),
          'rows',
          coalesce(
            (
              select
                json_agg(
                  json_build_array(
                    x.platform,
                    x.channel_id,
                    x.message_id,
                    x.thread_id,
                    x.reply_to_id,
                    x.topic_id,
                    x.lane_key,
                    x.ts_ms,
                    x.author_id,
                    x.author_name,
                    x.author_is_bot,
                    x.text,
                    x.reactions,
                    x.media,
                    x.reply_count,
                    x.last_reply_ms,
                    x.edited_ms,
                    x.media_edited_ms,
                    x.deleted_ms,
                    x.is_placeholder,
                    x.token_estimate,
                    x.metadata,
                    x.reaction_state,
                    x.replies_in_window
                  )
                  order by
                    x.ts_ms desc,
                    x.message_id desc
                )
              from
                (
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
                          r.tenant_id = "sessions"."tenant_id"
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id = m.message_id
                          and r.message_id <> r.thread_id
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
                          and not r.is_placeholder
                          and r.deleted_at is null
                      ) + (
                        select
                          count(*)::int
                        from
                          channel_messages r
                        where
                          r.tenant_id = "sessions"."tenant_id"
                          and r.lane_key = 'reply:' || m.channel_id || ':' || m.message_id
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id is null
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
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
                        tenant_id = "sessions"."tenant_id"
                        and platform = "sessions"."platform"
                        and channel_id = "sessions"."channel_id"
                        and not is_placeholder
                        and deleted_at is null
                        and (
                          thread_id is null
                          or thread_id = message_id
                        )
                        and (ts, message_id) < (anchor_row.ts, anchor_row.message_id)
                      order by
                        ts desc,
                        message_id desc
                      limit
                        20
                    ) m
                ) x
            ),
            '[]'::json
          )
        )
      from
        channel_messages anchor_row
      where
        anchor_row.tenant_id = "sessions"."tenant_id"
        and anchor_row.platform = "sessions"."platform"
        and anchor_row.channel_id = "sessions"."channel_id"
        and anchor_row.message_id = $10
        and not anchor_row.is_placeholder
        and anchor_row.deleted_at is null
    )
  end,
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'root_id',
          t.root_id,
          'root',
          (
            select
              json_build_array(
                r.platform,
                r.channel_id,
                r.message_id,
                r.thread_id,
                r.reply_to_id,
                r.topic_id,
                r.lane_key,
                r.ts_ms,
                r.author_id,
                r.author_name,
                r.author_is_bot,
                r.text,
                r.reactions,
                r.media,
                r.reply_count,
                r.last_reply_ms,
                r.edited_ms,
                r.media_edited_ms,
                r.deleted_ms,
                r.is_placeholder,
                r.token_estimate,
                r.metadata,
                r.reaction_state
              )
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
                  tenant_id = "sessions"."tenant_id"
                  and platform = "sessions"."platform"
                  and channel_id = "sessions"."channel_id"
                  and message_id = t.root_id
              ) r
          ),
          'rows',
          t.rows,
          'count',
          case
            when json_array_length(t.rows) = $11 then (
              select
                json_build_object(
                  'n',
                  count(*)::int,
                  'oldest_ms',
                  (
                    extract(
                      epoch
                      from
                        min(ts)
                    ) * 1000
                  )::float8
                )
              from
                channel_messages
              where
                tenant_id = "sessions"."tenant_id"
                and platform = "sessions"."platform"
                and channel_id = "sessions"."channel_id"
                and not is_placeholder
                and deleted_at is null
                and message_id <> t.root_id
                and (
                  thread_id = t.root_id
                  or (
                    tenant_id = "sessions"."tenant_id"
                    and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                  )
                )
            )
          end
        )
      from
        (
          select
            t.channel_id,
            t.root_id,
            coalesce(
              (
                select
                  json_agg(
                    json_build_array(
                      x.platform,
                      x.channel_id,
                      x.message_id,
                      x.thread_id,
                      x.reply_to_id,
                      x.topic_id,
                      x.lane_key,
                      x.ts_ms,
                      x.author_id,
                      x.author_name,
                      x.author_is_bot,
                      x.text,
                      x.reactions,
                      x.media,
                      x.reply_count,
                      x.last_reply_ms,
                      x.edited_ms,
                      x.media_edited_ms,
                      x.deleted_ms,
                      x.is_placeholder,
                      x.token_estimate,
                      x.metadata,
                      x.reaction_state
                    )
                  )
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
                      tenant_id = "sessions"."tenant_id"
                      and platform = "sessions"."platform"
                      and channel_id = "sessions"."channel_id"
                      and not is_placeholder
                      and deleted_at is null
                      and message_id <> t.root_id
                      and (
                        thread_id = t.root_id
                        or (
                          tenant_id = "sessions"."tenant_id"
                          and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                        )
                      )
                    order by
                      ts desc,
                      message_id desc
                    limit
                      $12
                  ) x
              ),
              '[]'::json
            ) as rows
          from
            (
              select
                a.channel_id,
                coalesce(
                  a.thread_id,
                  a.topic_id,
                  case
                    when starts_with(a.lane_key, 'reply:' || a.channel_id || ':') then substr(
                      a.lane_key,
                      length('reply:' || a.channel_id || ':') + 1
                    )
                  end,
                  case
                    when a.reply_count > 0
                    or (
                      jsonb_typeof(a.metadata -> 'platform_reply_count') = 'number'
                      and (a.metadata ->> 'platform_reply_count')::numeric > 0
                    ) then a.message_id
                  end
                ) as root_id
              from
                channel_messages a
              where
                a.tenant_id = "sessions"."tenant_id"
                and a.platform = "sessions"."platform"
                and a.channel_id = "sessions"."channel_id"
                and a.message_id = $13
                and not a.is_placeholder
                and a.deleted_at is null
            ) t
          where
            t.root_id is not null
          offset
            0
        ) t
    )
  end,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  null,
  null,
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($14::text, 'tenant:'),
          (
            $15::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $16::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($17::text, 'session:' || "sessions"."session_key"),
          ($18::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($19::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($20::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($21::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $22
          and m.platform = $23
          and m.channel_id = $24
          and m.message_id = $25
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $26::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $27
    and "sessions"."id" = $28
  )
limit
  $29;

-- ContextRepository.loadTurn (load_turn) {"anchor":false,"snapshot":false,"lexemes":true,"laneRead":false}
-- $1: laneKey, $2: lexemeText, $3: "memories", $4: "memories", $5: "memories", $6: "memories", $7: "transcript_chunks", $8: agentId, $9: agentId, $10: agentId, $11: laneKey, $12: tenantId, $13: sessionId, $14: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    null::text,
    $1::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  null,
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  (
    select
      coalesce(
        json_agg(
          u.lexeme
          order by
            u.positions[1],
            u.lexeme
        ),
        '[]'::json
      )
    from
      unnest(to_tsvector('english', $2::text)) as u (lexeme, positions, weights)
    where
      cardinality(u.positions) > 0
  ),
  null,
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($3::text, 'tenant:'),
          (
            $4::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $5::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($6::text, 'session:' || "sessions"."session_key"),
          ($7::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($8::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($9::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($10::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      null::text,
      $11::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $12
    and "sessions"."id" = $13
  )
limit
  $14;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":false,"lexemes":true,"laneRead":false}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: lexemeText, $11: "memories", $12: "memories", $13: "memories", $14: "memories", $15: "transcript_chunks", $16: agentId, $17: agentId, $18: agentId, $19: tenantId, $20: platform, $21: channelId, $22: messageId, $23: laneKey, $24: tenantId, $25: sessionId, $26: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  (
    select
      coalesce(
        json_agg(
          u.lexeme
          order by
            u.positions[1],
            u.lexeme
        ),
        '[]'::json
      )
    from
      unnest(to_tsvector('english', $10::text)) as u (lexeme, positions, weights)
    where
      cardinality(u.positions) > 0
  ),
  null,
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($11::text, 'tenant:'),
          (
            $12::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $13::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($14::text, 'session:' || "sessions"."session_key"),
          ($15::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($16::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($17::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($18::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $19
          and m.platform = $20
          and m.channel_id = $21
          and m.message_id = $22
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $23::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $24
    and "sessions"."id" = $25
  )
limit
  $26;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":true,"lexemes":true,"laneRead":false}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: messageId, $11: threadNewest, $12: threadNewest, $13: messageId, $14: lexemeText, $15: "memories", $16: "memories", $17: "memories", $18: "memories", $19: "transcript_chunks", $20: agentId, $21: agentId, $22: agentId, $23: tenantId, $24: platform, $25: channelId, $26: messageId, $27: laneKey, $28: tenantId, $29: sessionId, $30: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'channel_name',
          (
            select
              name
            from
              channels
            where
              tenant_id = "sessions"."tenant_id"
              and platform = "sessions"."platform"
              and channel_id = "sessions"."channel_id"
          ),
          'rows',
          coalesce(
            (
              select
                json_agg(
                  json_build_array(
                    x.platform,
                    x.channel_id,
                    x.message_id,
                    x.thread_id,
                    x.reply_to_id,
                    x.topic_id,
                    x.lane_key,
                    x.ts_ms,
                    x.author_id,
                    x.author_name,
                    x.author_is_bot,
                    x.text,
                    x.reactions,
                    x.media,
                    x.reply_count,
                    x.last_reply_ms,
                    x.edited_ms,
                    x.media_edited_ms,
                    x.deleted_ms,
                    x.is_placeholder,
                    x.token_estimate,
                    x.metadata,
                    x.reaction_state,
                    x.replies_in_window
                  )
                  order by
                    x.ts_ms desc,
                    x.message_id desc
                )
              from
                (
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
                          r.tenant_id = "sessions"."tenant_id"
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id = m.message_id
                          and r.message_id <> r.thread_id
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
                          and not r.is_placeholder
                          and r.deleted_at is null
                      ) + (
                        select
                          count(*)::int
                        from
                          channel_messages r
                        where
                          r.tenant_id = "sessions"."tenant_id"
                          and r.lane_key = 'reply:' || m.channel_id || ':' || m.message_id
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id is null
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
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
                        tenant_id = "sessions"."tenant_id"
                        and platform = "sessions"."platform"
                        and channel_id = "sessions"."channel_id"
                        and not is_placeholder
                        and deleted_at is null
                        and (
                          thread_id is null
                          or thread_id = message_id
                        )
                        and (ts, message_id) < (anchor_row.ts, anchor_row.message_id)
                      order by
                        ts desc,
                        message_id desc
                      limit
                        20
                    ) m
                ) x
            ),
            '[]'::json
          )
        )
      from
        channel_messages anchor_row
      where
        anchor_row.tenant_id = "sessions"."tenant_id"
        and anchor_row.platform = "sessions"."platform"
        and anchor_row.channel_id = "sessions"."channel_id"
        and anchor_row.message_id = $10
        and not anchor_row.is_placeholder
        and anchor_row.deleted_at is null
    )
  end,
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'root_id',
          t.root_id,
          'root',
          (
            select
              json_build_array(
                r.platform,
                r.channel_id,
                r.message_id,
                r.thread_id,
                r.reply_to_id,
                r.topic_id,
                r.lane_key,
                r.ts_ms,
                r.author_id,
                r.author_name,
                r.author_is_bot,
                r.text,
                r.reactions,
                r.media,
                r.reply_count,
                r.last_reply_ms,
                r.edited_ms,
                r.media_edited_ms,
                r.deleted_ms,
                r.is_placeholder,
                r.token_estimate,
                r.metadata,
                r.reaction_state
              )
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
                  tenant_id = "sessions"."tenant_id"
                  and platform = "sessions"."platform"
                  and channel_id = "sessions"."channel_id"
                  and message_id = t.root_id
              ) r
          ),
          'rows',
          t.rows,
          'count',
          case
            when json_array_length(t.rows) = $11 then (
              select
                json_build_object(
                  'n',
                  count(*)::int,
                  'oldest_ms',
                  (
                    extract(
                      epoch
                      from
                        min(ts)
                    ) * 1000
                  )::float8
                )
              from
                channel_messages
              where
                tenant_id = "sessions"."tenant_id"
                and platform = "sessions"."platform"
                and channel_id = "sessions"."channel_id"
                and not is_placeholder
                and deleted_at is null
                and message_id <> t.root_id
                and (
                  thread_id = t.root_id
                  or (
                    tenant_id = "sessions"."tenant_id"
                    and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                  )
                )
            )
          end
        )
      from
        (
          select
            t.channel_id,
            t.root_id,
            coalesce(
              (
                select
                  json_agg(
                    json_build_array(
                      x.platform,
                      x.channel_id,
                      x.message_id,
                      x.thread_id,
                      x.reply_to_id,
                      x.topic_id,
                      x.lane_key,
                      x.ts_ms,
                      x.author_id,
                      x.author_name,
                      x.author_is_bot,
                      x.text,
                      x.reactions,
                      x.media,
                      x.reply_count,
                      x.last_reply_ms,
                      x.edited_ms,
                      x.media_edited_ms,
                      x.deleted_ms,
                      x.is_placeholder,
                      x.token_estimate,
                      x.metadata,
                      x.reaction_state
                    )
                  )
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
                      tenant_id = "sessions"."tenant_id"
                      and platform = "sessions"."platform"
                      and channel_id = "sessions"."channel_id"
                      and not is_placeholder
                      and deleted_at is null
                      and message_id <> t.root_id
                      and (
                        thread_id = t.root_id
                        or (
                          tenant_id = "sessions"."tenant_id"
                          and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                        )
                      )
                    order by
                      ts desc,
                      message_id desc
                    limit
                      $12
                  ) x
              ),
              '[]'::json
            ) as rows
          from
            (
              select
                a.channel_id,
                coalesce(
                  a.thread_id,
                  a.topic_id,
                  case
                    when starts_with(a.lane_key, 'reply:' || a.channel_id || ':') then substr(
                      a.lane_key,
                      length('reply:' || a.channel_id || ':') + 1
                    )
                  end,
                  case
                    when a.reply_count > 0
                    or (
                      jsonb_typeof(a.metadata -> 'platform_reply_count') = 'number'
                      and (a.metadata ->> 'platform_reply_count')::numeric > 0
                    ) then a.message_id
                  end
                ) as root_id
              from
                channel_messages a
              where
                a.tenant_id = "sessions"."tenant_id"
                and a.platform = "sessions"."platform"
                and a.channel_id = "sessions"."channel_id"
                and a.message_id = $13
                and not a.is_placeholder
                and a.deleted_at is null
            ) t
          where
            t.root_id is not null
          offset
            0
        ) t
    )
  end,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  (
    select
      coalesce(
        json_agg(
          u.lexeme
          order by
            u.positions[1],
            u.lexeme
        ),
        '[]'::json
      )
    from
      unnest(to_tsvector('english', $14::text)) as u (lexeme, positions, weights)
    where
      cardinality(u.positions) > 0
  ),
  null,
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($15::text, 'tenant:'),
          (
            $16::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $17::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($18::text, 'session:' || "sessions"."session_key"),
          ($19::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($20::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($21::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($22::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $23
          and m.platform = $24
          and m.channel_id = $25
          and m.message_id = $26
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $27::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $28
    and "sessions"."id" = $29
  )
limit
  $30;

-- ContextRepository.loadTurn (load_turn) {"anchor":false,"snapshot":false,"lexemes":false,"laneRead":true}
-- $1: laneKey, $2: readLaneKey, $3: readFrom, $4: "memories", $5: "memories", $6: "memories", $7: "memories", $8: "transcript_chunks", $9: agentId, $10: agentId, $11: agentId, $12: laneKey, $13: tenantId, $14: sessionId, $15: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    null::text,
    $1::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  null,
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  null,
  coalesce(
    (
      select
        json_agg(
          e
          order by
            e.seq
        )
      from
        transcript_entries e
      where
        tenant_id = "sessions"."tenant_id"
        and session_id = "sessions"."id"
        and lane_key = $2
        and seq >= $3
    ),
    '[]'::json
  ),
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($4::text, 'tenant:'),
          (
            $5::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $6::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($7::text, 'session:' || "sessions"."session_key"),
          ($8::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($9::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($10::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($11::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      null::text,
      $12::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $13
    and "sessions"."id" = $14
  )
limit
  $15;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":false,"lexemes":false,"laneRead":true}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: readLaneKey, $11: readFrom, $12: "memories", $13: "memories", $14: "memories", $15: "memories", $16: "transcript_chunks", $17: agentId, $18: agentId, $19: agentId, $20: tenantId, $21: platform, $22: channelId, $23: messageId, $24: laneKey, $25: tenantId, $26: sessionId, $27: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  null,
  coalesce(
    (
      select
        json_agg(
          e
          order by
            e.seq
        )
      from
        transcript_entries e
      where
        tenant_id = "sessions"."tenant_id"
        and session_id = "sessions"."id"
        and lane_key = $10
        and seq >= $11
    ),
    '[]'::json
  ),
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($12::text, 'tenant:'),
          (
            $13::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $14::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($15::text, 'session:' || "sessions"."session_key"),
          ($16::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($17::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($18::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($19::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $20
          and m.platform = $21
          and m.channel_id = $22
          and m.message_id = $23
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $24::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $25
    and "sessions"."id" = $26
  )
limit
  $27;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":true,"lexemes":false,"laneRead":true}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: messageId, $11: threadNewest, $12: threadNewest, $13: messageId, $14: readLaneKey, $15: readFrom, $16: "memories", $17: "memories", $18: "memories", $19: "memories", $20: "transcript_chunks", $21: agentId, $22: agentId, $23: agentId, $24: tenantId, $25: platform, $26: channelId, $27: messageId, $28: laneKey, $29: tenantId, $30: sessionId, $31: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'channel_name',
          (
            select
              name
            from
              channels
            where
              tenant_id = "sessions"."tenant_id"
              and platform = "sessions"."platform"
              and channel_id = "sessions"."channel_id"
          ),
          'rows',
          coalesce(
            (
              select
                json_agg(
                  json_build_array(
                    x.platform,
                    x.channel_id,
                    x.message_id,
                    x.thread_id,
                    x.reply_to_id,
                    x.topic_id,
                    x.lane_key,
                    x.ts_ms,
                    x.author_id,
                    x.author_name,
                    x.author_is_bot,
                    x.text,
                    x.reactions,
                    x.media,
                    x.reply_count,
                    x.last_reply_ms,
                    x.edited_ms,
                    x.media_edited_ms,
                    x.deleted_ms,
                    x.is_placeholder,
                    x.token_estimate,
                    x.metadata,
                    x.reaction_state,
                    x.replies_in_window
                  )
                  order by
                    x.ts_ms desc,
                    x.message_id desc
                )
              from
                (
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
                          r.tenant_id = "sessions"."tenant_id"
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id = m.message_id
                          and r.message_id <> r.thread_id
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
                          and not r.is_placeholder
                          and r.deleted_at is null
                      ) + (
                        select
                          count(*)::int
                        from
                          channel_messages r
                        where
                          r.tenant_id = "sessions"."tenant_id"
                          and r.lane_key = 'reply:' || m.channel_id || ':' || m.message_id
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id is null
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
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
                        tenant_id = "sessions"."tenant_id"
                        and platform = "sessions"."platform"
                        and channel_id = "sessions"."channel_id"
                        and not is_placeholder
                        and deleted_at is null
                        and (
                          thread_id is null
                          or thread_id = message_id
                        )
                        and (ts, message_id) < (anchor_row.ts, anchor_row.message_id)
                      order by
                        ts desc,
                        message_id desc
                      limit
                        20
                    ) m
                ) x
            ),
            '[]'::json
          )
        )
      from
        channel_messages anchor_row
      where
        anchor_row.tenant_id = "sessions"."tenant_id"
        and anchor_row.platform = "sessions"."platform"
        and anchor_row.channel_id = "sessions"."channel_id"
        and anchor_row.message_id = $10
        and not anchor_row.is_placeholder
        and anchor_row.deleted_at is null
    )
  end,
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'root_id',
          t.root_id,
          'root',
          (
            select
              json_build_array(
                r.platform,
                r.channel_id,
                r.message_id,
                r.thread_id,
                r.reply_to_id,
                r.topic_id,
                r.lane_key,
                r.ts_ms,
                r.author_id,
                r.author_name,
                r.author_is_bot,
                r.text,
                r.reactions,
                r.media,
                r.reply_count,
                r.last_reply_ms,
                r.edited_ms,
                r.media_edited_ms,
                r.deleted_ms,
                r.is_placeholder,
                r.token_estimate,
                r.metadata,
                r.reaction_state
              )
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
                  tenant_id = "sessions"."tenant_id"
                  and platform = "sessions"."platform"
                  and channel_id = "sessions"."channel_id"
                  and message_id = t.root_id
              ) r
          ),
          'rows',
          t.rows,
          'count',
          case
            when json_array_length(t.rows) = $11 then (
              select
                json_build_object(
                  'n',
                  count(*)::int,
                  'oldest_ms',
                  (
                    extract(
                      epoch
                      from
                        min(ts)
                    ) * 1000
                  )::float8
                )
              from
                channel_messages
              where
                tenant_id = "sessions"."tenant_id"
                and platform = "sessions"."platform"
                and channel_id = "sessions"."channel_id"
                and not is_placeholder
                and deleted_at is null
                and message_id <> t.root_id
                and (
                  thread_id = t.root_id
                  or (
                    tenant_id = "sessions"."tenant_id"
                    and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                  )
                )
            )
          end
        )
      from
        (
          select
            t.channel_id,
            t.root_id,
            coalesce(
              (
                select
                  json_agg(
                    json_build_array(
                      x.platform,
                      x.channel_id,
                      x.message_id,
                      x.thread_id,
                      x.reply_to_id,
                      x.topic_id,
                      x.lane_key,
                      x.ts_ms,
                      x.author_id,
                      x.author_name,
                      x.author_is_bot,
                      x.text,
                      x.reactions,
                      x.media,
                      x.reply_count,
                      x.last_reply_ms,
                      x.edited_ms,
                      x.media_edited_ms,
                      x.deleted_ms,
                      x.is_placeholder,
                      x.token_estimate,
                      x.metadata,
                      x.reaction_state
                    )
                  )
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
                      tenant_id = "sessions"."tenant_id"
                      and platform = "sessions"."platform"
                      and channel_id = "sessions"."channel_id"
                      and not is_placeholder
                      and deleted_at is null
                      and message_id <> t.root_id
                      and (
                        thread_id = t.root_id
                        or (
                          tenant_id = "sessions"."tenant_id"
                          and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                        )
                      )
                    order by
                      ts desc,
                      message_id desc
                    limit
                      $12
                  ) x
              ),
              '[]'::json
            ) as rows
          from
            (
              select
                a.channel_id,
                coalesce(
                  a.thread_id,
                  a.topic_id,
                  case
                    when starts_with(a.lane_key, 'reply:' || a.channel_id || ':') then substr(
                      a.lane_key,
                      length('reply:' || a.channel_id || ':') + 1
                    )
                  end,
                  case
                    when a.reply_count > 0
                    or (
                      jsonb_typeof(a.metadata -> 'platform_reply_count') = 'number'
                      and (a.metadata ->> 'platform_reply_count')::numeric > 0
                    ) then a.message_id
                  end
                ) as root_id
              from
                channel_messages a
              where
                a.tenant_id = "sessions"."tenant_id"
                and a.platform = "sessions"."platform"
                and a.channel_id = "sessions"."channel_id"
                and a.message_id = $13
                and not a.is_placeholder
                and a.deleted_at is null
            ) t
          where
            t.root_id is not null
          offset
            0
        ) t
    )
  end,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  null,
  coalesce(
    (
      select
        json_agg(
          e
          order by
            e.seq
        )
      from
        transcript_entries e
      where
        tenant_id = "sessions"."tenant_id"
        and session_id = "sessions"."id"
        and lane_key = $14
        and seq >= $15
    ),
    '[]'::json
  ),
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($16::text, 'tenant:'),
          (
            $17::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $18::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($19::text, 'session:' || "sessions"."session_key"),
          ($20::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($21::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($22::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($23::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $24
          and m.platform = $25
          and m.channel_id = $26
          and m.message_id = $27
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $28::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $29
    and "sessions"."id" = $30
  )
limit
  $31;

-- ContextRepository.loadTurn (load_turn) {"anchor":false,"snapshot":false,"lexemes":true,"laneRead":true}
-- $1: laneKey, $2: lexemeText, $3: readLaneKey, $4: readFrom, $5: "memories", $6: "memories", $7: "memories", $8: "memories", $9: "transcript_chunks", $10: agentId, $11: agentId, $12: agentId, $13: laneKey, $14: tenantId, $15: sessionId, $16: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    null::text,
    $1::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  null,
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  (
    select
      coalesce(
        json_agg(
          u.lexeme
          order by
            u.positions[1],
            u.lexeme
        ),
        '[]'::json
      )
    from
      unnest(to_tsvector('english', $2::text)) as u (lexeme, positions, weights)
    where
      cardinality(u.positions) > 0
  ),
  coalesce(
    (
      select
        json_agg(
          e
          order by
            e.seq
        )
      from
        transcript_entries e
      where
        tenant_id = "sessions"."tenant_id"
        and session_id = "sessions"."id"
        and lane_key = $3
        and seq >= $4
    ),
    '[]'::json
  ),
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($5::text, 'tenant:'),
          (
            $6::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $7::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($8::text, 'session:' || "sessions"."session_key"),
          ($9::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($10::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($11::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($12::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      null::text,
      $13::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $14
    and "sessions"."id" = $15
  )
limit
  $16;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":false,"lexemes":true,"laneRead":true}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: lexemeText, $11: readLaneKey, $12: readFrom, $13: "memories", $14: "memories", $15: "memories", $16: "memories", $17: "transcript_chunks", $18: agentId, $19: agentId, $20: agentId, $21: tenantId, $22: platform, $23: channelId, $24: messageId, $25: laneKey, $26: tenantId, $27: sessionId, $28: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  null,
  null,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  (
    select
      coalesce(
        json_agg(
          u.lexeme
          order by
            u.positions[1],
            u.lexeme
        ),
        '[]'::json
      )
    from
      unnest(to_tsvector('english', $10::text)) as u (lexeme, positions, weights)
    where
      cardinality(u.positions) > 0
  ),
  coalesce(
    (
      select
        json_agg(
          e
          order by
            e.seq
        )
      from
        transcript_entries e
      where
        tenant_id = "sessions"."tenant_id"
        and session_id = "sessions"."id"
        and lane_key = $11
        and seq >= $12
    ),
    '[]'::json
  ),
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($13::text, 'tenant:'),
          (
            $14::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $15::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($16::text, 'session:' || "sessions"."session_key"),
          ($17::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($18::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($19::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($20::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $21
          and m.platform = $22
          and m.channel_id = $23
          and m.message_id = $24
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $25::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $26
    and "sessions"."id" = $27
  )
limit
  $28;

-- ContextRepository.loadTurn (load_turn) {"anchor":true,"snapshot":true,"lexemes":true,"laneRead":true}
-- $1: tenantId, $2: platform, $3: channelId, $4: messageId, $5: laneKey, $6: tenantId, $7: platform, $8: channelId, $9: messageId, $10: messageId, $11: threadNewest, $12: threadNewest, $13: messageId, $14: lexemeText, $15: readLaneKey, $16: readFrom, $17: "memories", $18: "memories", $19: "memories", $20: "memories", $21: "transcript_chunks", $22: agentId, $23: agentId, $24: agentId, $25: tenantId, $26: platform, $27: channelId, $28: messageId, $29: laneKey, $30: tenantId, $31: sessionId, $32: 1
select
  "sessions"."tenant_id",
  "sessions"."id",
  "sessions"."session_key",
  "sessions"."agent_id",
  "sessions"."platform",
  "sessions"."channel_id",
  "sessions"."user_id",
  "sessions"."chat_type",
  "sessions"."created_at",
  "sessions"."updated_at",
  "sessions"."last_turn_at",
  "sessions"."ended_at",
  "sessions"."turn_count",
  "sessions"."compaction_count",
  "sessions"."total_tokens",
  "sessions"."next_seq",
  "sessions"."entries_removed",
  "sessions"."reset_from",
  "sessions"."calibration",
  "sessions"."prompt_cache",
  "sessions"."cost_totals",
  "sessions"."turn_state",
  "sessions"."metadata",
  coalesce(
    (
      select
        m.lane_key
      from
        channel_messages m
      where
        m.tenant_id = $1
        and m.platform = $2
        and m.channel_id = $3
        and m.message_id = $4
        and not m.is_placeholder
        and m.deleted_at is null
    ),
    $5::text,
    "sessions"."turn_state" ->> 'last_lane_key',
    case
      when "sessions"."channel_id" is null then 'root:session'
      else 'root:' || "sessions"."channel_id"
    end
  ),
  "lane_states"."tenant_id",
  "lane_states"."session_id",
  "lane_states"."lane_key",
  "lane_states"."summary",
  "lane_states"."summary_version",
  "lane_states"."summary_updated_at",
  "lane_states"."summary_stale",
  "lane_states"."first_kept_seq",
  "lane_states"."summarized_through_seq",
  "lane_states"."cleared_before_seq",
  "lane_states"."purge_texts",
  "lane_states"."scrub_texts",
  "lane_states"."version",
  "lane_states"."context_attached_version",
  "lane_states"."context_attached_seq",
  "lane_states"."pending_slot",
  "lane_states"."updated_at",
  (
    select
      json_build_array(
        a.platform,
        a.channel_id,
        a.message_id,
        a.thread_id,
        a.reply_to_id,
        a.topic_id,
        a.lane_key,
        a.ts_ms,
        a.author_id,
        a.author_name,
        a.author_is_bot,
        a.text,
        a.reactions,
        a.media,
        a.reply_count,
        a.last_reply_ms,
        a.edited_ms,
        a.media_edited_ms,
        a.deleted_ms,
        a.is_placeholder,
        a.token_estimate,
        a.metadata,
        a.reaction_state
      )
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
          tenant_id = $6
          and platform = $7
          and channel_id = $8
          and message_id = $9
          and not is_placeholder
      ) a
  ),
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'channel_name',
          (
            select
              name
            from
              channels
            where
              tenant_id = "sessions"."tenant_id"
              and platform = "sessions"."platform"
              and channel_id = "sessions"."channel_id"
          ),
          'rows',
          coalesce(
            (
              select
                json_agg(
                  json_build_array(
                    x.platform,
                    x.channel_id,
                    x.message_id,
                    x.thread_id,
                    x.reply_to_id,
                    x.topic_id,
                    x.lane_key,
                    x.ts_ms,
                    x.author_id,
                    x.author_name,
                    x.author_is_bot,
                    x.text,
                    x.reactions,
                    x.media,
                    x.reply_count,
                    x.last_reply_ms,
                    x.edited_ms,
                    x.media_edited_ms,
                    x.deleted_ms,
                    x.is_placeholder,
                    x.token_estimate,
                    x.metadata,
                    x.reaction_state,
                    x.replies_in_window
                  )
                  order by
                    x.ts_ms desc,
                    x.message_id desc
                )
              from
                (
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
                          r.tenant_id = "sessions"."tenant_id"
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id = m.message_id
                          and r.message_id <> r.thread_id
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
                          and not r.is_placeholder
                          and r.deleted_at is null
                      ) + (
                        select
                          count(*)::int
                        from
                          channel_messages r
                        where
                          r.tenant_id = "sessions"."tenant_id"
                          and r.lane_key = 'reply:' || m.channel_id || ':' || m.message_id
                          and r.platform = "sessions"."platform"
                          and r.channel_id = "sessions"."channel_id"
                          and r.thread_id is null
                          and r.ts > anchor_row.ts - interval '1 hour'
                          and r.ts <= anchor_row.ts
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
                        tenant_id = "sessions"."tenant_id"
                        and platform = "sessions"."platform"
                        and channel_id = "sessions"."channel_id"
                        and not is_placeholder
                        and deleted_at is null
                        and (
                          thread_id is null
                          or thread_id = message_id
                        )
                        and (ts, message_id) < (anchor_row.ts, anchor_row.message_id)
                      order by
                        ts desc,
                        message_id desc
                      limit
                        20
                    ) m
                ) x
            ),
            '[]'::json
          )
        )
      from
        channel_messages anchor_row
      where
        anchor_row.tenant_id = "sessions"."tenant_id"
        and anchor_row.platform = "sessions"."platform"
        and anchor_row.channel_id = "sessions"."channel_id"
        and anchor_row.message_id = $10
        and not anchor_row.is_placeholder
        and anchor_row.deleted_at is null
    )
  end,
  case
    when "lane_states"."context_attached_seq" is null
    and "sessions"."platform" is not null
    and "sessions"."channel_id" is not null then (
      select
        json_build_object(
          'root_id',
          t.root_id,
          'root',
          (
            select
              json_build_array(
                r.platform,
                r.channel_id,
                r.message_id,
                r.thread_id,
                r.reply_to_id,
                r.topic_id,
                r.lane_key,
                r.ts_ms,
                r.author_id,
                r.author_name,
                r.author_is_bot,
                r.text,
                r.reactions,
                r.media,
                r.reply_count,
                r.last_reply_ms,
                r.edited_ms,
                r.media_edited_ms,
                r.deleted_ms,
                r.is_placeholder,
                r.token_estimate,
                r.metadata,
                r.reaction_state
              )
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
                  tenant_id = "sessions"."tenant_id"
                  and platform = "sessions"."platform"
                  and channel_id = "sessions"."channel_id"
                  and message_id = t.root_id
              ) r
          ),
          'rows',
          t.rows,
          'count',
          case
            when json_array_length(t.rows) = $11 then (
              select
                json_build_object(
                  'n',
                  count(*)::int,
                  'oldest_ms',
                  (
                    extract(
                      epoch
                      from
                        min(ts)
                    ) * 1000
                  )::float8
                )
              from
                channel_messages
              where
                tenant_id = "sessions"."tenant_id"
                and platform = "sessions"."platform"
                and channel_id = "sessions"."channel_id"
                and not is_placeholder
                and deleted_at is null
                and message_id <> t.root_id
                and (
                  thread_id = t.root_id
                  or (
                    tenant_id = "sessions"."tenant_id"
                    and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                  )
                )
            )
          end
        )
      from
        (
          select
            t.channel_id,
            t.root_id,
            coalesce(
              (
                select
                  json_agg(
                    json_build_array(
                      x.platform,
                      x.channel_id,
                      x.message_id,
                      x.thread_id,
                      x.reply_to_id,
                      x.topic_id,
                      x.lane_key,
                      x.ts_ms,
                      x.author_id,
                      x.author_name,
                      x.author_is_bot,
                      x.text,
                      x.reactions,
                      x.media,
                      x.reply_count,
                      x.last_reply_ms,
                      x.edited_ms,
                      x.media_edited_ms,
                      x.deleted_ms,
                      x.is_placeholder,
                      x.token_estimate,
                      x.metadata,
                      x.reaction_state
                    )
                  )
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
                      tenant_id = "sessions"."tenant_id"
                      and platform = "sessions"."platform"
                      and channel_id = "sessions"."channel_id"
                      and not is_placeholder
                      and deleted_at is null
                      and message_id <> t.root_id
                      and (
                        thread_id = t.root_id
                        or (
                          tenant_id = "sessions"."tenant_id"
                          and lane_key = 'reply:' || t.channel_id || ':' || t.root_id
                        )
                      )
                    order by
                      ts desc,
                      message_id desc
                    limit
                      $12
                  ) x
              ),
              '[]'::json
            ) as rows
          from
            (
              select
                a.channel_id,
                coalesce(
                  a.thread_id,
                  a.topic_id,
                  case
                    when starts_with(a.lane_key, 'reply:' || a.channel_id || ':') then substr(
                      a.lane_key,
                      length('reply:' || a.channel_id || ':') + 1
                    )
                  end,
                  case
                    when a.reply_count > 0
                    or (
                      jsonb_typeof(a.metadata -> 'platform_reply_count') = 'number'
                      and (a.metadata ->> 'platform_reply_count')::numeric > 0
                    ) then a.message_id
                  end
                ) as root_id
              from
                channel_messages a
              where
                a.tenant_id = "sessions"."tenant_id"
                and a.platform = "sessions"."platform"
                and a.channel_id = "sessions"."channel_id"
                and a.message_id = $13
                and not a.is_placeholder
                and a.deleted_at is null
            ) t
          where
            t.root_id is not null
          offset
            0
        ) t
    )
  end,
  (
    select
      (c.budget ->> 'percentage')::float8
    from
      context_log c
    where
      c.tenant_id = "sessions"."tenant_id"
      and c.session_id = "sessions"."id"
    order by
      c.turn_seq desc
    limit
      1
  ),
  exists (
    select
      1
    from
      blob_owners o
      join blobs b on b.tenant_id = o.tenant_id
      and b.artifact_id = o.artifact_id
    where
      o.tenant_id = "sessions"."tenant_id"
      and o.session_id = "sessions"."id"
      and b.kind = 'tool_result'
  ),
  exists (
    select
      1
    from
      sessions s2
    where
      s2.tenant_id = "sessions"."tenant_id"
      and s2.session_key = "sessions"."session_key"
      and s2.id <> "sessions"."id"
  ),
  (
    select
      coalesce(
        json_agg(
          u.lexeme
          order by
            u.positions[1],
            u.lexeme
        ),
        '[]'::json
      )
    from
      unnest(to_tsvector('english', $14::text)) as u (lexeme, positions, weights)
    where
      cardinality(u.positions) > 0
  ),
  coalesce(
    (
      select
        json_agg(
          e
          order by
            e.seq
        )
      from
        transcript_entries e
      where
        tenant_id = "sessions"."tenant_id"
        and session_id = "sessions"."id"
        and lane_key = $15
        and seq >= $16
    ),
    '[]'::json
  ),
  (
    select
      coalesce(
        json_object_agg(
          k.source || ' ' || k.key,
          coalesce(
            (
              select
                v.version
              from
                search_versions v
              where
                v.tenant_id = "sessions"."tenant_id"
                and v.source = k.source
                and v.scope_key = k.key
            ),
            0
          )
        ),
        '{}'::json
      )
    from
      (
        values
          ($17::text, 'tenant:'),
          (
            $18::text,
            'channel:' || "sessions"."platform" || ':' || "sessions"."channel_id"
          ),
          (
            $19::text,
            'user:' || "sessions"."platform" || ':' || "sessions"."user_id"
          ),
          ($20::text, 'session:' || "sessions"."session_key"),
          ($21::text, "sessions"."session_key")
      ) as k (source, key)
    where
      k.key is not null
  ),
  case
    when coalesce($22::text, "sessions"."agent_id") is null then null
    else json_build_object(
      'history_turns',
      (
        select
          st.history_turns
        from
          agent_settings st
        where
          st.tenant_id = "sessions"."tenant_id"
          and st.agent_id = coalesce($23::text, "sessions"."agent_id")
      ),
      'sections',
      coalesce(
        (
          select
            json_agg(
              json_build_object(
                'name',
                a.name,
                'content',
                a.content,
                'cacheable',
                a.cacheable
              )
              order by
                a.position,
                a.name
            )
          from
            agent_sections a
          where
            a.tenant_id = "sessions"."tenant_id"
            and a.agent_id = coalesce($24::text, "sessions"."agent_id")
        ),
        '[]'::json
      )
    )
  end
from
  "sessions"
  left join "lane_states" on (
    "lane_states"."tenant_id" = "sessions"."tenant_id"
    and "lane_states"."session_id" = "sessions"."id"
    and "lane_states"."lane_key" = coalesce(
      (
        select
          m.lane_key
        from
          channel_messages m
        where
          m.tenant_id = $25
          and m.platform = $26
          and m.channel_id = $27
          and m.message_id = $28
          and not m.is_placeholder
          and m.deleted_at is null
      ),
      $29::text,
      "sessions"."turn_state" ->> 'last_lane_key',
      case
        when "sessions"."channel_id" is null then 'root:session'
        else 'root:' || "sessions"."channel_id"
      end
    )
  )
where
  (
    "sessions"."tenant_id" = $30
    and "sessions"."id" = $31
  )
limit
  $32;

-- SearchRepository.matchCandidates memories {"filters":["scopes"],"newest":false,"fallback":false}
-- $1: weights, $2: tenantId, $3: now, $4: filter_scope_0, $5: filter_scope_key_0, $6: filter_scope_1, $7: filter_scope_key_1, $8: filter_scope_2, $9: filter_scope_key_2, $10: filter_scope_3, $11: filter_scope_key_3, $12: match, $13: scanLimit, $14: k1, $15: b, $16: b, $17: averageLength, $18: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      memories d
    where
      (d.tenant_id || '') = $2
      and (
        d.expires_at is null
        or d.expires_at > $3::timestamptz
      )
      and (
        (
          d.scope = $4
          and d.scope_key = $5
        )
        or (
          d.scope = $6
          and d.scope_key = $7
        )
        or (
          d.scope = $8
          and d.scope_key = $9
        )
        or (
          d.scope = $10
          and d.scope_key = $11
        )
      )
      and d.tsv @@ $12::tsquery
    limit
      $13
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $14::float8 * (
          1 - $15::float8 + $16::float8 * length(h.tsv) / $17::float8
        )
      ) desc,
      h.rid
    limit
      $18
  ),
  docs as (
    select
      *
    from
      firsts
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      d.id::text as id,
      d.text,
      d.tsv,
      d.updated_at as time,
      (d.metadata ->> 'lane_key') as lane_key,
      json_build_object(
        'type',
        d.type,
        'scope',
        d.scope,
        'scope_key',
        d.scope_key,
        'source',
        d.source,
        'metadata',
        d.metadata,
        'created_at',
        d.created_at,
        'expires_at',
        d.expires_at
      ) as extra
    from
      memories d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates memories {"filters":["scopes"],"newest":false,"fallback":true}
-- $1: weights, $2: tenantId, $3: now, $4: filter_scope_0, $5: filter_scope_key_0, $6: filter_scope_1, $7: filter_scope_key_1, $8: filter_scope_2, $9: filter_scope_key_2, $10: filter_scope_3, $11: filter_scope_key_3, $12: match, $13: scanLimit, $14: k1, $15: b, $16: b, $17: averageLength, $18: keep, $19: tenantId, $20: now, $21: filter_scope_0, $22: filter_scope_key_0, $23: filter_scope_1, $24: filter_scope_key_1, $25: filter_scope_2, $26: filter_scope_key_2, $27: filter_scope_3, $28: filter_scope_key_3, $29: fallbackMatch, $30: fallbackBelow, $31: fallbackScanLimit, $32: k1, $33: b, $34: b, $35: averageLength, $36: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      memories d
    where
      (d.tenant_id || '') = $2
      and (
        d.expires_at is null
        or d.expires_at > $3::timestamptz
      )
      and (
        (
          d.scope = $4
          and d.scope_key = $5
        )
        or (
          d.scope = $6
          and d.scope_key = $7
        )
        or (
          d.scope = $8
          and d.scope_key = $9
        )
        or (
          d.scope = $10
          and d.scope_key = $11
        )
      )
      and d.tsv @@ $12::tsquery
    limit
      $13
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $14::float8 * (
          1 - $15::float8 + $16::float8 * length(h.tsv) / $17::float8
        )
      ) desc,
      h.rid
    limit
      $18
  ),
  more as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      memories d
    where
      (d.tenant_id || '') = $19
      and (
        d.expires_at is null
        or d.expires_at > $20::timestamptz
      )
      and (
        (
          d.scope = $21
          and d.scope_key = $22
        )
        or (
          d.scope = $23
          and d.scope_key = $24
        )
        or (
          d.scope = $25
          and d.scope_key = $26
        )
        or (
          d.scope = $27
          and d.scope_key = $28
        )
      )
      and d.tsv @@ $29::tsquery
      and (
        select
          count(*)
        from
          firsts
      ) < $30
    limit
      $31
  ),
  seconds as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      more h
    where
      h.rid not in (
        select
          rid
        from
          firsts
      )
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $32::float8 * (
          1 - $33::float8 + $34::float8 * length(h.tsv) / $35::float8
        )
      ) desc,
      h.rid
    limit
      $36
  ),
  docs as (
    select
      *
    from
      firsts
    union all
    select
      *
    from
      seconds
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      d.id::text as id,
      d.text,
      d.tsv,
      d.updated_at as time,
      (d.metadata ->> 'lane_key') as lane_key,
      json_build_object(
        'type',
        d.type,
        'scope',
        d.scope,
        'scope_key',
        d.scope_key,
        'source',
        d.source,
        'metadata',
        d.metadata,
        'created_at',
        d.created_at,
        'expires_at',
        d.expires_at
      ) as extra
    from
      memories d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates transcript_chunks {"filters":["sessionKey"],"newest":false,"fallback":false}
-- $1: weights, $2: tenantId, $3: filter_sessionKey, $4: match, $5: scanLimit, $6: k1, $7: b, $8: b, $9: averageLength, $10: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      transcript_chunks d
    where
      (d.tenant_id || '') = $2
      and d.session_key = $3
      and d.tsv @@ $4::tsquery
    limit
      $5
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $6::float8 * (
          1 - $7::float8 + $8::float8 * length(h.tsv) / $9::float8
        )
      ) desc,
      h.rid
    limit
      $10
  ),
  docs as (
    select
      *
    from
      firsts
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      (d.session_id::text || ':' || d.first_seq) as id,
      d.text,
      d.tsv,
      coalesce(d.end_ts, d.created_at) as time,
      d.lane_key,
      json_build_object(
        'session_id',
        d.session_id,
        'session_key',
        d.session_key,
        'first_seq',
        d.first_seq,
        'last_seq',
        d.last_seq,
        'start_ts',
        d.start_ts,
        'end_ts',
        d.end_ts
      ) as extra
    from
      transcript_chunks d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates transcript_chunks {"filters":["sessionKey"],"newest":false,"fallback":true}
-- $1: weights, $2: tenantId, $3: filter_sessionKey, $4: match, $5: scanLimit, $6: k1, $7: b, $8: b, $9: averageLength, $10: keep, $11: tenantId, $12: filter_sessionKey, $13: fallbackMatch, $14: fallbackBelow, $15: fallbackScanLimit, $16: k1, $17: b, $18: b, $19: averageLength, $20: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      transcript_chunks d
    where
      (d.tenant_id || '') = $2
      and d.session_key = $3
      and d.tsv @@ $4::tsquery
    limit
      $5
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $6::float8 * (
          1 - $7::float8 + $8::float8 * length(h.tsv) / $9::float8
        )
      ) desc,
      h.rid
    limit
      $10
  ),
  more as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      transcript_chunks d
    where
      (d.tenant_id || '') = $11
      and d.session_key = $12
      and d.tsv @@ $13::tsquery
      and (
        select
          count(*)
        from
          firsts
      ) < $14
    limit
      $15
  ),
  seconds as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      more h
    where
      h.rid not in (
        select
          rid
        from
          firsts
      )
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $16::float8 * (
          1 - $17::float8 + $18::float8 * length(h.tsv) / $19::float8
        )
      ) desc,
      h.rid
    limit
      $20
  ),
  docs as (
    select
      *
    from
      firsts
    union all
    select
      *
    from
      seconds
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      (d.session_id::text || ':' || d.first_seq) as id,
      d.text,
      d.tsv,
      coalesce(d.end_ts, d.created_at) as time,
      d.lane_key,
      json_build_object(
        'session_id',
        d.session_id,
        'session_key',
        d.session_key,
        'first_seq',
        d.first_seq,
        'last_seq',
        d.last_seq,
        'start_ts',
        d.start_ts,
        'end_ts',
        d.end_ts
      ) as extra
    from
      transcript_chunks d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates channel_messages {"filters":["platform","channelId"],"newest":false,"fallback":false}
-- $1: weights, $2: tenantId, $3: filter_platform, $4: filter_channelId, $5: match, $6: scanLimit, $7: k1, $8: b, $9: b, $10: averageLength, $11: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      channel_messages d
    where
      (d.tenant_id || '') = $2
      and d.deleted_at is null
      and not d.is_placeholder
      and d.platform = $3
      and d.channel_id = $4
      and d.tsv @@ $5::tsquery
    limit
      $6
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $7::float8 * (
          1 - $8::float8 + $9::float8 * length(h.tsv) / $10::float8
        )
      ) desc,
      h.rid
    limit
      $11
  ),
  docs as (
    select
      *
    from
      firsts
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra_platform,
  x.extra_channel_id,
  x.extra_message_id,
  x.extra_thread_id,
  x.extra_author_id,
  x.extra_author_name,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      (
        d.platform || ':' || d.channel_id || ':' || d.message_id
      ) as id,
      d.text,
      d.tsv,
      d.ts as time,
      d.lane_key,
      d.platform as extra_platform,
      d.channel_id as extra_channel_id,
      d.message_id as extra_message_id,
      d.thread_id as extra_thread_id,
      d.author_id as extra_author_id,
      d.author_name as extra_author_name
    from
      channel_messages d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates channel_messages {"filters":["platform","channelId"],"newest":false,"fallback":true}
-- $1: weights, $2: tenantId, $3: filter_platform, $4: filter_channelId, $5: match, $6: scanLimit, $7: k1, $8: b, $9: b, $10: averageLength, $11: keep, $12: tenantId, $13: filter_platform, $14: filter_channelId, $15: fallbackMatch, $16: fallbackBelow, $17: fallbackScanLimit, $18: k1, $19: b, $20: b, $21: averageLength, $22: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      channel_messages d
    where
      (d.tenant_id || '') = $2
      and d.deleted_at is null
      and not d.is_placeholder
      and d.platform = $3
      and d.channel_id = $4
      and d.tsv @@ $5::tsquery
    limit
      $6
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $7::float8 * (
          1 - $8::float8 + $9::float8 * length(h.tsv) / $10::float8
        )
      ) desc,
      h.rid
    limit
      $11
  ),
  more as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      channel_messages d
    where
      (d.tenant_id || '') = $12
      and d.deleted_at is null
      and not d.is_placeholder
      and d.platform = $13
      and d.channel_id = $14
      and d.tsv @@ $15::tsquery
      and (
        select
          count(*)
        from
          firsts
      ) < $16
    limit
      $17
  ),
  seconds as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      more h
    where
      h.rid not in (
        select
          rid
        from
          firsts
      )
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $18::float8 * (
          1 - $19::float8 + $20::float8 * length(h.tsv) / $21::float8
        )
      ) desc,
      h.rid
    limit
      $22
  ),
  docs as (
    select
      *
    from
      firsts
    union all
    select
      *
    from
      seconds
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra_platform,
  x.extra_channel_id,
  x.extra_message_id,
  x.extra_thread_id,
  x.extra_author_id,
  x.extra_author_name,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      (
        d.platform || ':' || d.channel_id || ':' || d.message_id
      ) as id,
      d.text,
      d.tsv,
      d.ts as time,
      d.lane_key,
      d.platform as extra_platform,
      d.channel_id as extra_channel_id,
      d.message_id as extra_message_id,
      d.thread_id as extra_thread_id,
      d.author_id as extra_author_id,
      d.author_name as extra_author_name
    from
      channel_messages d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates channel_messages {"filters":["platform","channelId"],"newest":true,"fallback":false}
-- $1: weights, $2: tenantId, $3: filter_platform, $4: filter_channelId, $5: match, $6: scanLimit, $7: k1, $8: b, $9: b, $10: averageLength, $11: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      channel_messages d
    where
      d.tenant_id = $2
      and d.deleted_at is null
      and not d.is_placeholder
      and d.platform = $3
      and d.channel_id = $4
      and d.tsv @@ $5::tsquery
    order by
      d.ts desc
    limit
      $6
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $7::float8 * (
          1 - $8::float8 + $9::float8 * length(h.tsv) / $10::float8
        )
      ) desc,
      h.rid
    limit
      $11
  ),
  docs as (
    select
      *
    from
      firsts
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra_platform,
  x.extra_channel_id,
  x.extra_message_id,
  x.extra_thread_id,
  x.extra_author_id,
  x.extra_author_name,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      (
        d.platform || ':' || d.channel_id || ':' || d.message_id
      ) as id,
      d.text,
      d.tsv,
      d.ts as time,
      d.lane_key,
      d.platform as extra_platform,
      d.channel_id as extra_channel_id,
      d.message_id as extra_message_id,
      d.thread_id as extra_thread_id,
      d.author_id as extra_author_id,
      d.author_name as extra_author_name
    from
      channel_messages d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- SearchRepository.matchCandidates channel_messages {"filters":["platform","channelId"],"newest":true,"fallback":true}
-- $1: weights, $2: tenantId, $3: filter_platform, $4: filter_channelId, $5: match, $6: scanLimit, $7: k1, $8: b, $9: b, $10: averageLength, $11: keep, $12: tenantId, $13: filter_platform, $14: filter_channelId, $15: fallbackMatch, $16: fallbackBelow, $17: fallbackScanLimit, $18: k1, $19: b, $20: b, $21: averageLength, $22: keep
with
  terms as (
    select
      t.lexeme,
      t.q::tsquery as q,
      t.idf
    from
      jsonb_to_recordset($1::jsonb) as t (lexeme text, q text, idf float8)
  ),
  hits as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      channel_messages d
    where
      d.tenant_id = $2
      and d.deleted_at is null
      and not d.is_placeholder
      and d.platform = $3
      and d.channel_id = $4
      and d.tsv @@ $5::tsquery
    order by
      d.ts desc
    limit
      $6
  ),
  firsts as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      hits h
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $7::float8 * (
          1 - $8::float8 + $9::float8 * length(h.tsv) / $10::float8
        )
      ) desc,
      h.rid
    limit
      $11
  ),
  more as (
    select
      d.ctid as rid,
      setweight(
        d.tsv,
        'A',
        (
          select
            array_agg(t.lexeme)
          from
            terms t
        )
      ) as tsv
    from
      channel_messages d
    where
      d.tenant_id = $12
      and d.deleted_at is null
      and not d.is_placeholder
      and d.platform = $13
      and d.channel_id = $14
      and d.tsv @@ $15::tsquery
      and (
        select
          count(*)
        from
          firsts
      ) < $16
    limit
      $17
  ),
  seconds as (
    select
      h.rid,
      length(h.tsv) as length,
      h.tsv
    from
      more h
    where
      h.rid not in (
        select
          rid
        from
          firsts
      )
    order by
      (
        select
          sum(t.idf)
        from
          terms t
        where
          h.tsv @@ t.q
      ) / (
        1 + $18::float8 * (
          1 - $19::float8 + $20::float8 * length(h.tsv) / $21::float8
        )
      ) desc,
      h.rid
    limit
      $22
  ),
  docs as (
    select
      *
    from
      firsts
    union all
    select
      *
    from
      seconds
  )
select
  x.id,
  p.rid::text as rid,
  x.text,
  (
    extract(
      epoch
      from
        x.time
    ) * 1000
  )::float8 as time_ms,
  x.lane_key,
  x.extra_platform,
  x.extra_channel_id,
  x.extra_message_id,
  x.extra_thread_id,
  x.extra_author_id,
  x.extra_author_name,
  p.length,
  ts_filter(p.tsv, '{a}')::text as tf
from
  docs p
  cross join lateral (
    select
      (
        d.platform || ':' || d.channel_id || ':' || d.message_id
      ) as id,
      d.text,
      d.tsv,
      d.ts as time,
      d.lane_key,
      d.platform as extra_platform,
      d.channel_id as extra_channel_id,
      d.message_id as extra_message_id,
      d.thread_id as extra_thread_id,
      d.author_id as extra_author_id,
      d.author_name as extra_author_name
    from
      channel_messages d
    where
      d.ctid = p.rid
    offset
      0
  ) x;

-- TranscriptRepository.laneEntriesFrom (lane_entries_from)
-- $1: tenantId, $2: sessionId, $3: laneKey, $4: from
select
  "tenant_id",
  "session_id",
  "seq",
  "lane_key",
  "kind",
  "role",
  "content",
  "token_estimate",
  "idempotency_key",
  "request_hash",
  "author",
  "usage",
  "model",
  "source",
  "turn_at",
  "created_at"
from
  "transcript_entries"
where
  (
    (
      "transcript_entries"."tenant_id" = $1
      and "transcript_entries"."session_id" = $2
    )
    and "transcript_entries"."lane_key" = $3
    and "transcript_entries"."seq" >= $4
  )
order by
  "transcript_entries"."seq" asc;

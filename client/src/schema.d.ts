// Generated from openapi/openapi.json by `npm run openapi` (openapi-typescript). Do not edit:
// change the routes' schemas, then regenerate.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: Postgres, Redis and migrations */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description With METRICS_TOKEN set, only for `Authorization: Bearer {METRICS_TOKEN}` (not a tenant key); with METRICS_PORT set, served on that port instead; in production without either, not served.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant of the calling API key */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sessions, newest first (filter by key, agent, live) */
        get: operations["listSessions"];
        put?: never;
        /** Get or create the live session for a key (fresh within max_age, else replaced) */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session, with its usage calibration per model */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /** Hard delete: the session, its transcript, lane states, manifest, blobs, chunks and audit log */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the session and start a new one for its key (links back, keeps compaction_count) */
        post: operations["resetSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/new": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the session and start a new one for its key (links back, keeps compaction_count) */
        post: operations["newSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Append user/assistant turns (Anthropic content blocks); Idempotency-Key per request */
        post: operations["appendTurns"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/transcript": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The full audit trail in seq order (every kind and lane), paged by seq */
        get: operations["getTranscript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/attachments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The attachment manifest: media already put into this conversation */
        get: operations["listAttachments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Upload bytes (raw body, Content-Type names the media type); same bytes → same artifact_id */
        post: operations["uploadBlob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs/{artifactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The bytes (HTTP Range supported), or a UTF-8 text slice with ?offset=&limit=
         * @description Without a query the bytes, in their own Content-Type, with Accept-Ranges, ETag and a year-long private cache. A `Range: bytes=start-end` header (one range) gives 206 with Content-Range; a range past the end is 416 `blob.range_not_satisfiable` with `Content-Range: bytes *\/size`. With `?offset=&limit=` a text blob is read as a JSON UTF-8 slice instead (422 `blob.not_text` for other types).
         */
        get: operations["getBlob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/sections/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One section */
        get: operations["getAgentSection"];
        /** Create or replace a system-prompt section of an agent */
        put: operations["putAgentSection"];
        post?: never;
        /** Delete a section */
        delete: operations["deleteAgentSection"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/sections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An agent's sections in prompt order (position, then name) */
        get: operations["listAgentSections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's defaults for the context call (nulls when none were set) */
        get: operations["getAgentSettings"];
        /** Set the agent's defaults for the context call: history_turns applies when a call names the agent (agent_id, or the session's) and sets none */
        put: operations["putAgentSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List memories, newest first (cursor paging; expired ones are left out) */
        get: operations["listMemories"];
        put?: never;
        /** Create a memory (redacted; the same text in the same scope and type is returned, not duplicated) */
        post: operations["createMemory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a memory */
        get: operations["getMemory"];
        put?: never;
        post?: never;
        /** Delete a memory */
        delete: operations["deleteMemory"];
        options?: never;
        head?: never;
        /** Update a memory (409 memory.duplicate when the new text already exists in its scope) */
        patch: operations["updateMemory"];
        trace?: never;
    };
    "/v1/memories/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Search memories, transcript chunks and (optionally) channel messages */
        post: operations["searchMemories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ingest a batch (1…500) of normalized channel events
         * @description Validated whole (a 400 lists every bad item as `events.<index>.<field>`, nothing stored), applied in one transaction. Idempotent on event_id and natural keys; out-of-order events converge.
         */
        post: operations["ingestEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ingest one raw platform payload (Slack envelope, Telegram Update, Discord dispatch)
         * @description Unknown or uninteresting shapes are answered 200 with outcome `ignored` and a reason. Discord thread messages may carry `parent_channel_id` (beside `d` or inside it) to be stored under the parent channel.
         */
        post: operations["ingestPlatformEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/slack/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Slack Events API endpoint (signature v0, url_verification, retries deduplicated)
         * @description Signed with the tenant's `slack` secret: `X-Slack-Signature: v0=HMAC-SHA256(secret, "v0:{X-Slack-Request-Timestamp}:{raw body}")`, timestamp within 5 minutes. A wrong or stale signature, or an unknown tenant, is a 401 and stores nothing. Retries carry the same event_id and are answered as duplicates.
         */
        post: operations["slackWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/telegram/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Telegram Bot API webhook (X-Telegram-Bot-Api-Secret-Token)
         * @description The header must equal the tenant's `telegram` secret (the secret_token given to setWebhook). Otherwise 401, nothing stored.
         */
        post: operations["telegramWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{platform}/{channelId}/snapshot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** ChannelSnapshot: the anchor message in full and the top-level messages before it */
        get: operations["getChannelSnapshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{platform}/{channelId}/threads/{threadId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** ThreadContext: the root in full and the most recent replies within a token budget */
        get: operations["getThread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{platform}/{channelId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Messages of a channel in a time window, oldest first, cursor-paginated */
        get: operations["listChannelMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Assemble the prompt payload for this turn (and append the turn unless dry_run)
         * @description With Idempotency-Key (not on dry runs, which write nothing and ignore it), a retry with the same body replays the first reply byte for byte without appending again (header `idempotent-replayed: true`); another body under the key is 409 `idempotency.key_reused`.
         */
        post: operations["getContext"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/context-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Audit of context calls: turn, payload SHA-256, budget report, lane state version */
        get: operations["getContextLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/context-log/{seq}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The estimated tokens of each block of a logged call's payload
         * @description What each block of the payload GET …/context-log/{seq}/payload returns costs by contextd's token estimator (the one the budget report sums): `system[i]` is the i-th system block, `tools[i]` the i-th tool, `messages[i].blocks[j]` the j-th content block of the i-th message (a string content is one block), plus each message's fixed overhead. 404 as for the payload.
         */
        get: operations["getLoggedPayloadTokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/context-log/{seq}/payload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The payload a logged context call returned, byte for byte
         * @description The exact bytes whose SHA-256 is the log entry's `payload_sha256` (also sent as the `payload-sha256` header): what the model was sent at that turn. 404 `context_log.not_found` when no call is logged at that turn (dry runs are not logged), `context_log.payload_not_stored` for calls logged before payloads were stored. After an erase of content it held, the bytes carry `[content erased]` where the content was, no longer hash to `payload_sha256`, and the reply has the header `content-erased: true`.
         */
        get: operations["getLoggedPayload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Built-in tool definitions for this session, ready for the Messages API `tools` parameter */
        get: operations["listTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/tools/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a built-in tool inside the session's tenant, channel and lane; the reply is the tool_result content
         * @description With Idempotency-Key, a retry with the same input replays the first reply (header `idempotent-replayed: true`); another input under the key is 409 `idempotency.key_reused`.
         */
        post: operations["runTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/lanes/{lane}/pending-slot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the lane's pending slot: the answer the agent is waiting for
         * @description The next context call of the lane applies the slot only when its message matches the expected type (date, time, number, yes/no, email, choice, regex); a matching, non-dry-run call consumes it. Replaces any slot already pending.
         */
        put: operations["setPendingSlot"];
        post?: never;
        /** Withdraw the lane's pending slot (204 also when none was pending) */
        delete: operations["clearPendingSlot"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/compact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compact the session now (`wait`) or queue a compaction job (202)
         * @description Runs the compaction chain (clear old tool results, summarize older entries into the lane summary, truncate) for every lane of the session, or the named ones. With `wait: true` the reply is the CompactResult; otherwise a job is queued (one per session) and the reply is 202 with it. A compaction already running is a 409 `compaction.running` with `holder_age_ms`, unless `wait`; a job already queued for the session is answered (`deduplicated: true`) instead of a second one. With Idempotency-Key, a retry with the same body replays the first reply (header `idempotent-replayed: true`); another body under the key is 409 `idempotency.key_reused`.
         */
        post: operations["compactSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/compact/jobs/{jobId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A queued compaction job: its state and, once done, its CompactResult */
        get: operations["getCompactionJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenant/summarizer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This month's summarizer spend of the tenant and its monthly cap */
        get: operations["getSummarizerBudget"];
        /** Set (or clear, with null) the monthly summarizer token cap of the tenant */
        put: operations["setSummarizerBudget"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/lanes/{lane}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A lane's state: its rolling summary, view start, cleared point and version
         * @description `expand=true` adds a page of the original transcript entries the summary covers (`after` pages on), so every summary can be checked against what it summarized.
         */
        get: operations["getLane"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platforms/{platform}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether a bot token is stored for the platform (its last 4 characters at most) */
        get: operations["getPlatformCredentials"];
        /** Store the tenant's bot token for a platform (replaces any stored one; never returned) */
        put: operations["putPlatformCredentials"];
        post?: never;
        /** Forget the platform's bot token (idempotent: 204 also when none was stored) */
        delete: operations["deletePlatformCredentials"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platforms/{platform}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Push display names for platform user ids (merged into the directory; pushed names win over resolved ones) */
        put: operations["putPlatformUsers"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platforms/{platform}/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One directory entry (pushed, or resolved through the platform API with the stored token) */
        get: operations["getPlatformUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenant/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's retention periods: its own and those in force */
        get: operations["getRetention"];
        /** Set the tenant's retention periods (null: the service default) */
        put: operations["setRetention"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{platform}/{channelId}/messages/{messageId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Erase a channel message's content everywhere it is stored
         * @description The message becomes a deleted one with no text or media; the transcript entries that are the message keep a tombstone ("[content erased]") in place of their content; the text is scrubbed from entries that quoted it, logged payload parts (a replay of an affected turn says `content-erased: true`), the context log's retrieved items, stored Idempotency-Key replies, lane summaries (rebuilt), memories (derived ones removed) and transcript chunks. An audit record says who erased it and when. 404 `channel_message.not_found` for an unknown message or another tenant's. Idempotent: erasing an erased target again changes nothing and answers 200 with the first erase record (`already_erased: true`).
         */
        delete: operations["eraseChannelMessage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/transcript/{seq}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Erase a transcript entry's content everywhere it is stored
         * @description The entry keeps its place, role and tool pairing with a tombstone ("[content erased]") for every text, tool input and medium; its texts are scrubbed from entries that quoted them, logged payload parts (a replay of an affected turn says `content-erased: true`), the context log's retrieved items, stored Idempotency-Key replies, lane summaries (rebuilt), memories (derived ones removed) and transcript chunks. An audit record says who erased it and when. The channel message a turn was stays until it is erased itself. 404 `session.not_found` for an unknown session or another tenant's, `transcript_entry.not_found` for an unknown seq. Idempotent: erasing an erased target again changes nothing and answers 200 with the first erase record (`already_erased: true`).
         */
        delete: operations["eraseTranscriptEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: {
                /** @description stable, dotted error code, e.g. request.invalid, session.not_found, compaction.running */
                code: string;
                /** @description for people: names the field path on bad input */
                message: string;
                /** @description machine-readable detail; on request.invalid a list of { path, message, code } */
                details?: unknown;
            };
        };
        TextBlockParam: {
            /** @constant */
            type: "text";
            text: string;
            /** @description a cache breakpoint: the provider caches the prompt prefix up to and including this block */
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            };
        } & {
            [key: string]: unknown;
        };
        ImageBlockParam: {
            /** @constant */
            type: "image";
            source: ({
                /** @constant */
                type: "base64";
                /** @enum {string} */
                media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
                data: string;
            } & {
                [key: string]: unknown;
            }) | ({
                /** @constant */
                type: "url";
                url: string;
            } & {
                [key: string]: unknown;
            }) | ({
                /** @constant */
                type: "file";
                file_id: string;
            } & {
                [key: string]: unknown;
            });
            /** @description a cache breakpoint: the provider caches the prompt prefix up to and including this block */
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            };
        } & {
            [key: string]: unknown;
        };
        DocumentBlockParam: {
            /** @constant */
            type: "document";
            source: ({
                /** @constant */
                type: "base64";
                /** @constant */
                media_type: "application/pdf";
                data: string;
            } & {
                [key: string]: unknown;
            }) | ({
                /** @constant */
                type: "text";
                /** @constant */
                media_type: "text/plain";
                data: string;
            } & {
                [key: string]: unknown;
            }) | ({
                /** @constant */
                type: "url";
                url: string;
            } & {
                [key: string]: unknown;
            }) | ({
                /** @constant */
                type: "file";
                file_id: string;
            } & {
                [key: string]: unknown;
            }) | ({
                /** @constant */
                type: "content";
                content: string | (components["schemas"]["TextBlockParam"] | components["schemas"]["ImageBlockParam"])[];
            } & {
                [key: string]: unknown;
            });
            title?: string | null;
            context?: string | null;
            /** @description a cache breakpoint: the provider caches the prompt prefix up to and including this block */
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            };
        } & {
            [key: string]: unknown;
        };
        ToolUseBlockParam: {
            /** @constant */
            type: "tool_use";
            id: string;
            name: string;
            input: {
                [key: string]: unknown;
            };
            /** @description a cache breakpoint: the provider caches the prompt prefix up to and including this block */
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            };
        } & {
            [key: string]: unknown;
        };
        ToolResultBlockParam: {
            /** @constant */
            type: "tool_result";
            tool_use_id: string;
            content?: string | (components["schemas"]["TextBlockParam"] | components["schemas"]["ImageBlockParam"] | components["schemas"]["DocumentBlockParam"])[];
            is_error?: boolean;
            /** @description a cache breakpoint: the provider caches the prompt prefix up to and including this block */
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            };
        } & {
            [key: string]: unknown;
        };
        ThinkingBlockParam: {
            /** @constant */
            type: "thinking";
            thinking: string;
            signature: string;
        } & {
            [key: string]: unknown;
        };
        RedactedThinkingBlockParam: {
            /** @constant */
            type: "redacted_thinking";
            data: string;
        } & {
            [key: string]: unknown;
        };
        ContentBlockParam: components["schemas"]["TextBlockParam"] | components["schemas"]["ImageBlockParam"] | components["schemas"]["DocumentBlockParam"] | components["schemas"]["ToolUseBlockParam"] | components["schemas"]["ToolResultBlockParam"] | components["schemas"]["ThinkingBlockParam"] | components["schemas"]["RedactedThinkingBlockParam"];
        MessageParam: {
            /** @enum {string} */
            role: "user" | "assistant";
            content: string | components["schemas"]["ContentBlockParam"][];
        };
        /** @description a client tool: contextd's built-ins and the caller's, as given */
        Tool: {
            type?: "custom" | null;
            name: string;
            description?: string;
            /** @description JSON Schema of the tool input */
            input_schema: {
                /** @constant */
                type: "object";
                properties?: {
                    [key: string]: unknown;
                } | null;
                required?: string[] | null;
            } & {
                [key: string]: unknown;
            };
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
            strict?: boolean;
            defer_loading?: boolean;
            eager_input_streaming?: boolean | null;
            input_examples?: {
                [key: string]: unknown;
            }[];
            allowed_callers?: ("direct" | "code_execution_20250825" | "code_execution_20260120" | "code_execution_20260521")[];
        };
        /** @description a server tool of the caller, as given (e.g. web_search_20250305): run by the provider */
        ServerTool: ({
            /** @constant */
            type: "bash_20250124";
            /** @constant */
            name: "bash";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "code_execution_20250522";
            /** @constant */
            name: "code_execution";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "code_execution_20250825";
            /** @constant */
            name: "code_execution";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "code_execution_20260120";
            /** @constant */
            name: "code_execution";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "code_execution_20260521";
            /** @constant */
            name: "code_execution";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "browser_toolset_20260801";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "computer_toolset_20260801";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "memory_20250818";
            /** @constant */
            name: "memory";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "text_editor_20250124";
            /** @constant */
            name: "str_replace_editor";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "text_editor_20250429";
            /** @constant */
            name: "str_replace_based_edit_tool";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "text_editor_20250728";
            /** @constant */
            name: "str_replace_based_edit_tool";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_search_20250305";
            /** @constant */
            name: "web_search";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_search_20260209";
            /** @constant */
            name: "web_search";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_search_20260318";
            /** @constant */
            name: "web_search";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_fetch_20250910";
            /** @constant */
            name: "web_fetch";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_fetch_20260209";
            /** @constant */
            name: "web_fetch";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_fetch_20260309";
            /** @constant */
            name: "web_fetch";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "web_fetch_20260318";
            /** @constant */
            name: "web_fetch";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "tool_search_tool_bm25_20251119";
            /** @constant */
            name: "tool_search_tool_bm25";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "tool_search_tool_bm25";
            /** @constant */
            name: "tool_search_tool_bm25";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "tool_search_tool_regex_20251119";
            /** @constant */
            name: "tool_search_tool_regex";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "tool_search_tool_regex";
            /** @constant */
            name: "tool_search_tool_regex";
            cache_control?: {
                /** @constant */
                type: "ephemeral";
                /** @enum {string} */
                ttl?: "5m" | "1h";
            } | null;
        } & {
            [key: string]: unknown;
        });
        /** @description An Anthropic Messages API request (MessageCreateParams, non-streaming), ready to send: `anthropic.messages.create({ model, ...payload })` */
        AnthropicPayload: {
            model: string;
            max_tokens: number;
            /** @description system blocks, policy first; a cache breakpoint after the last cacheable one */
            system?: {
                /** @constant */
                type: "text";
                text: string;
                /** @description a cache breakpoint: the provider caches the prompt prefix up to and including this block */
                cache_control?: {
                    /** @constant */
                    type: "ephemeral";
                    /** @enum {string} */
                    ttl?: "5m" | "1h";
                };
            }[];
            messages: components["schemas"]["MessageParam"][];
            tools?: (components["schemas"]["Tool"] | components["schemas"]["ServerTool"])[];
        };
        /** @description An OpenAI chat-completions request with the same content and order (format=openai) */
        OpenAIChatPayload: {
            model: string;
            max_tokens: number;
            messages: ({
                /** @constant */
                role: "system";
                content: string;
            } | {
                /** @constant */
                role: "user";
                content: ({
                    /** @constant */
                    type: "text";
                    text: string;
                } | {
                    /** @constant */
                    type: "image_url";
                    image_url: {
                        url: string;
                    };
                })[];
            } | {
                /** @constant */
                role: "assistant";
                content: string | null;
                tool_calls?: {
                    id: string;
                    /** @constant */
                    type: "function";
                    function: {
                        name: string;
                        arguments: string;
                    };
                }[];
            } | {
                /** @constant */
                role: "tool";
                tool_call_id: string;
                content: string;
            })[];
            tools?: {
                /** @constant */
                type: "function";
                function: {
                    name: string;
                    description?: string;
                    parameters: {
                        [key: string]: unknown;
                    };
                };
            }[];
        };
        /** @description what this turn's context holds, by source */
        AssembledContext: {
            channel: {
                platform: string;
                channel_id: string;
            } | null;
            /**
             * @description attached: in this turn; omitted_budget: left out for room; none: nothing to attach
             * @enum {string}
             */
            snapshot: "attached" | "omitted_budget" | "none";
            /**
             * @description attached: in this turn; omitted_budget: left out for room; none: nothing to attach
             * @enum {string}
             */
            thread: "attached" | "omitted_budget" | "none";
            /**
             * @description attached: in this turn; omitted_budget: left out for room; none: nothing to attach
             * @enum {string}
             */
            quoted_reply: "attached" | "omitted_budget" | "none";
            retrieved: {
                /** @enum {string} */
                kind: "memory" | "transcript" | "channel_message";
                id: string;
                score: number;
                tokens: number;
            }[];
            lane: {
                lane_key: string;
                version: number;
                summary_version: number;
                summary_included: boolean;
                first_kept_seq: number;
                cleared_before_seq: number;
                first_sent_seq: number | null;
                dropped_entries: number;
            };
            focus_anchor: ({
                /** @constant */
                kind: "reply";
                message_id: string;
            } | {
                /** @constant */
                kind: "assistant_turn";
                seq: number;
            }) | null;
            pending_slot: {
                name: string;
                /** @enum {string} */
                type: "date" | "time" | "number" | "yes_no" | "email" | "choice" | "regex";
                value: string;
            } | null;
        };
        Attachment: {
            artifact_id: string;
            sha256: string;
            media_type: string;
            display_name: string;
            source_message_id: string | null;
            source_thread_id: string | null;
            /**
             * @description attached: sent as a content block now; referenced: sent in an earlier turn still in view; reattached: sent again because the turn that carried it left the payload
             * @enum {string}
             */
            disposition: "attached" | "referenced" | "reattached";
            tokens: number;
        };
        /** @description Retrieval candidates that are not in the payload, and why: below_relevance (scored under the relevance floor (without max_context_tokens: at least a quarter of the best hit and 0.15)); over_limit (ranked past the number of candidates retrieval keeps for its token cap); lane_summary (a lane summary: this lane's own is the payload's summary block (or include.lane_summaries is false)); other_lane (from another lane and scored under the other-lane minimum (0.8)); already_shown (its message is the anchor, the quoted reply, or in the snapshot or thread attached); in_view (the history this payload sends already holds it); did_not_fit (did not fit the room left for retrieved material (max_context_tokens, the default cap, or the window)). */
        LeftOut: {
            /** @description every candidate left out, by reason */
            counts: {
                [key: string]: number;
            };
            /** @description the best-scored of them, at most 30 */
            items: {
                /** @enum {string} */
                kind: "memory" | "transcript" | "channel_message";
                id: string;
                score: number;
                /** @enum {string} */
                reason: "below_relevance" | "over_limit" | "lane_summary" | "other_lane" | "already_shown" | "in_view" | "did_not_fit";
                /** @description the row's tokens as it would have been sent (did_not_fit) */
                tokens?: number;
                /** @description the start of its text */
                excerpt: string;
            }[];
        };
        /**
         * @example {
         *       "payload": {
         *         "model": "claude-sonnet-5-5",
         *         "max_tokens": 8192,
         *         "system": [
         *           {
         *             "type": "text",
         *             "text": "You are the release bot of the platform team.",
         *             "cache_control": {
         *               "type": "ephemeral"
         *             }
         *           }
         *         ],
         *         "messages": [
         *           {
         *             "role": "user",
         *             "content": [
         *               {
         *                 "type": "text",
         *                 "text": "Is the CI green on main?"
         *               },
         *               {
         *                 "type": "text",
         *                 "text": "<turn_context>…thread so far…</turn_context>"
         *               }
         *             ]
         *           },
         *           {
         *             "role": "assistant",
         *             "content": [
         *               {
         *                 "type": "text",
         *                 "text": "Yes: build 4812 passed at 14:02."
         *               }
         *             ]
         *           },
         *           {
         *             "role": "user",
         *             "content": [
         *               {
         *                 "type": "text",
         *                 "text": "Can we ship the release on Friday?",
         *                 "cache_control": {
         *                   "type": "ephemeral"
         *                 }
         *               }
         *             ]
         *           }
         *         ],
         *         "tools": [
         *           {
         *             "name": "compact_context",
         *             "description": "Summarize older parts of this conversation to free room.",
         *             "input_schema": {
         *               "type": "object",
         *               "properties": {}
         *             }
         *           }
         *         ]
         *       },
         *       "format": "anthropic",
         *       "budget": {
         *         "total": 200000,
         *         "max_output_tokens": 8192,
         *         "effective_window": 191808,
         *         "max_context_tokens": null,
         *         "components": {
         *           "system": 14,
         *           "tools": 120,
         *           "channel_context": 96,
         *           "summary": 0,
         *           "memories": 0,
         *           "conversation": 31,
         *           "current_turn": 12
         *         },
         *         "used": 273,
         *         "added": 127,
         *         "used_with_margin": 300,
         *         "remaining": 191508,
         *         "percentage": 0.16,
         *         "state": "ok",
         *         "safety_margin": 1.1,
         *         "calibration": {
         *           "factor": 1,
         *           "ratio": null,
         *           "calls": 0
         *         },
         *         "unused": {
         *           "tokens": 170522,
         *           "reason": "no_more_candidates"
         *         }
         *       },
         *       "compaction": {
         *         "mode": "auto",
         *         "available": true,
         *         "action": "none",
         *         "job_id": null,
         *         "result": null
         *       },
         *       "context": {
         *         "channel": {
         *           "platform": "slack",
         *           "channel_id": "C024BE91L"
         *         },
         *         "snapshot": "none",
         *         "thread": "attached",
         *         "quoted_reply": "none",
         *         "retrieved": [],
         *         "lane": {
         *           "lane_key": "thread:C024BE91L:1700000000.000100",
         *           "version": 2,
         *           "summary_version": 0,
         *           "summary_included": false,
         *           "first_kept_seq": 0,
         *           "cleared_before_seq": 0,
         *           "first_sent_seq": 1,
         *           "dropped_entries": 0
         *         },
         *         "focus_anchor": null,
         *         "pending_slot": null
         *       },
         *       "attachments": [],
         *       "deferred_tools": [],
         *       "notes": [],
         *       "cache": {
         *         "breakpoints": [
         *           {
         *             "position": "system",
         *             "index": 0
         *           },
         *           {
         *             "position": "this_turn",
         *             "index": 2,
         *             "block": 0
         *           }
         *         ],
         *         "stable_prefix_tokens": 165
         *       },
         *       "turn_seq": 3,
         *       "payload_sha256": "5f2b0c1e8d7a4b3c9e6f1a2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3",
         *       "dry_run": false
         *     }
         */
        ContextReply: {
            payload: components["schemas"]["AnthropicPayload"];
            /** @constant */
            format: "anthropic";
            budget: {
                total: number;
                max_output_tokens: number;
                effective_window: number;
                max_context_tokens: number | null;
                components: {
                    system: number;
                    tools: number;
                    channel_context: number;
                    summary: number;
                    memories: number;
                    conversation: number;
                    current_turn: number;
                };
                used: number;
                added: number;
                used_with_margin: number;
                remaining: number;
                percentage: number;
                /** @enum {string} */
                state: "ok" | "compact_soon" | "should_compact" | "blocked";
                safety_margin: number;
                /** @description the session's reported ÷ estimated input ratio for the model; applied (factor ≠ 1) from 3 reported calls, clamped to [0.5, 2]: used_with_margin = ceil(used × factor × safety_margin) */
                calibration: {
                    factor: number;
                    ratio: number | null;
                    calls: number;
                };
                /** @description room for contextd material (the smaller of max_context_tokens and the window room) left after retrieval, and why: no_more_candidates (every retrieved item went in), next_item_too_large (the next item did not fit whole), retrieval_skipped (no retrieval for this message) */
                unused: {
                    tokens: number;
                    /** @enum {string} */
                    reason: "no_more_candidates" | "next_item_too_large" | "retrieval_skipped";
                };
                /** @description what this payload is expected to cost under the provider's prompt-caching rules, against the cache the session's earlier calls left (docs/cost-model.md); estimates by contextd's token estimator */
                cost?: {
                    /** @description input tokens expected to be read from the prompt cache (0.1× price) */
                    cache_read: number;
                    /** @description input tokens expected to be written to the cache, both lifetimes */
                    cache_write: number;
                    /** @description of cache_write: 5-minute entries (1.25× price) */
                    cache_write_5m: number;
                    /** @description of cache_write: 1-hour entries (2× price) */
                    cache_write_1h: number;
                    /** @description input tokens billed at the base price (after the last cached breakpoint) */
                    uncached: number;
                    /** @description all input tokens of the payload: cache_read + cache_write + uncached */
                    input_tokens: number;
                    /** @description the expected bill in base-input tokens: 0.1 × read + 1.25 × write_5m + 2 × write_1h + uncached */
                    billed_input: number;
                    /**
                     * @description against what the payload was priced: cold (the session's first call: everything written or uncached), expired (the cache entries of earlier calls had lived out), miss (live entries, none a prefix of this payload), warm (a cached prefix is read)
                     * @enum {string}
                     */
                    basis: "cold" | "expired" | "miss" | "warm";
                };
            };
            compaction: {
                /** @enum {string} */
                mode: "auto" | "never" | "sync";
                available: boolean;
                /**
                 * @description compacted: compaction ran before this payload (blocked, history left out, or a deleted message to purge); scheduled: a background compaction was queued (should_compact); truncated: older entries were left out of this payload
                 * @enum {string}
                 */
                action: "none" | "truncated" | "scheduled" | "compacted";
                /** @description the queued background compaction (action scheduled) */
                job_id: string | null;
                /** @description what the compaction before this payload did */
                result: {
                    session_id: string;
                    before_tokens: number;
                    after_tokens: number;
                    before_messages: number;
                    after_messages: number;
                    strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                    lanes: {
                        lane_key: string;
                        /** @enum {string} */
                        outcome: "committed" | "fenced" | "skipped";
                        strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                        before_tokens: number;
                        after_tokens: number;
                        before_messages: number;
                        after_messages: number;
                        summary_version: number;
                        first_kept_seq: number;
                        cleared_before_seq: number;
                        summarizer: ("llm" | "extractive") | null;
                        fallback_reason: string | null;
                        summarizer_tokens: {
                            input: number;
                            output: number;
                        };
                        /** @description identifiers (ids, paths, URLs, numbers, error messages) of the summarized entries kept verbatim */
                        identifiers: {
                            total: number;
                            kept: number;
                        } | null;
                        /** @description names, numbers, dates and identifiers the new summary holds: of the entries this compaction summarized (slice) and of everything the lane summary ever covered (cumulative) */
                        key_terms: {
                            slice: {
                                total: number;
                                kept: number;
                            };
                            cumulative: {
                                total: number;
                                kept: number;
                            };
                        } | null;
                        /** @description seq of the compaction record in the transcript */
                        record_seq: number | null;
                        reason: string | null;
                    }[];
                } | null;
            };
            context: components["schemas"]["AssembledContext"];
            attachments: components["schemas"]["Attachment"][];
            deferred_tools: {
                name: string;
                description: string;
                source: string;
                tokens: number;
            }[];
            notes: string[];
            cache: {
                breakpoints: {
                    /** @enum {string} */
                    position: "system" | "tools" | "summary" | "previous_turn" | "this_turn";
                    index: number;
                    block?: number;
                }[];
                stable_prefix_tokens: number;
            };
            turn_seq: number | null;
            payload_sha256: string;
            dry_run: boolean;
            /** @description dry runs only: the retrieval candidates left out and why (a logged call: its context-log entry) */
            left_out?: components["schemas"]["LeftOut"];
        } | {
            payload: components["schemas"]["OpenAIChatPayload"];
            /** @constant */
            format: "openai";
            budget: {
                total: number;
                max_output_tokens: number;
                effective_window: number;
                max_context_tokens: number | null;
                components: {
                    system: number;
                    tools: number;
                    channel_context: number;
                    summary: number;
                    memories: number;
                    conversation: number;
                    current_turn: number;
                };
                used: number;
                added: number;
                used_with_margin: number;
                remaining: number;
                percentage: number;
                /** @enum {string} */
                state: "ok" | "compact_soon" | "should_compact" | "blocked";
                safety_margin: number;
                /** @description the session's reported ÷ estimated input ratio for the model; applied (factor ≠ 1) from 3 reported calls, clamped to [0.5, 2]: used_with_margin = ceil(used × factor × safety_margin) */
                calibration: {
                    factor: number;
                    ratio: number | null;
                    calls: number;
                };
                /** @description room for contextd material (the smaller of max_context_tokens and the window room) left after retrieval, and why: no_more_candidates (every retrieved item went in), next_item_too_large (the next item did not fit whole), retrieval_skipped (no retrieval for this message) */
                unused: {
                    tokens: number;
                    /** @enum {string} */
                    reason: "no_more_candidates" | "next_item_too_large" | "retrieval_skipped";
                };
                /** @description what this payload is expected to cost under the provider's prompt-caching rules, against the cache the session's earlier calls left (docs/cost-model.md); estimates by contextd's token estimator */
                cost?: {
                    /** @description input tokens expected to be read from the prompt cache (0.1× price) */
                    cache_read: number;
                    /** @description input tokens expected to be written to the cache, both lifetimes */
                    cache_write: number;
                    /** @description of cache_write: 5-minute entries (1.25× price) */
                    cache_write_5m: number;
                    /** @description of cache_write: 1-hour entries (2× price) */
                    cache_write_1h: number;
                    /** @description input tokens billed at the base price (after the last cached breakpoint) */
                    uncached: number;
                    /** @description all input tokens of the payload: cache_read + cache_write + uncached */
                    input_tokens: number;
                    /** @description the expected bill in base-input tokens: 0.1 × read + 1.25 × write_5m + 2 × write_1h + uncached */
                    billed_input: number;
                    /**
                     * @description against what the payload was priced: cold (the session's first call: everything written or uncached), expired (the cache entries of earlier calls had lived out), miss (live entries, none a prefix of this payload), warm (a cached prefix is read)
                     * @enum {string}
                     */
                    basis: "cold" | "expired" | "miss" | "warm";
                };
            };
            compaction: {
                /** @enum {string} */
                mode: "auto" | "never" | "sync";
                available: boolean;
                /**
                 * @description compacted: compaction ran before this payload (blocked, history left out, or a deleted message to purge); scheduled: a background compaction was queued (should_compact); truncated: older entries were left out of this payload
                 * @enum {string}
                 */
                action: "none" | "truncated" | "scheduled" | "compacted";
                /** @description the queued background compaction (action scheduled) */
                job_id: string | null;
                /** @description what the compaction before this payload did */
                result: {
                    session_id: string;
                    before_tokens: number;
                    after_tokens: number;
                    before_messages: number;
                    after_messages: number;
                    strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                    lanes: {
                        lane_key: string;
                        /** @enum {string} */
                        outcome: "committed" | "fenced" | "skipped";
                        strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                        before_tokens: number;
                        after_tokens: number;
                        before_messages: number;
                        after_messages: number;
                        summary_version: number;
                        first_kept_seq: number;
                        cleared_before_seq: number;
                        summarizer: ("llm" | "extractive") | null;
                        fallback_reason: string | null;
                        summarizer_tokens: {
                            input: number;
                            output: number;
                        };
                        /** @description identifiers (ids, paths, URLs, numbers, error messages) of the summarized entries kept verbatim */
                        identifiers: {
                            total: number;
                            kept: number;
                        } | null;
                        /** @description names, numbers, dates and identifiers the new summary holds: of the entries this compaction summarized (slice) and of everything the lane summary ever covered (cumulative) */
                        key_terms: {
                            slice: {
                                total: number;
                                kept: number;
                            };
                            cumulative: {
                                total: number;
                                kept: number;
                            };
                        } | null;
                        /** @description seq of the compaction record in the transcript */
                        record_seq: number | null;
                        reason: string | null;
                    }[];
                } | null;
            };
            context: components["schemas"]["AssembledContext"];
            attachments: components["schemas"]["Attachment"][];
            deferred_tools: {
                name: string;
                description: string;
                source: string;
                tokens: number;
            }[];
            notes: string[];
            cache: {
                breakpoints: {
                    /** @enum {string} */
                    position: "system" | "tools" | "summary" | "previous_turn" | "this_turn";
                    index: number;
                    block?: number;
                }[];
                stable_prefix_tokens: number;
            };
            turn_seq: number | null;
            payload_sha256: string;
            dry_run: boolean;
            /** @description dry runs only: the retrieval candidates left out and why (a logged call: its context-log entry) */
            left_out?: components["schemas"]["LeftOut"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is up */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PostgreSQL, Redis and migrations are ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready" | "degraded" | "not_ready";
                        checks: {
                            /** @enum {string} */
                            postgres: "ok" | "down" | "disabled";
                            /** @enum {string} */
                            redis: "ok" | "down" | "disabled";
                            /** @enum {string} */
                            migrations: "ok" | "pending" | "down";
                        };
                        draining: boolean;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready (starting, draining, or a store cannot be reached): which check failed */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready" | "degraded" | "not_ready";
                        checks: {
                            /** @enum {string} */
                            postgres: "ok" | "down" | "disabled";
                            /** @enum {string} */
                            redis: "ok" | "down" | "disabled";
                            /** @enum {string} */
                            migrations: "ok" | "pending" | "down";
                        };
                        draining: boolean;
                    };
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text exposition of every contextd metric family */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description missing or wrong METRICS_TOKEN */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant the API key belongs to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tenant_id: string;
                        name: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: {
                key?: string;
                agent_id?: string;
                live?: "true" | "false";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sessions, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessions: {
                            id: string;
                            session_key: string;
                            agent_id: string | null;
                            platform: string | null;
                            channel_id: string | null;
                            user_id: string | null;
                            chat_type: string | null;
                            created_at: string;
                            updated_at: string;
                            last_turn_at: string | null;
                            ended_at: string | null;
                            live: boolean;
                            turn_count: number;
                            compaction_count: number;
                            total_tokens: number;
                            next_seq: number;
                            reset_from: string | null;
                            pending_tool_use_ids: string[];
                            calibration: {
                                [key: string]: {
                                    ratio: number | null;
                                    cache_read_share: number | null;
                                    calls: number;
                                };
                            };
                            /** @description the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted) */
                            cost_totals: {
                                calls: number;
                                cache_read: number;
                                cache_write: number;
                                uncached: number;
                                billed_input: number;
                            };
                            metadata: {
                                [key: string]: unknown;
                            };
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agent_id": "release-bot",
                 *       "platform": "slack",
                 *       "chat_type": "channel",
                 *       "channel_id": "C024BE91L"
                 *     }
                 */
                "application/json": {
                    /** @description explicit key, e.g. telegram:chat:123 */
                    session_key?: string;
                    agent_id?: string;
                    platform?: string;
                    chat_type?: string;
                    /** @description peer of a DM session */
                    user_id?: string;
                    /** @description peer of a group/channel session */
                    channel_id?: string;
                    /** @description freshness: a session whose last turn is older is replaced; default SESSION_MAX_AGE_MS */
                    max_age_ms?: number;
                    metadata?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description The live session for the key, still fresh (not replaced) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            session_key: string;
                            agent_id: string | null;
                            platform: string | null;
                            channel_id: string | null;
                            user_id: string | null;
                            chat_type: string | null;
                            created_at: string;
                            updated_at: string;
                            last_turn_at: string | null;
                            ended_at: string | null;
                            live: boolean;
                            turn_count: number;
                            compaction_count: number;
                            total_tokens: number;
                            next_seq: number;
                            reset_from: string | null;
                            pending_tool_use_ids: string[];
                            calibration: {
                                [key: string]: {
                                    ratio: number | null;
                                    cache_read_share: number | null;
                                    calls: number;
                                };
                            };
                            /** @description the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted) */
                            cost_totals: {
                                calls: number;
                                cache_read: number;
                                cache_write: number;
                                uncached: number;
                                billed_input: number;
                            };
                            metadata: {
                                [key: string]: unknown;
                            };
                        };
                        created: boolean;
                        /** @enum {string} */
                        reason: "new" | "stale" | "existing" | "reset";
                    };
                };
            };
            /** @description A new session (none was live for the key, or the live one was older than max_age) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            session_key: string;
                            agent_id: string | null;
                            platform: string | null;
                            channel_id: string | null;
                            user_id: string | null;
                            chat_type: string | null;
                            created_at: string;
                            updated_at: string;
                            last_turn_at: string | null;
                            ended_at: string | null;
                            live: boolean;
                            turn_count: number;
                            compaction_count: number;
                            total_tokens: number;
                            next_seq: number;
                            reset_from: string | null;
                            pending_tool_use_ids: string[];
                            calibration: {
                                [key: string]: {
                                    ratio: number | null;
                                    cache_read_share: number | null;
                                    calls: number;
                                };
                            };
                            /** @description the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted) */
                            cost_totals: {
                                calls: number;
                                cache_read: number;
                                cache_write: number;
                                uncached: number;
                                billed_input: number;
                            };
                            metadata: {
                                [key: string]: unknown;
                            };
                        };
                        created: boolean;
                        /** @enum {string} */
                        reason: "new" | "stale" | "existing" | "reset";
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session with its usage calibration per model */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        session_key: string;
                        agent_id: string | null;
                        platform: string | null;
                        channel_id: string | null;
                        user_id: string | null;
                        chat_type: string | null;
                        created_at: string;
                        updated_at: string;
                        last_turn_at: string | null;
                        ended_at: string | null;
                        live: boolean;
                        turn_count: number;
                        compaction_count: number;
                        total_tokens: number;
                        next_seq: number;
                        reset_from: string | null;
                        pending_tool_use_ids: string[];
                        calibration: {
                            [key: string]: {
                                ratio: number | null;
                                cache_read_share: number | null;
                                calls: number;
                            };
                        };
                        /** @description the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted) */
                        cost_totals: {
                            calls: number;
                            cache_read: number;
                            cache_write: number;
                            uncached: number;
                            billed_input: number;
                        };
                        metadata: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted with everything it held; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resetSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new session; the old one is ended and linked from it */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            session_key: string;
                            agent_id: string | null;
                            platform: string | null;
                            channel_id: string | null;
                            user_id: string | null;
                            chat_type: string | null;
                            created_at: string;
                            updated_at: string;
                            last_turn_at: string | null;
                            ended_at: string | null;
                            live: boolean;
                            turn_count: number;
                            compaction_count: number;
                            total_tokens: number;
                            next_seq: number;
                            reset_from: string | null;
                            pending_tool_use_ids: string[];
                            calibration: {
                                [key: string]: {
                                    ratio: number | null;
                                    cache_read_share: number | null;
                                    calls: number;
                                };
                            };
                            /** @description the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted) */
                            cost_totals: {
                                calls: number;
                                cache_read: number;
                                cache_write: number;
                                uncached: number;
                                billed_input: number;
                            };
                            metadata: {
                                [key: string]: unknown;
                            };
                        };
                        created: boolean;
                        /** @enum {string} */
                        reason: "new" | "stale" | "existing" | "reset";
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    newSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new session; the old one is ended and linked from it */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            id: string;
                            session_key: string;
                            agent_id: string | null;
                            platform: string | null;
                            channel_id: string | null;
                            user_id: string | null;
                            chat_type: string | null;
                            created_at: string;
                            updated_at: string;
                            last_turn_at: string | null;
                            ended_at: string | null;
                            live: boolean;
                            turn_count: number;
                            compaction_count: number;
                            total_tokens: number;
                            next_seq: number;
                            reset_from: string | null;
                            pending_tool_use_ids: string[];
                            calibration: {
                                [key: string]: {
                                    ratio: number | null;
                                    cache_read_share: number | null;
                                    calls: number;
                                };
                            };
                            /** @description the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted) */
                            cost_totals: {
                                calls: number;
                                cache_read: number;
                                cache_write: number;
                                uncached: number;
                                billed_input: number;
                            };
                            metadata: {
                                [key: string]: unknown;
                            };
                        };
                        created: boolean;
                        /** @enum {string} */
                        reason: "new" | "stale" | "existing" | "reset";
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    appendTurns: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "turns": [
                 *         {
                 *           "role": "assistant",
                 *           "content": [
                 *             {
                 *               "type": "text",
                 *               "text": "Let me check the release board."
                 *             },
                 *             {
                 *               "type": "tool_use",
                 *               "id": "toolu_01A09q90qw90lq917835lq9",
                 *               "name": "channel_context",
                 *               "input": {
                 *                 "intent": "release Friday blockers"
                 *               }
                 *             }
                 *           ],
                 *           "model": "claude-sonnet-5-5",
                 *           "usage": {
                 *             "input_tokens": 412,
                 *             "cache_read_input_tokens": 3870,
                 *             "output_tokens": 58
                 *           }
                 *         },
                 *         {
                 *           "role": "user",
                 *           "content": [
                 *             {
                 *               "type": "tool_result",
                 *               "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                 *               "content": "maria (14:02): the migration PR is the last blocker"
                 *             }
                 *           ]
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    turns: {
                        /** @enum {string} */
                        role: "user" | "assistant";
                        /** @description a string, or Anthropic content blocks: text, image, document, tool_use, tool_result, thinking */
                        content: string | ({
                            type: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        lane_key?: string;
                        author?: {
                            id?: string;
                            name?: string;
                        };
                        /**
                         * Format: date-time
                         * @description when the turn happened (group chats)
                         */
                        time?: string;
                        /** @description provider usage of the call that produced this assistant turn */
                        usage?: {
                            input_tokens: number;
                            output_tokens?: number | null;
                            cache_creation_input_tokens?: number | null;
                            cache_read_input_tokens?: number | null;
                        };
                        model?: string;
                        /** @description where the turn came from */
                        source?: {
                            [key: string]: string;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description The appended entries with their seq and token estimates (the same reply on a retry) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session_id: string;
                        entries: {
                            seq: number;
                            lane_key: string;
                            kind: string;
                            role: ("user" | "assistant") | null;
                            token_estimate: number;
                            created_at: string;
                            offloaded: {
                                tool_use_id: string;
                                ref_id: string;
                            }[];
                        }[];
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTranscript: {
        parameters: {
            query?: {
                /** @description the last seq of the previous page */
                cursor?: number;
                lane_key?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of transcript entries in seq order, with the seq to read on from */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entries: {
                            seq: number;
                            lane_key: string;
                            kind: string;
                            role: ("user" | "assistant") | null;
                            token_estimate: number;
                            created_at: string;
                            offloaded: {
                                tool_use_id: string;
                                ref_id: string;
                            }[];
                            content: unknown;
                            author: {
                                id?: string;
                                name?: string;
                            } | null;
                            turn_at: string | null;
                            usage: {
                                [key: string]: number;
                            } | null;
                            model: string | null;
                            source: {
                                [key: string]: string;
                            } | null;
                            idempotency_key: string | null;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAttachments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session's attachment manifest */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attachments: {
                            artifact_id: string;
                            content_hash: string;
                            display_name: string | null;
                            media_type: string | null;
                            source_message_id: string | null;
                            source_thread_id: string | null;
                            included_at_turn: number;
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    uploadBlob: {
        parameters: {
            query?: {
                filename?: string;
                /** @description owning session: deleted with it */
                session_id?: string;
            };
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
                "x-filename"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The same bytes were stored before: the existing artifact (deduplicated) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifact_id: string;
                        sha256: string;
                        byte_length: number;
                        media_type: string;
                        filename: string | null;
                        /** @enum {string} */
                        kind: "media" | "tool_result";
                        session_id: string | null;
                        created_at: string;
                        deduplicated: boolean;
                    };
                };
            };
            /** @description Stored: the new artifact with its id, SHA-256 and size */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifact_id: string;
                        sha256: string;
                        byte_length: number;
                        media_type: string;
                        filename: string | null;
                        /** @enum {string} */
                        kind: "media" | "tool_result";
                        session_id: string | null;
                        created_at: string;
                        deduplicated: boolean;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBlob: {
        parameters: {
            query?: {
                /** @description text slice: start byte */
                offset?: number;
                /** @description text slice: bytes (default 4096) */
                limit?: number;
            };
            header?: never;
            path: {
                artifactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole blob (its own Content-Type), or with ?offset=&limit= a JSON text slice */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifact_id: string;
                        media_type: string;
                        /** @description first byte of the slice */
                        offset: number;
                        /** @description bytes asked for (at most 65,536) */
                        limit: number;
                        total_bytes: number;
                        text: string;
                        /** @description where the next slice starts; null at the end */
                        next_offset: number | null;
                    };
                    "*/*": string;
                };
            };
            /** @description The byte range the Range header asked for (Content-Range says which) */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentSection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The section */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_id: string;
                        name: string;
                        content: string;
                        position: number;
                        cacheable: boolean;
                        sha256: string;
                        token_estimate: number;
                        updated_at: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putAgentSection: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                agentId: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content: string;
                    /** @description prompt order; default 0 */
                    position?: number;
                    /** @description static enough to sit before a cache breakpoint; default true */
                    cacheable?: boolean;
                };
            };
        };
        responses: {
            /** @description The section, replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_id: string;
                        name: string;
                        content: string;
                        position: number;
                        cacheable: boolean;
                        sha256: string;
                        token_estimate: number;
                        updated_at: string;
                    };
                };
            };
            /** @description The section, created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_id: string;
                        name: string;
                        content: string;
                        position: number;
                        cacheable: boolean;
                        sha256: string;
                        token_estimate: number;
                        updated_at: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAgentSection: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                agentId: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentSections: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent's sections in prompt order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sections: {
                            agent_id: string;
                            name: string;
                            content: string;
                            position: number;
                            cacheable: boolean;
                            sha256: string;
                            token_estimate: number;
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent's context-call defaults (null where none is set) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_id: string;
                        history_turns: number | null;
                        updated_at: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putAgentSettings: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description default of the context call's history_turns for this agent; null: send the whole lane */
                    history_turns: number | null;
                };
            };
        };
        responses: {
            /** @description The agent's context-call defaults as stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agent_id: string;
                        history_turns: number | null;
                        updated_at: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listMemories: {
        parameters: {
            query?: {
                scope?: "tenant" | "channel" | "user" | "session";
                scope_key?: string;
                type?: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of memories, newest first, with the cursor of the next page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        memories: {
                            id: string;
                            /** @enum {string} */
                            scope: "tenant" | "channel" | "user" | "session";
                            scope_key: string;
                            /** @enum {string} */
                            type: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                            text: string;
                            metadata: {
                                [key: string]: unknown;
                            };
                            source: string | null;
                            created_at: string;
                            updated_at: string;
                            expires_at: string | null;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createMemory: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "scope": "channel",
                 *       "scope_key": "slack:C024BE91L",
                 *       "type": "fact",
                 *       "text": "Releases ship on Fridays only after the migration checklist is signed off by maria.",
                 *       "source": "slack:C024BE91L/1700000123.000200"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    scope: "tenant" | "channel" | "user" | "session";
                    /** @description tenant: none; channel: "platform:channel_id"; user: the user id; session: the session key */
                    scope_key?: string;
                    /** @enum {string} */
                    type: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                    /** @description redacted before storing; at most 16,000 characters after redaction (413) */
                    text: string;
                    /** @description lane_key, summary_version, updated_at_ms, message_range; other keys are kept as given */
                    metadata?: {
                        lane_key?: string;
                        summary_version?: number;
                        updated_at_ms?: number;
                        message_range?: {
                            from?: string | number;
                            to?: string | number;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                    source?: string | null;
                    expires_at?: string | null;
                };
            };
        };
        responses: {
            /** @description The same text in the same scope and type exists: that memory (deduplicated) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A memory record */
                        memory: {
                            id: string;
                            /** @enum {string} */
                            scope: "tenant" | "channel" | "user" | "session";
                            scope_key: string;
                            /** @enum {string} */
                            type: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                            text: string;
                            metadata: {
                                [key: string]: unknown;
                            };
                            source: string | null;
                            created_at: string;
                            updated_at: string;
                            expires_at: string | null;
                        };
                        created: boolean;
                        deduplicated: boolean;
                        /** @description secrets replaced, by kind */
                        redactions: {
                            [key: string]: number;
                        };
                    };
                };
            };
            /** @description The memory, created (redacted), with what redaction replaced */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A memory record */
                        memory: {
                            id: string;
                            /** @enum {string} */
                            scope: "tenant" | "channel" | "user" | "session";
                            scope_key: string;
                            /** @enum {string} */
                            type: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                            text: string;
                            metadata: {
                                [key: string]: unknown;
                            };
                            source: string | null;
                            created_at: string;
                            updated_at: string;
                            expires_at: string | null;
                        };
                        created: boolean;
                        deduplicated: boolean;
                        /** @description secrets replaced, by kind */
                        redactions: {
                            [key: string]: number;
                        };
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The memory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        scope: "tenant" | "channel" | "user" | "session";
                        scope_key: string;
                        /** @enum {string} */
                        type: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                        text: string;
                        metadata: {
                            [key: string]: unknown;
                        };
                        source: string | null;
                        created_at: string;
                        updated_at: string;
                        expires_at: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteMemory: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateMemory: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Releases ship on Fridays only after the migration checklist is signed off by maria or ivan.",
                 *       "expires_at": "2027-06-30T00:00:00Z"
                 *     }
                 */
                "application/json": {
                    text?: string;
                    /** @enum {string} */
                    type?: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                    /** @description merged into the stored metadata */
                    metadata?: {
                        lane_key?: string;
                        summary_version?: number;
                        updated_at_ms?: number;
                        message_range?: {
                            from?: string | number;
                            to?: string | number;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                    source?: string | null;
                    expires_at?: string | null;
                };
            };
        };
        responses: {
            /** @description The memory as updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A memory record */
                        memory: {
                            id: string;
                            /** @enum {string} */
                            scope: "tenant" | "channel" | "user" | "session";
                            scope_key: string;
                            /** @enum {string} */
                            type: "fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state";
                            text: string;
                            metadata: {
                                [key: string]: unknown;
                            };
                            source: string | null;
                            created_at: string;
                            updated_at: string;
                            expires_at: string | null;
                        };
                        /** @description secrets replaced, by kind */
                        redactions: {
                            [key: string]: number;
                        };
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    searchMemories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": "who signs off the release checklist",
                 *       "max_results": 5,
                 *       "filters": {
                 *         "scope": "channel",
                 *         "scope_key": "slack:C024BE91L",
                 *         "types": [
                 *           "fact",
                 *           "outcome"
                 *         ]
                 *       },
                 *       "include_transcripts": false
                 *     }
                 */
                "application/json": {
                    query: string;
                    /** @default 8 */
                    max_results?: number;
                    /**
                     * @description scope/scope_key/types narrow memories, session_key narrows transcript chunks, platform/channel_id narrow channel messages; lane_key and since/until narrow every source
                     * @default {}
                     */
                    filters?: {
                        /** @enum {string} */
                        scope?: "tenant" | "channel" | "user" | "session";
                        scope_key?: string;
                        types?: ("fact" | "preference" | "outcome" | "event" | "lane_summary" | "session_summary" | "thread_state")[];
                        session_key?: string;
                        platform?: string;
                        channel_id?: string;
                        lane_key?: string;
                        /** Format: date-time */
                        since?: string;
                        /** Format: date-time */
                        until?: string;
                    };
                    /** @description the caller's lane: results from other lanes need a score ≥ 0.5 unless listed in named_lanes */
                    lane_key?: string;
                    named_lanes?: string[];
                    /** @default true */
                    include_memories?: boolean;
                    /** @default true */
                    include_transcripts?: boolean;
                    /** @default false */
                    include_channel_messages?: boolean;
                };
            };
        };
        responses: {
            /** @description The hits, best first, with scores and where each came from */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @enum {string} */
                            kind: "memory" | "transcript_chunk" | "channel_message";
                            id: string;
                            score: number;
                            snippet: string;
                            text: string;
                            time: string;
                            lane_key: string | null;
                            source: {
                                [key: string]: unknown;
                            };
                        }[];
                        terms: string[];
                        note?: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    ingestEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "events": [
                 *         {
                 *           "type": "message.created",
                 *           "event_id": "Ev0PV52K21",
                 *           "platform": "slack",
                 *           "channel_id": "C024BE91L",
                 *           "message_id": "1700000123.000200",
                 *           "thread_id": "1700000000.000100",
                 *           "ts": "2026-11-20T14:05:23Z",
                 *           "author": {
                 *             "id": "U061F7AUR",
                 *             "name": "maria"
                 *           },
                 *           "text": "Can we ship the release on Friday?"
                 *         },
                 *         {
                 *           "type": "reaction.added",
                 *           "platform": "slack",
                 *           "channel_id": "C024BE91L",
                 *           "message_id": "1700000123.000200",
                 *           "ts": "2026-11-20T14:06:01Z",
                 *           "reaction": "eyes",
                 *           "user_id": "U0G9QF9C6"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    events: ({
                        /** @enum {string} */
                        type: "message.created";
                        event_id?: string;
                        platform: string;
                        channel_id: string;
                        message_id: string;
                        /** Format: date-time */
                        ts: string;
                        channel?: {
                            name?: string;
                            /** @enum {string} */
                            kind?: "dm" | "group" | "channel";
                        };
                        thread_id?: string | null;
                        topic_id?: string | null;
                        reply_to_id?: string | null;
                        author: {
                            id: string;
                            name?: string;
                            is_bot?: boolean;
                        };
                        text: string;
                        media?: {
                            artifact_id?: string;
                            url?: string;
                            media_type?: string;
                            filename?: string;
                            sha256?: string;
                            byte_length?: number;
                            width?: number;
                            height?: number;
                            caption?: string;
                        }[];
                        metadata?: {
                            [key: string]: unknown;
                        };
                        is_copy?: boolean;
                    } | {
                        /** @enum {string} */
                        type: "message.edited";
                        event_id?: string;
                        platform: string;
                        channel_id: string;
                        message_id: string;
                        /** Format: date-time */
                        ts: string;
                        channel?: {
                            name?: string;
                            /** @enum {string} */
                            kind?: "dm" | "group" | "channel";
                        };
                        thread_id?: string | null;
                        topic_id?: string | null;
                        reply_to_id?: string | null;
                        /** Format: date-time */
                        message_ts?: string;
                        author?: {
                            id: string;
                            name?: string;
                            is_bot?: boolean;
                        };
                        text: string;
                        media?: {
                            artifact_id?: string;
                            url?: string;
                            media_type?: string;
                            filename?: string;
                            sha256?: string;
                            byte_length?: number;
                            width?: number;
                            height?: number;
                            caption?: string;
                        }[];
                    } | {
                        /** @enum {string} */
                        type: "message.deleted";
                        event_id?: string;
                        platform: string;
                        channel_id: string;
                        message_id: string;
                        /** Format: date-time */
                        ts: string;
                        channel?: {
                            name?: string;
                            /** @enum {string} */
                            kind?: "dm" | "group" | "channel";
                        };
                        /** Format: date-time */
                        message_ts?: string;
                    } | {
                        /** @enum {string} */
                        type: "reaction.added";
                        event_id?: string;
                        platform: string;
                        channel_id: string;
                        message_id: string;
                        /** Format: date-time */
                        ts: string;
                        channel?: {
                            name?: string;
                            /** @enum {string} */
                            kind?: "dm" | "group" | "channel";
                        };
                        /** Format: date-time */
                        message_ts?: string;
                        reaction: string;
                        reaction_name?: string;
                        user_id?: string;
                    } | {
                        /** @enum {string} */
                        type: "reaction.removed";
                        event_id?: string;
                        platform: string;
                        channel_id: string;
                        message_id: string;
                        /** Format: date-time */
                        ts: string;
                        channel?: {
                            name?: string;
                            /** @enum {string} */
                            kind?: "dm" | "group" | "channel";
                        };
                        /** Format: date-time */
                        message_ts?: string;
                        reaction: string;
                        reaction_name?: string;
                        user_id?: string;
                    })[];
                };
            };
        };
        responses: {
            /** @description The outcome of each event, by its position in the batch */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @description position of the event in the batch */
                            index: number;
                            /** @enum {string} */
                            type: "message.created" | "message.edited" | "message.deleted" | "reaction.added" | "reaction.removed";
                            message_id: string;
                            /** @enum {string} */
                            outcome: "created" | "updated" | "duplicate" | "ignored";
                            reason?: string;
                            /** @description the lane the message is in after this batch */
                            lane_key?: string;
                        }[];
                        counts: {
                            created: number;
                            updated: number;
                            duplicate: number;
                            ignored: number;
                        };
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    ingestPlatformEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                platform: "slack" | "telegram" | "discord";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description The outcome of each event the payload normalized to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @description position of the event in the batch */
                            index: number;
                            /** @enum {string} */
                            type: "message.created" | "message.edited" | "message.deleted" | "reaction.added" | "reaction.removed";
                            message_id: string;
                            /** @enum {string} */
                            outcome: "created" | "updated" | "duplicate" | "ignored";
                            reason?: string;
                            /** @description the lane the message is in after this batch */
                            lane_key?: string;
                        }[];
                        counts: {
                            created: number;
                            updated: number;
                            duplicate: number;
                            ignored: number;
                        };
                        /** @enum {string} */
                        outcome: "ingested" | "ignored";
                        /** @description why the payload was ignored, or which adapted events were dropped */
                        reason?: string;
                        /** @description Slack url_verification challenge, when that was the payload */
                        challenge?: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    slackWebhook: {
        parameters: {
            query?: never;
            header?: {
                "x-slack-signature"?: string;
                "x-slack-request-timestamp"?: string;
            };
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: the outcome of each event it carried (or the url_verification challenge) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results?: {
                            /** @description position of the event in the batch */
                            index: number;
                            /** @enum {string} */
                            type: "message.created" | "message.edited" | "message.deleted" | "reaction.added" | "reaction.removed";
                            message_id: string;
                            /** @enum {string} */
                            outcome: "created" | "updated" | "duplicate" | "ignored";
                            reason?: string;
                            /** @description the lane the message is in after this batch */
                            lane_key?: string;
                        }[];
                        counts?: {
                            created: number;
                            updated: number;
                            duplicate: number;
                            ignored: number;
                        };
                        /** @enum {boolean} */
                        ok: true;
                        /** @enum {string} */
                        outcome: "ingested" | "ignored" | "challenge";
                        reason?: string;
                        challenge?: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signature or secret refused */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    telegramWebhook: {
        parameters: {
            query?: never;
            header?: {
                "x-telegram-bot-api-secret-token"?: string;
            };
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: the outcome of each event the update carried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results?: {
                            /** @description position of the event in the batch */
                            index: number;
                            /** @enum {string} */
                            type: "message.created" | "message.edited" | "message.deleted" | "reaction.added" | "reaction.removed";
                            message_id: string;
                            /** @enum {string} */
                            outcome: "created" | "updated" | "duplicate" | "ignored";
                            reason?: string;
                            /** @description the lane the message is in after this batch */
                            lane_key?: string;
                        }[];
                        counts?: {
                            created: number;
                            updated: number;
                            duplicate: number;
                            ignored: number;
                        };
                        /** @enum {boolean} */
                        ok: true;
                        /** @enum {string} */
                        outcome: "ingested" | "ignored" | "challenge";
                        reason?: string;
                        challenge?: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Signature or secret refused */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getChannelSnapshot: {
        parameters: {
            query: {
                /** @description message id of the anchor */
                anchor: string;
                adjacent?: number;
            };
            header?: never;
            path: {
                platform: string;
                channelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ChannelSnapshot: the anchor message and the top-level messages before it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        schema_version: "1.0";
                        channel: {
                            id: string;
                            name: string;
                            platform: string;
                        };
                        anchor: {
                            message_id: string;
                            ts: string;
                            author: {
                                user_id: string;
                                display_name: string;
                                is_bot: boolean;
                            };
                            text: string;
                            media: {
                                artifact_id?: string;
                                url?: string;
                                media_type?: string;
                                filename?: string;
                                sha256?: string;
                                byte_length?: number;
                                width?: number;
                                height?: number;
                                caption?: string;
                            }[];
                            thread_id: string | null;
                        };
                        adjacent: {
                            message_id: string;
                            ts: string;
                            author: {
                                user_id: string;
                                display_name: string;
                                is_bot: boolean;
                            };
                            snippet: string;
                            thread_activity: {
                                reply_count: number;
                                replies_last_1h: number;
                                last_reply_ts: string | null;
                            } | null;
                            has_media: boolean;
                            reactions: string[];
                        }[];
                        /** @description present when history could not be fetched from the platform: the data may be stale */
                        notes?: string[];
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getThread: {
        parameters: {
            query?: {
                /** @description tokens, default 8000 */
                budget?: number;
                max_replies?: number;
            };
            header?: never;
            path: {
                platform: string;
                channelId: string;
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ThreadContext: the root and the most recent replies that fit the budget */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        schema_version: "1.0";
                        thread_id: string;
                        root: {
                            message_id: string;
                            ts: string;
                            author: {
                                user_id: string;
                                display_name: string;
                                is_bot: boolean;
                            };
                            text: string;
                            media: {
                                artifact_id?: string;
                                url?: string;
                                media_type?: string;
                                filename?: string;
                                sha256?: string;
                                byte_length?: number;
                                width?: number;
                                height?: number;
                                caption?: string;
                            }[];
                        };
                        replies: {
                            message_id: string;
                            ts: string;
                            author: {
                                user_id: string;
                                display_name: string;
                                is_bot: boolean;
                            };
                            text: string;
                            media: {
                                artifact_id?: string;
                                url?: string;
                                media_type?: string;
                                filename?: string;
                                sha256?: string;
                                byte_length?: number;
                                width?: number;
                                height?: number;
                                caption?: string;
                            }[];
                            is_truncated: boolean;
                        }[];
                        truncation: {
                            total_replies: number;
                            included_replies: number;
                            /** @enum {string} */
                            strategy: "most_recent";
                            omitted_range_ts: [
                                string,
                                string
                            ] | null;
                        };
                        token_estimate: number;
                        /** @description present when history could not be fetched from the platform: the data may be stale */
                        notes?: string[];
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listChannelMessages: {
        parameters: {
            query?: {
                /** @description inclusive */
                since?: string;
                /** @description exclusive */
                until?: string;
                cursor?: string;
                limit?: number;
                /** @description only messages not inside a thread (thread roots included) */
                top_level?: "true" | "false";
            };
            header?: never;
            path: {
                platform: string;
                channelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of messages, oldest first, with the cursor of the next page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        messages: {
                            message_id: string;
                            ts: string;
                            author: {
                                user_id: string;
                                display_name: string;
                                is_bot: boolean;
                            };
                            text: string;
                            media: {
                                artifact_id?: string;
                                url?: string;
                                media_type?: string;
                                filename?: string;
                                sha256?: string;
                                byte_length?: number;
                                width?: number;
                                height?: number;
                                caption?: string;
                            }[];
                            thread_id: string | null;
                            reply_to_id: string | null;
                            lane_key: string;
                            reply_count: number;
                            last_reply_ts: string | null;
                            reactions: {
                                [key: string]: number;
                            };
                            edited_at: string | null;
                            token_estimate: number;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getContext: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "message": {
                 *         "content": "Can we ship the release on Friday?",
                 *         "source": {
                 *           "platform": "slack",
                 *           "channel_id": "C024BE91L",
                 *           "message_id": "1700000123.000200"
                 *         },
                 *         "author": {
                 *           "id": "U061F7AUR",
                 *           "name": "maria"
                 *         }
                 *       },
                 *       "model": "claude-sonnet-5-5",
                 *       "budget": {
                 *         "total": 200000,
                 *         "max_output_tokens": 8192
                 *       },
                 *       "system": [
                 *         {
                 *           "name": "policy",
                 *           "text": "You are the release bot of the platform team.",
                 *           "cacheable": true
                 *         }
                 *       ],
                 *       "compaction": "auto"
                 *     }
                 */
                "application/json": {
                    message: {
                        /** @description a string, or Anthropic content blocks: text, image, document, tool_use, tool_result, thinking */
                        content: string | ({
                            type: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @description the channel message this turn is (its anchor) */
                        source?: {
                            platform: string;
                            channel_id: string;
                            message_id: string;
                        };
                        /** @description lane when there is no source message */
                        lane_key?: string;
                        author?: {
                            id?: string;
                            name?: string;
                        };
                        /** Format: date-time */
                        time?: string;
                    };
                    model?: string;
                    budget?: {
                        total?: number;
                        max_output_tokens?: number;
                        /** @description cap on what contextd adds beyond system, tools and the message (estimate units) */
                        max_context_tokens?: number;
                    };
                    system?: {
                        name: string;
                        text: string;
                        cacheable?: boolean;
                    }[];
                    agent_id?: string;
                    tools?: ({
                        type?: string | null;
                    } & {
                        [key: string]: unknown;
                    })[];
                    include?: {
                        snapshot?: boolean;
                        thread?: boolean;
                        memories?: boolean;
                        channel_search?: boolean;
                        lane_summaries?: boolean;
                        /** @enum {string} */
                        media?: "none" | "thread";
                    };
                    /** @enum {string} */
                    compaction?: "auto" | "never" | "sync";
                    /** @description at most this many of the lane's latest turns are sent (a view: nothing is dropped from the transcript, and a tool_use never loses its tool_result); default: the agent's (PUT /v1/agents/{agentId}/settings), else the whole lane */
                    history_turns?: number;
                    dry_run?: boolean;
                    /** @enum {string} */
                    format?: "anthropic" | "openai";
                };
            };
        };
        responses: {
            /** @description The Messages API payload for this turn, its budget report (with the cost report) and the context used */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextReply"];
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getContextLog: {
        parameters: {
            query?: {
                after_seq?: number;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The logged context calls of the session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        entries: {
                            turn_seq: number;
                            lane_key: string;
                            lane_version: number;
                            payload_sha256: string;
                            model: string | null;
                            budget: {
                                [key: string]: unknown;
                            };
                            deferred_tools: string[];
                            /** @description the deferred tools as the reply listed them (`deferred_tools` has their names) */
                            deferred_tool_details: {
                                name: string;
                                description: string;
                                source: string;
                                tokens: number;
                            }[];
                            /** @description the reply's `context`: parts by source, retrieved items with scores, the lane view */
                            context: components["schemas"]["AssembledContext"] | null;
                            /** @description the reply's `cache`: breakpoints and the stable prefix's tokens */
                            cache: {
                                breakpoints: {
                                    /** @enum {string} */
                                    position: "system" | "tools" | "summary" | "previous_turn" | "this_turn";
                                    index: number;
                                    block?: number;
                                }[];
                                stable_prefix_tokens: number;
                            } | null;
                            /** @description the reply's `notes` */
                            notes: string[] | null;
                            /** @description the reply's `attachments` */
                            attachments: components["schemas"]["Attachment"][] | null;
                            /** @description the retrieval candidates the payload left out and why (null: logged before they were kept) */
                            left_out: components["schemas"]["LeftOut"] | null;
                            /** @description When the call was made. */
                            created_at: string;
                            /** @description The time assembly took as now: the anchor message's, else the turn's stated time, else the lane's latest turn's. */
                            anchor_at: string | null;
                            /** @description Whether GET …/context-log/{seq}/payload can return this payload (calls logged since replay). */
                            replayable: boolean;
                        }[];
                        next_cursor: number | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getLoggedPayloadTokens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                seq: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Token estimates per block, in payload order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        turn_seq: number;
                        system: number[];
                        tools: number[];
                        messages: {
                            role: string;
                            overhead: number;
                            blocks: number[];
                        }[];
                        /** @description the sum of every block and overhead */
                        total: number;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getLoggedPayload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                seq: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payload as the logged call returned it, byte for byte (Payload-SHA256 header) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicPayload"] | components["schemas"]["OpenAIChatPayload"];
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTools: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The built-in tool definitions for the session, in the Messages API's tools shape */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tools: {
                            name: string;
                            description?: string;
                            input_schema: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    runTool: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default {} */
                    input?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description The tool_result content (is_error true when the tool failed on its input or state) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        content: ({
                            /** @enum {string} */
                            type: "text";
                            text: string;
                        } | {
                            /** @enum {string} */
                            type: "image";
                            source: {
                                /** @enum {string} */
                                type: "base64";
                                /** @enum {string} */
                                media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
                                data: string;
                            };
                        })[];
                        is_error: boolean;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setPendingSlot: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
                /** @description the lane key (e.g. thread:C1:1700000000.0001), at most 512 characters in the path */
                lane: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description what is being asked for, e.g. "delivery date" */
                    name: string;
                    /** @enum {string} */
                    type: "date" | "time" | "number" | "yes_no" | "email" | "choice" | "regex";
                    /** @description the question as the agent asked it */
                    prompt?: string;
                    /** @description for "choice": the allowed answers (by text, position or a single named choice) */
                    choices?: string[];
                    /** @description for "regex": a pattern the whole trimmed message must match, in RE2 syntax (JavaScript-like, linear time: no backreferences or lookaround) */
                    pattern?: string;
                    /**
                     * Format: date-time
                     * @description after this time the slot no longer applies (compared with the turn's time)
                     */
                    expires_at?: string;
                };
            };
        };
        responses: {
            /** @description The lane's pending slot as set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session_id: string;
                        lane_key: string;
                        pending_slot: {
                            /** @description what is being asked for, e.g. "delivery date" */
                            name: string;
                            /** @enum {string} */
                            type: "date" | "time" | "number" | "yes_no" | "email" | "choice" | "regex";
                            /** @description the question as the agent asked it */
                            prompt?: string;
                            /** @description for "choice": the allowed answers (by text, position or a single named choice) */
                            choices?: string[];
                            /** @description for "regex": a pattern the whole trimmed message must match, in RE2 syntax (JavaScript-like, linear time: no backreferences or lookaround) */
                            pattern?: string;
                            /**
                             * Format: date-time
                             * @description after this time the slot no longer applies (compared with the turn's time)
                             */
                            expires_at?: string;
                        } | null;
                        /** @description the lane state's version, bumped by every change of the slot */
                        version: number;
                        updated_at: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    clearPendingSlot: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
                /** @description the lane key (e.g. thread:C1:1700000000.0001), at most 512 characters in the path */
                lane: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No slot is pending now; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    compactSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description only these lanes (default: every lane of the session) */
                    lanes?: string[];
                    /** @description run now and reply with the result (waiting for a running compaction); default: queue a job, 202 */
                    wait?: boolean;
                    /** @description compact lanes that are under their thresholds too (default true) */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description The compaction ran (wait): what it summarized and the tokens before and after */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session_id: string;
                        before_tokens: number;
                        after_tokens: number;
                        before_messages: number;
                        after_messages: number;
                        strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                        lanes: {
                            lane_key: string;
                            /** @enum {string} */
                            outcome: "committed" | "fenced" | "skipped";
                            strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                            before_tokens: number;
                            after_tokens: number;
                            before_messages: number;
                            after_messages: number;
                            summary_version: number;
                            first_kept_seq: number;
                            cleared_before_seq: number;
                            summarizer: ("llm" | "extractive") | null;
                            fallback_reason: string | null;
                            summarizer_tokens: {
                                input: number;
                                output: number;
                            };
                            /** @description identifiers (ids, paths, URLs, numbers, error messages) of the summarized entries kept verbatim */
                            identifiers: {
                                total: number;
                                kept: number;
                            } | null;
                            /** @description names, numbers, dates and identifiers the new summary holds: of the entries this compaction summarized (slice) and of everything the lane summary ever covered (cumulative) */
                            key_terms: {
                                slice: {
                                    total: number;
                                    kept: number;
                                };
                                cumulative: {
                                    total: number;
                                    kept: number;
                                };
                            } | null;
                            /** @description seq of the compaction record in the transcript */
                            record_seq: number | null;
                            reason: string | null;
                        }[];
                    };
                };
            };
            /** @description A compaction job was queued: poll its URL */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job_id: string;
                        session_id: string;
                        /** @enum {string} */
                        state: "created" | "retry" | "active" | "completed" | "failed" | "cancelled";
                        /** @description a job for this session was already queued: this is that job (it will see the new turns too) */
                        deduplicated?: boolean;
                        result?: {
                            session_id: string;
                            before_tokens: number;
                            after_tokens: number;
                            before_messages: number;
                            after_messages: number;
                            strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                            lanes: {
                                lane_key: string;
                                /** @enum {string} */
                                outcome: "committed" | "fenced" | "skipped";
                                strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                                before_tokens: number;
                                after_tokens: number;
                                before_messages: number;
                                after_messages: number;
                                summary_version: number;
                                first_kept_seq: number;
                                cleared_before_seq: number;
                                summarizer: ("llm" | "extractive") | null;
                                fallback_reason: string | null;
                                summarizer_tokens: {
                                    input: number;
                                    output: number;
                                };
                                /** @description identifiers (ids, paths, URLs, numbers, error messages) of the summarized entries kept verbatim */
                                identifiers: {
                                    total: number;
                                    kept: number;
                                } | null;
                                /** @description names, numbers, dates and identifiers the new summary holds: of the entries this compaction summarized (slice) and of everything the lane summary ever covered (cumulative) */
                                key_terms: {
                                    slice: {
                                        total: number;
                                        kept: number;
                                    };
                                    cumulative: {
                                        total: number;
                                        kept: number;
                                    };
                                } | null;
                                /** @description seq of the compaction record in the transcript */
                                record_seq: number | null;
                                reason: string | null;
                            }[];
                        } | null;
                        error?: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCompactionJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job's state and, once done, its result */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job_id: string;
                        session_id: string;
                        /** @enum {string} */
                        state: "created" | "retry" | "active" | "completed" | "failed" | "cancelled";
                        /** @description a job for this session was already queued: this is that job (it will see the new turns too) */
                        deduplicated?: boolean;
                        result?: {
                            session_id: string;
                            before_tokens: number;
                            after_tokens: number;
                            before_messages: number;
                            after_messages: number;
                            strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                            lanes: {
                                lane_key: string;
                                /** @enum {string} */
                                outcome: "committed" | "fenced" | "skipped";
                                strategies_run: ("clear_tool_results" | "summarize" | "truncate")[];
                                before_tokens: number;
                                after_tokens: number;
                                before_messages: number;
                                after_messages: number;
                                summary_version: number;
                                first_kept_seq: number;
                                cleared_before_seq: number;
                                summarizer: ("llm" | "extractive") | null;
                                fallback_reason: string | null;
                                summarizer_tokens: {
                                    input: number;
                                    output: number;
                                };
                                /** @description identifiers (ids, paths, URLs, numbers, error messages) of the summarized entries kept verbatim */
                                identifiers: {
                                    total: number;
                                    kept: number;
                                } | null;
                                /** @description names, numbers, dates and identifiers the new summary holds: of the entries this compaction summarized (slice) and of everything the lane summary ever covered (cumulative) */
                                key_terms: {
                                    slice: {
                                        total: number;
                                        kept: number;
                                    };
                                    cumulative: {
                                        total: number;
                                        kept: number;
                                    };
                                } | null;
                                /** @description seq of the compaction record in the transcript */
                                record_seq: number | null;
                                reason: string | null;
                            }[];
                        } | null;
                        error?: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSummarizerBudget: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description This month's summarizer spend and the tenant's cap */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description summarizer tokens (input + output) per calendar month; past it the extractive summarizer is used */
                        monthly_token_cap: number | null;
                        /** @description the current month (UTC), e.g. 2026-11 */
                        period: string;
                        /** @description provider-reported summarizer input tokens this month */
                        input_tokens: number;
                        /** @description provider-reported summarizer output tokens this month */
                        output_tokens: number;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setSummarizerBudget: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    monthly_token_cap: number | null;
                };
            };
        };
        responses: {
            /** @description The cap as stored, with this month's spend */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description summarizer tokens (input + output) per calendar month; past it the extractive summarizer is used */
                        monthly_token_cap: number | null;
                        /** @description the current month (UTC), e.g. 2026-11 */
                        period: string;
                        /** @description provider-reported summarizer input tokens this month */
                        input_tokens: number;
                        /** @description provider-reported summarizer output tokens this month */
                        output_tokens: number;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getLane: {
        parameters: {
            query?: {
                /** @description true: also return the original entries the summary covers */
                expand?: "true" | "false";
                limit?: number;
                /** @description expansion cursor: entries after this seq */
                after?: number;
            };
            header?: never;
            path: {
                id: string;
                /** @description the lane key (e.g. thread:C1:1700000000.0001), at most 512 characters in the path */
                lane: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lane's state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session_id: string;
                        lane_key: string;
                        summary: string | null;
                        summary_version: number;
                        summary_updated_at: string | null;
                        summary_stale: boolean;
                        summarized_through_seq: number;
                        first_kept_seq: number;
                        cleared_before_seq: number;
                        version: number;
                        purge_pending: boolean;
                        kept_entries: number;
                        kept_tokens: number;
                        /** @description compaction records of this lane in the transcript */
                        compactions: number;
                        expanded: {
                            entries: {
                                seq: number;
                                role: ("user" | "assistant") | null;
                                kind: string;
                                content: unknown;
                                created_at: string;
                            }[];
                            next_cursor: number | null;
                        } | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPlatformCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a platform whose API contextd can call */
                platform: "slack" | "telegram" | "discord";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Whether a token is stored (its last 4 characters at most) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        platform: "slack" | "telegram" | "discord";
                        configured: boolean;
                        workspace_id: string | null;
                        token_hint: string | null;
                        encrypted: boolean;
                        updated_at: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putPlatformCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                /** @description a platform whose API contextd can call */
                platform: "slack" | "telegram" | "discord";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Slack xoxb-…, Discord bot token, Telegram <id>:<secret>; stored, never returned */
                    bot_token: string;
                    /** @description Slack team id (T…) or Discord guild id the token is used in; not for Telegram */
                    workspace_id?: string;
                };
            };
        };
        responses: {
            /** @description Replaced the stored token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        platform: "slack" | "telegram" | "discord";
                        configured: boolean;
                        workspace_id: string | null;
                        token_hint: string | null;
                        encrypted: boolean;
                        updated_at: string | null;
                    };
                };
            };
            /** @description Stored a token */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        platform: "slack" | "telegram" | "discord";
                        configured: boolean;
                        workspace_id: string | null;
                        token_hint: string | null;
                        encrypted: boolean;
                        updated_at: string | null;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePlatformCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                /** @description a platform whose API contextd can call */
                platform: "slack" | "telegram" | "discord";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No token is stored now; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putPlatformUsers: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                platform: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description entries to store or replace (others stay); at most 1000 per call, ids unique */
                    users: {
                        user_id: string;
                        display_name: string;
                        real_name?: string;
                        is_bot?: boolean;
                    }[];
                };
            };
        };
        responses: {
            /** @description How many names were stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        platform: string;
                        stored: number;
                        updated_at: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPlatformUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                platform: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The directory entry */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user_id: string;
                        display_name: string;
                        real_name: string | null;
                        is_bot: boolean;
                        /** @enum {string} */
                        source: "pushed" | "resolved";
                        fetched_at: string;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRetention: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's retention periods and those in force */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description channel messages, transcripts, idle sessions, derived memories and unused blobs older than this many days are deleted; 0: kept; null: RETENTION_DAYS */
                        conversation_days: number | null;
                        /** @description context-log rows older than this many days are deleted, and the payload parts of the weeks wholly older; 0: kept; null: CONTEXT_LOG_RETENTION_DAYS */
                        context_log_days: number | null;
                        /** @description the periods in force (the tenant’s own, else the defaults); 0: kept */
                        effective: {
                            conversation_days: number;
                            context_log_days: number;
                        };
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setRetention: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description channel messages, transcripts, idle sessions, derived memories and unused blobs older than this many days are deleted; 0: kept; null: RETENTION_DAYS */
                    conversation_days: number | null;
                    /** @description context-log rows older than this many days are deleted, and the payload parts of the weeks wholly older; 0: kept; null: CONTEXT_LOG_RETENTION_DAYS */
                    context_log_days: number | null;
                };
            };
        };
        responses: {
            /** @description The tenant's retention periods as stored and those in force */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description channel messages, transcripts, idle sessions, derived memories and unused blobs older than this many days are deleted; 0: kept; null: RETENTION_DAYS */
                        conversation_days: number | null;
                        /** @description context-log rows older than this many days are deleted, and the payload parts of the weeks wholly older; 0: kept; null: CONTEXT_LOG_RETENTION_DAYS */
                        context_log_days: number | null;
                        /** @description the periods in force (the tenant’s own, else the defaults); 0: kept */
                        effective: {
                            conversation_days: number;
                            context_log_days: number;
                        };
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    eraseChannelMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                platform: string;
                channelId: string;
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erased (or erased before: `already_erased` and the first erase record), with what each place changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The audit record of an erase: who erased what and when, and what it touched; never the text */
                        erasure: {
                            id: string;
                            target: {
                                /** @enum {string} */
                                kind: "channel_message";
                                platform: string;
                                channel_id: string;
                                message_id: string;
                            } | {
                                /** @enum {string} */
                                kind: "transcript_entry";
                                session_id: string;
                                seq: number;
                            };
                            /** @description the API key that asked for the erase */
                            actor: {
                                api_key_id: string | null;
                                api_key_name: string | null;
                            };
                            erased_at: string;
                            /** @description rows changed per place: transcript_entries, compaction_records (their summaries), payload_parts, context_log, stored_replies, lane_summaries, memories, chunk_lanes */
                            touched: {
                                [key: string]: number;
                            };
                        };
                        /** @description true when the target had been erased before: nothing changed, the first erase is answered */
                        already_erased: boolean;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    eraseTranscriptEntry: {
        parameters: {
            query?: never;
            header?: {
                /** @description the same key and body replay the first reply; another body is a 409 */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
                seq: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erased (or erased before: `already_erased` and the first erase record), with what each place changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The audit record of an erase: who erased what and when, and what it touched; never the text */
                        erasure: {
                            id: string;
                            target: {
                                /** @enum {string} */
                                kind: "channel_message";
                                platform: string;
                                channel_id: string;
                                message_id: string;
                            } | {
                                /** @enum {string} */
                                kind: "transcript_entry";
                                session_id: string;
                                seq: number;
                            };
                            /** @description the API key that asked for the erase */
                            actor: {
                                api_key_id: string | null;
                                api_key_name: string | null;
                            };
                            erased_at: string;
                            /** @description rows changed per place: transcript_entries, compaction_records (their summaries), payload_parts, context_log, stored_replies, lane_summaries, memories, chunk_lanes */
                            touched: {
                                [key: string]: number;
                            };
                        };
                        /** @description true when the target had been erased before: nothing changed, the first erase is answered */
                        already_erased: boolean;
                    };
                };
            };
            /** @description Bad input: `request.invalid` with the field path in `details`, or another 4xx code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (another tenant's ids are not found either) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency.key_reused`: another body under this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited (`rate_limited`); retry after `retry-after` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the instance runs as much work as it takes and did nothing of this request; send it again after `retry-after-ms` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, in the same shape (5xx hide their internals) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}

// Memories: create (redacted, deduplicated per scope and type), read, list, update, delete.
import type { Clock, IdGenerator } from '../../shared/clock.js';
import { MAX_MEMORY_CHARS, memoryTextKey } from './core/memories.js';
import { redactSecrets, type RedactionResult } from './core/redaction.js';
import type { Executor } from '../../db/client.js';
import { badRequest, tooLarge } from '../../shared/errors.js';
import type { MemoriesRepository, MemoryRow, MemoryScope, MemoryType } from './memories.repository.js';
import type { createIdempotencyService } from '../../http/idempotency/idempotency.service.js';
import { memoryNotFound } from './memory.errors.js';

type IdempotencyService = ReturnType<typeof createIdempotencyService>;

interface MemoryMetadata {
  lane_key?: string;
  summary_version?: number;
  updated_at_ms?: number;
  message_range?: { from?: string | number; to?: string | number };
  [key: string]: unknown;
}

interface MemoryInput {
  scope: MemoryScope;
  scope_key?: string;
  type: MemoryType;
  text: string;
  metadata?: MemoryMetadata;
  source?: string | null;
  expires_at?: string | null;
}

interface MemoryPatch {
  text?: string;
  type?: MemoryType;
  metadata?: MemoryMetadata;
  source?: string | null;
  expires_at?: string | null;
}

interface MemoryView {
  id: string;
  scope: MemoryScope;
  scope_key: string;
  type: MemoryType;
  text: string;
  metadata: MemoryMetadata;
  source: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
}

interface CreateMemoryReply {
  memory: MemoryView;
  created: boolean;
  /** True when the same text already existed in this scope and type: the older record is returned. */
  deduplicated: boolean;
  redactions: RedactionResult['counts'];
}

function memoryView(row: MemoryRow): MemoryView {
  return {
    id: row.id,
    scope: row.scope,
    scope_key: row.scopeKey,
    type: row.type,
    text: row.text,
    metadata: row.metadata as MemoryMetadata,
    source: row.source,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
}

/** Redacts, then enforces the size limit and non-emptiness. */
function prepareText(text: string, field: string): RedactionResult {
  const redacted = redactSecrets(text);
  if (redacted.text.trim() === '') {
    throw badRequest('memory.empty_text', `${field} must contain text`, [{ path: field, message: 'empty' }]);
  }
  if (redacted.text.length > MAX_MEMORY_CHARS) {
    throw tooLarge(
      'memory.too_large',
      `memory text is ${redacted.text.length} characters; the limit is ${MAX_MEMORY_CHARS}`,
      {
        path: field,
        length: redacted.text.length,
        limit: MAX_MEMORY_CHARS,
      },
    );
  }
  return redacted;
}

/** The tenant scope has one key (''); every other scope needs one. */
function scopeKeyOf(scope: MemoryScope, scopeKey: string | undefined): string {
  if (scope === 'tenant') {
    if (scopeKey)
      throw badRequest('memory.scope_key_not_allowed', 'scope "tenant" takes no scope_key', [
        { path: 'body.scope_key' },
      ]);
    return '';
  }
  if (!scopeKey) {
    throw badRequest('memory.scope_key_required', `scope "${scope}" needs a scope_key`, [
      { path: 'body.scope_key' },
    ]);
  }
  return scopeKey;
}

function parseExpiry(value: string | null | undefined, now: Date): Date | null {
  if (!value) return null;
  const at = new Date(value);
  if (at.getTime() <= now.getTime()) {
    throw badRequest('memory.expires_in_past', 'expires_at must be in the future', [
      { path: 'body.expires_at' },
    ]);
  }
  return at;
}

export function createMemoriesService(deps: {
  memories: MemoriesRepository;
  idempotency: IdempotencyService;
  clock: Clock;
  ids: IdGenerator;
}) {
  const { memories, idempotency, clock, ids } = deps;

  async function createIn(
    tx: Executor,
    tenantId: string,
    input: MemoryInput,
  ): Promise<{ statusCode: number; body: CreateMemoryReply }> {
    const now = clock.now();
    const scopeKey = scopeKeyOf(input.scope, input.scope_key);
    const redacted = prepareText(input.text, 'body.text');
    const values = {
      scope: input.scope,
      scopeKey,
      type: input.type,
      text: redacted.text,
      textKey: memoryTextKey(redacted.text),
      metadata: input.metadata ?? {},
      source: input.source ?? null,
      expiresAt: parseExpiry(input.expires_at, now),
      at: now,
    };
    const inserted = await memories.insert({ tenantId, id: ids.next(), ...values }, tx);
    if (inserted) {
      return {
        statusCode: 201,
        body: {
          memory: memoryView(inserted),
          created: true,
          deduplicated: false,
          redactions: redacted.counts,
        },
      };
    }
    const existing = await memories.findByTextKey({ tenantId, ...values }, tx);
    if (!existing) throw new Error('memory insert conflicted but no record holds its text key');
    if (existing.expiresAt && existing.expiresAt.getTime() <= now.getTime()) {
      // An expired record is already gone for every reader; the new fact takes its place.
      const revived = await memories.revive({ tenantId, id: existing.id, values }, tx);
      return {
        statusCode: 201,
        body: {
          memory: memoryView(revived!),
          created: true,
          deduplicated: false,
          redactions: redacted.counts,
        },
      };
    }
    return {
      statusCode: 200,
      body: { memory: memoryView(existing), created: false, deduplicated: true, redactions: redacted.counts },
    };
  }

  return {
    /** Creates a memory, or returns the existing one with the same normalized text (200, created: false). */
    async create(params: { tenantId: string; input: MemoryInput; idempotencyKey?: string }) {
      const { tenantId, input, idempotencyKey } = params;
      return idempotency.run(
        { tenantId, scope: 'memories.create', key: idempotencyKey, request: input },
        (tx) => createIn(tx, tenantId, input),
      );
    },

    /** For other services (summaries, tools) writing inside their own transaction. */
    createIn,

    async get({ tenantId, id }: { tenantId: string; id: string }): Promise<MemoryView> {
      const row = await memories.findById({ tenantId, id, now: clock.now() });
      if (!row) throw memoryNotFound(id);
      return memoryView(row);
    },

    async list(params: {
      tenantId: string;
      scope?: MemoryScope;
      scopeKey?: string;
      type?: MemoryType;
      cursor?: string;
      limit: number;
    }): Promise<{ memories: MemoryView[]; next_cursor: string | null }> {
      const rows = await memories.list({
        tenantId: params.tenantId,
        scope: params.scope,
        scopeKey: params.scopeKey,
        type: params.type,
        before: params.cursor,
        limit: params.limit + 1,
        now: clock.now(),
      });
      const page = rows.slice(0, params.limit);
      return {
        memories: page.map(memoryView),
        next_cursor: rows.length > params.limit ? page[page.length - 1]!.id : null,
      };
    },

    /** Text changes are redacted and re-keyed; a text that another record of the scope has is a 409. */
    async update(params: { tenantId: string; id: string; patch: MemoryPatch; idempotencyKey?: string }) {
      const { tenantId, id, patch, idempotencyKey } = params;
      return idempotency.run(
        { tenantId, scope: `memories.update:${id}`, key: idempotencyKey, request: patch },
        async (tx) => {
          const now = clock.now();
          const current = await memories.findById({ tenantId, id, now }, tx);
          if (!current) throw memoryNotFound(id);
          const redacted = patch.text !== undefined ? prepareText(patch.text, 'body.text') : null;
          const row = await memories.update(
            {
              tenantId,
              id,
              set: {
                updatedAt: now,
                ...(redacted ? { text: redacted.text, textKey: memoryTextKey(redacted.text) } : {}),
                ...(patch.type ? { type: patch.type } : {}),
                ...(patch.metadata ? { metadata: { ...current.metadata, ...patch.metadata } } : {}),
                ...(patch.source !== undefined ? { source: patch.source } : {}),
                ...(patch.expires_at !== undefined ? { expiresAt: parseExpiry(patch.expires_at, now) } : {}),
              },
            },
            tx,
          );
          return { statusCode: 200, body: { memory: memoryView(row!), redactions: redacted?.counts ?? {} } };
        },
      );
    },

    async delete(params: { tenantId: string; id: string; idempotencyKey?: string }) {
      const { tenantId, id, idempotencyKey } = params;
      return idempotency.run(
        { tenantId, scope: `memories.delete:${id}`, key: idempotencyKey, request: { id } },
        async (tx) => {
          const deleted = await memories.delete({ tenantId, id }, tx);
          if (!deleted) throw memoryNotFound(id);
          return { statusCode: 204, body: null };
        },
      );
    },
  };
}

export type MemoriesService = ReturnType<typeof createMemoriesService>;

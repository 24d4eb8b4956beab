// The channel repository as the read side sees it: authors stored by id only come back with the
// user directory's display name (src/modules/platforms). Ingest keeps the unwrapped repository, so
// directory names are never written into messages.
import type { Executor } from '../../db/client.js';
import type { ChannelsRepository } from './channels.repository.js';
import type { StoredMessage } from './channel-rows.repository.js';
import { redactText } from '../memory/core/redaction.js';

/** What a name is filled in on: a message's author (a whole message, or the columns read of it). */
type Authored = Pick<StoredMessage, 'platform' | 'authorId' | 'authorName' | 'authorIsBot'>;

export interface AuthorNames {
  fillNames<T extends Authored>(tenantId: string, messages: T[]): Promise<T[]>;
}

type Params<K extends keyof ChannelsRepository> = Parameters<ChannelsRepository[K]>[0];

export function withAuthorNames(repo: ChannelsRepository, names: AuthorNames): ChannelsRepository {
  return {
    ...repo,
    getMessages: async (scope: Params<'getMessages'>, tx?: Executor) =>
      names.fillNames(scope.tenantId, await repo.getMessages(scope, tx)),
    withNames: async <T extends StoredMessage>(tenantId: string, rows: T[]) =>
      names.fillNames(tenantId, rows),
    getRow: async (scope: Params<'getRow'>, tx?: Executor) => {
      const row = await repo.getRow(scope, tx);
      return row ? ((await names.fillNames(scope.tenantId, [row]))[0] ?? row) : null;
    },
    topLevelBefore: async (scope: Params<'topLevelBefore'>, tx?: Executor) =>
      names.fillNames(scope.tenantId, await repo.topLevelBefore(scope, tx)),
    snapshotRows: async (scope: Params<'snapshotRows'>, tx?: Executor) => {
      const read = await repo.snapshotRows(scope, tx);
      return { ...read, rows: await names.fillNames(scope.tenantId, read.rows) };
    },
    neighbours: async (scope: Params<'neighbours'>, tx?: Executor) =>
      names.fillNames(scope.tenantId, await repo.neighbours(scope, tx)),
    threadReplies: async (scope: Params<'threadReplies'>, tx?: Executor) => {
      const result = await repo.threadReplies(scope, tx);
      return { ...result, replies: await names.fillNames(scope.tenantId, result.replies) };
    },
    listMessages: async (scope: Params<'listMessages'>, tx?: Executor) =>
      names.fillNames(scope.tenantId, await repo.listMessages(scope, tx)),
  };
}

/** Messages as a reader sees them: secrets in their text redacted (the stored rows keep it). */
function redactRows<T extends Pick<StoredMessage, 'text'>>(rows: T[]): T[] {
  return rows.map((row) => {
    const text = redactText(row.text);
    return text === row.text ? row : { ...row, text };
  });
}

/**
 * The channel repository as every read shows it (snapshots, threads, lists, tools, the context
 * call's channel context): message text with secrets redacted. The rows themselves are the audit
 * record and keep what was said; ingest keeps the unwrapped repository, so nothing redacted is
 * ever written back.
 */
export function withRedactedText(repo: ChannelsRepository): ChannelsRepository {
  return {
    ...repo,
    getMessages: async (scope: Params<'getMessages'>, tx?: Executor) =>
      redactRows(await repo.getMessages(scope, tx)),
    withNames: async <T extends StoredMessage>(tenantId: string, rows: T[]) =>
      redactRows(await repo.withNames(tenantId, rows)),
    getRow: async (scope: Params<'getRow'>, tx?: Executor) => {
      const row = await repo.getRow(scope, tx);
      return row ? redactRows([row])[0]! : null;
    },
    topLevelBefore: async (scope: Params<'topLevelBefore'>, tx?: Executor) =>
      redactRows(await repo.topLevelBefore(scope, tx)),
    snapshotRows: async (scope: Params<'snapshotRows'>, tx?: Executor) => {
      const read = await repo.snapshotRows(scope, tx);
      return { ...read, rows: redactRows(read.rows) };
    },
    neighbours: async (scope: Params<'neighbours'>, tx?: Executor) =>
      redactRows(await repo.neighbours(scope, tx)),
    threadReplies: async (scope: Params<'threadReplies'>, tx?: Executor) => {
      const result = await repo.threadReplies(scope, tx);
      return { ...result, replies: redactRows(result.replies) };
    },
    listMessages: async (scope: Params<'listMessages'>, tx?: Executor) =>
      redactRows(await repo.listMessages(scope, tx)),
  };
}

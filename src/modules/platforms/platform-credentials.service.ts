// Per-tenant platform bot tokens: format-checked, sealed at rest, never returned. The platform
// clients get the opened token through `credentialFor`.
import type { Executor } from '../../db/client.js';
import type { SupportedPlatform } from '../../platforms/index.js';
import type { PlatformCredential } from '../../platforms/api/platform-call.js';
import type { Clock } from '../../shared/clock.js';
import { openToken, sealToken, tokenHint } from './core/token-cipher.js';
import { credentialProblems } from './core/token-format.js';
import type {
  PlatformCredentialRow,
  PlatformCredentialsRepository,
} from './platform-credentials.repository.js';
import { credentialFormatInvalid, tokenKeyMissing } from './platforms.errors.js';
import type { CredentialsView } from './platforms.schemas.js';

const view = (platform: SupportedPlatform, row: PlatformCredentialRow | null): CredentialsView => ({
  platform,
  configured: row !== null,
  workspace_id: row?.workspaceId ?? null,
  token_hint: row?.tokenHint ?? null,
  encrypted: row?.token.startsWith('enc:') ?? false,
  updated_at: row?.updatedAt.toISOString() ?? null,
});

export function createPlatformCredentialsService(deps: {
  credentials: PlatformCredentialsRepository;
  clock: Clock;
  /** PLATFORM_TOKEN_KEY: 32 bytes, or unset (tokens stored as given; refused in production). */
  tokenKey: Buffer | undefined;
  production: boolean;
}) {
  const { credentials } = deps;
  return {
    async put(
      params: { tenantId: string; platform: SupportedPlatform; botToken: string; workspaceId?: string },
      tx?: Executor,
    ) {
      const problems = credentialProblems(params.platform, params.botToken, params.workspaceId);
      if (problems.length > 0) throw credentialFormatInvalid(problems);
      if (deps.production && !deps.tokenKey) throw tokenKeyMissing();
      const { row, created } = await credentials.upsert(
        {
          tenantId: params.tenantId,
          platform: params.platform,
          workspaceId: params.workspaceId ?? null,
          token: sealToken(params.botToken, deps.tokenKey),
          tokenHint: tokenHint(params.botToken),
          at: deps.clock.now(),
        },
        tx,
      );
      return { view: view(params.platform, row), created };
    },

    /** Whether any tenant has a bot token stored. */
    anyStored: () => credentials.anyStored(),

    async get(params: { tenantId: string; platform: SupportedPlatform }): Promise<CredentialsView> {
      return view(params.platform, await credentials.find(params));
    },

    async remove(params: { tenantId: string; platform: SupportedPlatform }, tx?: Executor) {
      return credentials.remove(params, tx);
    },

    /** The opened token, or null when none is stored or it was sealed under another key. */
    async credentialFor(params: {
      tenantId: string;
      platform: SupportedPlatform;
    }): Promise<PlatformCredential | null> {
      const row = await credentials.find(params);
      const token = row ? openToken(row.token, deps.tokenKey) : null;
      if (!row || token === null) return null;
      return { tenantId: params.tenantId, platform: params.platform, token, workspaceId: row.workspaceId };
    },
  };
}

export type PlatformCredentialsService = ReturnType<typeof createPlatformCredentialsService>;

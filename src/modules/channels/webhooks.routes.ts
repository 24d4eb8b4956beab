// Platform webhooks: Slack Events API and Telegram setWebhook deliveries, authenticated by the
// tenant's signing secret instead of an API key. The raw body is needed for Slack's signature,
// so this plugin (and only this plugin, by encapsulation) reads bodies as bytes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, badRequest, unauthorized } from '../../shared/errors.js';
import type { SupportedPlatform } from '../../platforms/index.js';
import { verifySlackSignature } from '../../platforms/slack.js';
import { verifyTelegramSecret } from '../../platforms/telegram.js';
import type { AppDeps } from '../../deps.js';
import { jsonTooDeep } from '../../http/json-body.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../shared/json-depth.js';
import type { Services } from '../services.js';
import { ingestReply } from './events.routes.js';

const webhookReply = ingestReply.partial().extend({
  ok: z.literal(true),
  outcome: z.enum(['ingested', 'ignored', 'challenge']),
  reason: z.string().optional(),
  challenge: z.string().optional(),
});

const params = z.object({ tenantId: z.string().min(1).max(128) });

/** Same answer for an unknown tenant, a missing secret and a bad signature: existence is not revealed. */
const rejected = () => unauthorized('webhook.unauthorized', 'the webhook signature or secret is not valid');

function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw jsonTooDeep();
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('request.malformed_json', 'the body is not JSON');
  }
}

export function webhooksRoutes(services: Services, deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    /** The payload ingested as POST /v1/events/{platform} does, answered in the webhook's shape. */
    const ingest = async (tenantId: string, platform: SupportedPlatform, payload: unknown) => {
      const result = await services.ingest.ingestPlatformPayload({ tenantId, platform, payload });
      if (result.challenge !== undefined)
        return { ok: true as const, outcome: 'challenge' as const, challenge: result.challenge };
      if (result.outcome === 'ignored')
        return { ok: true as const, outcome: 'ignored' as const, reason: result.reason };
      services.ingestMetrics.observe(result.results, () => platform);
      return {
        ok: true as const,
        outcome: 'ingested' as const,
        results: result.results,
        counts: result.counts,
      };
    };

    const rawBody = (body: unknown): Buffer => {
      if (Buffer.isBuffer(body)) return body;
      throw new AppError(400, 'request.empty_body', 'the webhook body is empty');
    };

    app.post(
      '/webhooks/slack/:tenantId',
      {
        schema: {
          operationId: 'slackWebhook',
          tags: ['webhooks'],
          summary: 'Slack Events API endpoint (signature v0, url_verification, retries deduplicated)',
          description:
            'Signed with the tenant\'s `slack` secret: `X-Slack-Signature: v0=HMAC-SHA256(secret, "v0:{X-Slack-Request-Timestamp}:{raw body}")`, timestamp within 5 minutes. A wrong or stale signature, or an unknown tenant, is a 401 and stores nothing. Retries carry the same event_id and are answered as duplicates.',
          security: [],
          params,
          headers: z.object({
            'x-slack-signature': z.string().optional(),
            'x-slack-request-timestamp': z.string().optional(),
          }),
          response: { 200: webhookReply },
        },
      },
      async (request) => {
        const { tenantId } = request.params;
        const body = rawBody(request.body);
        const secret = await services.tenants.findSecret({ tenantId, platform: 'slack' });
        if (!secret) throw rejected();
        const check = verifySlackSignature({
          secret,
          timestamp: request.headers['x-slack-request-timestamp'],
          signature: request.headers['x-slack-signature'],
          rawBody: body,
          now: deps.clock.now(),
        });
        if (!check.ok) {
          request.log.info({ reason: check.reason }, 'slack webhook rejected');
          throw rejected();
        }
        return ingest(tenantId, 'slack', parseJson(body));
      },
    );

    app.post(
      '/webhooks/telegram/:tenantId',
      {
        schema: {
          operationId: 'telegramWebhook',
          tags: ['webhooks'],
          summary: 'Telegram Bot API webhook (X-Telegram-Bot-Api-Secret-Token)',
          description:
            "The header must equal the tenant's `telegram` secret (the secret_token given to setWebhook). Otherwise 401, nothing stored.",
          security: [],
          params,
          headers: z.object({ 'x-telegram-bot-api-secret-token': z.string().optional() }),
          response: { 200: webhookReply },
        },
      },
      async (request) => {
        const { tenantId } = request.params;
        const body = rawBody(request.body);
        const secret = await services.tenants.findSecret({ tenantId, platform: 'telegram' });
        if (!secret || !verifyTelegramSecret(secret, request.headers['x-telegram-bot-api-secret-token'])) {
          throw rejected();
        }
        return ingest(tenantId, 'telegram', parseJson(body));
      },
    );
  };
}

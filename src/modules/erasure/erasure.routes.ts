// DELETE …/messages/{messageId}/content and DELETE /sessions/{id}/transcript/{seq}/content: erase a
// channel message's or a transcript entry's content everywhere it is stored (docs/api.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { replyIdempotentRecorded } from '../../http/idempotency/idempotent-reply.js';
import type { Services } from '../services.js';
import { channelMessageParams, erasureReply, transcriptEntryParams } from './erasure.schemas.js';

const IDEMPOTENT =
  'Idempotent: erasing an erased target again changes nothing and answers 200 with the first erase record (`already_erased: true`).';

/** Runs an erase once per Idempotency-Key (bound to the path) and answers its 200, recorded. */
function replyErased<T>(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: string,
  erase: () => Promise<T>,
): Promise<FastifyReply> {
  const write = { scope, request: request.params };
  return replyIdempotentRecorded(services.idempotency, request, reply, write, async (record) => {
    const out = { statusCode: 200, body: await erase() };
    await record(out);
    return out;
  });
}

export function erasureRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.delete(
      '/channels/:platform/:channelId/messages/:messageId/content',
      {
        schema: {
          operationId: 'eraseChannelMessage',
          tags: ['channels'],
          summary: "Erase a channel message's content everywhere it is stored",
          description: `The message becomes a deleted one with no text or media; the transcript entries that are the message keep a tombstone ("[content erased]") in place of their content; the text is scrubbed from entries that quoted it, logged payload parts (a replay of an affected turn says \`content-erased: true\`), the context log's retrieved items, stored Idempotency-Key replies, lane summaries (rebuilt), memories (derived ones removed) and transcript chunks. An audit record says who erased it and when. 404 \`channel_message.not_found\` for an unknown message or another tenant's. ${IDEMPOTENT}`,
          headers: idempotencyKeyHeaders,
          params: channelMessageParams,
          response: { 200: erasureReply },
        },
      },
      async (request, reply) =>
        replyErased(services, request, reply, 'channels.message.erase', () =>
          services.erasure.eraseChannelMessage({
            tenantId: request.tenantId,
            ...request.params,
            actor: request.apiKey,
          }),
        ),
    );

    app.delete(
      '/sessions/:id/transcript/:seq/content',
      {
        schema: {
          operationId: 'eraseTranscriptEntry',
          tags: ['sessions'],
          summary: "Erase a transcript entry's content everywhere it is stored",
          description: `The entry keeps its place, role and tool pairing with a tombstone ("[content erased]") for every text, tool input and medium; its texts are scrubbed from entries that quoted them, logged payload parts (a replay of an affected turn says \`content-erased: true\`), the context log's retrieved items, stored Idempotency-Key replies, lane summaries (rebuilt), memories (derived ones removed) and transcript chunks. An audit record says who erased it and when. The channel message a turn was stays until it is erased itself. 404 \`session.not_found\` for an unknown session or another tenant's, \`transcript_entry.not_found\` for an unknown seq. ${IDEMPOTENT}`,
          headers: idempotencyKeyHeaders,
          params: transcriptEntryParams,
          response: { 200: erasureReply },
        },
      },
      async (request, reply) =>
        replyErased(services, request, reply, 'sessions.transcript.erase', () =>
          services.erasure.eraseTranscriptEntry({
            tenantId: request.tenantId,
            sessionId: request.params.id,
            seq: request.params.seq,
            actor: request.apiKey,
          }),
        ),
    );
  };
}

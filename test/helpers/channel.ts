// Channel fixtures for integration tests: Slack messages ingested through POST /v1/events.
import { expect } from 'vitest';
import type { TestTenant } from './app.js';

/** 2026-01-01T10:mm:00Z. */
export const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();

/** Ingests `message.created` events (author Ana unless given) into a Slack channel; the response. */
export async function ingest(tenant: TestTenant, channelId: string, messages: Record<string, unknown>[]) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/events',
    payload: {
      events: messages.map((m) => ({
        type: 'message.created',
        platform: 'slack',
        channel_id: channelId,
        author: { id: 'U1', name: 'Ana' },
        ...m,
      })),
    },
  });
  expect(response.statusCode).toBe(200);
  return response;
}

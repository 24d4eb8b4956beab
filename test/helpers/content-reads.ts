// A channel session with turns, and the later reads a deleted or erased text must leave: memory
// search (channel messages included) and the memory_search tool, each as the text to look in.
import { expect } from 'vitest';
import type { TestTenant } from './app.js';

/** A Slack channel session of agent `bot`, with its root lane's key. */
export async function channelSession(tenant: TestTenant, channelId: string) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return { id: response.json().session.id as string, channelId, lane: `root:${channelId}` };
}

/** Appends turns (201 expected); the reply's body. */
export async function appendTurns(tenant: TestTenant, sessionId: string, turns: Record<string, unknown>[]) {
  const response = await tenant.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/turns`,
    payload: { turns },
  });
  expect(response.statusCode).toBe(201);
  return response.json();
}

/** n filler turns alternating user/assistant, numbered from `from`. */
export const fillerTurns = (n: number, from: number) =>
  Array.from({ length: n }, (_, k) => ({
    role: (from + k) % 2 === 0 ? 'user' : 'assistant',
    content: `Step ${from + k}: build ${2000 + from + k} touches /srv/svc-${from + k}/config.yaml for ticket OPS-${from + k}.`,
  }));

/** POST /v1/memories/search with channel messages: the results as JSON text. */
export async function memorySearchText(tenant: TestTenant, query: string) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/memories/search',
    payload: { query, max_results: 50, include_channel_messages: true },
  });
  expect(response.statusCode).toBe(200);
  return JSON.stringify(response.json().results);
}

/** The session's memory_search tool: the reply's body. */
export async function memorySearchToolText(tenant: TestTenant, sessionId: string, query: string) {
  const response = await tenant.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/tools/memory_search`,
    payload: { input: { query, max_results: 50 } },
  });
  expect(response.statusCode).toBe(200);
  return response.body;
}

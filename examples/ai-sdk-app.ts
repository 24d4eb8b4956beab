// npm run example:ai-sdk -- [question…]: an AI SDK app whose model is wrapped with contextd's
// middleware, with a tool of its own: contextd assembles each call's prompt from the session and
// records every reply, so the app sends only the new question. Uses the Messages API through
// @ai-sdk/anthropic (ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL for another endpoint).
import { pathToFileURL } from 'node:url';
import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { createContextdClient, type ContextdClient } from '@contextd/client';
import { contextdMiddleware } from '@contextd/client/ai-sdk';

/** The app's own tool: the AI SDK runs it; contextd records the call and its result. */
export const rolloutTools = {
  lookup_ticket: tool({
    description: 'Looks up a ticket of the rollout tracker',
    inputSchema: z.object({ ticket: z.string().describe('the ticket id, e.g. T-7') }),
    execute: async ({ ticket }) => `${ticket} waits for the DB migration`,
  }),
};

/** One question answered in the session: up to three model calls (tool call, result, answer). */
export function createAssistant(options: {
  client: ContextdClient;
  sessionId: string;
  model: LanguageModelV3;
}) {
  const model = wrapLanguageModel({
    model: options.model,
    middleware: contextdMiddleware({ client: options.client, sessionId: options.sessionId }),
  });
  return async (question: string) => {
    const { text } = await generateText({
      model,
      prompt: question,
      tools: rolloutTools,
      stopWhen: stepCountIs(3),
    });
    return text;
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { CONTEXTD_URL, CONTEXTD_API_KEY, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL } = process.env;
  if (!CONTEXTD_URL || !CONTEXTD_API_KEY || !ANTHROPIC_API_KEY) {
    console.error('example:ai-sdk: set CONTEXTD_URL, CONTEXTD_API_KEY and ANTHROPIC_API_KEY');
    process.exit(2);
  }
  const client = createContextdClient({ baseUrl: CONTEXTD_URL, apiKey: CONTEXTD_API_KEY });
  const { session } = await client.session({
    agent_id: 'ai-sdk-app',
    platform: 'cli',
    chat_type: 'dm',
    user_id: 'me',
  });
  const anthropic = createAnthropic({
    apiKey: ANTHROPIC_API_KEY,
    ...(ANTHROPIC_BASE_URL ? { baseURL: `${ANTHROPIC_BASE_URL.replace(/\/+$/, '')}/v1` } : {}),
  });
  const ask = createAssistant({ client, sessionId: session.id, model: anthropic('claude-sonnet-4-5') });
  console.log(await ask(process.argv.slice(2).join(' ') || 'What blocks the rollout?'));
  console.log(await ask('Which ticket was it?'));
}

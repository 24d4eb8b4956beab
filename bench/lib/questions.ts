// Questions a bot in the benchmark channel might get: the assembly benchmarks ask one per call.
import { BENCH_PLATFORM } from './channel-fixture.js';

/** Questions a bot in the channel might get; each call asks the next one. */
export const QUESTIONS = [
  'What is the status of the rollout and who owns the migration?',
  'Did the billing dashboard deploy finish yesterday?',
  'Who is on call for the database failover this week?',
  'Summarize what the team decided about the release freeze.',
  'Which alerts fired during the staging migration?',
  'Is the cache invalidation bug fixed in the latest build?',
  'When is the next incident review scheduled?',
  'What did we say about rolling back the schema change?',
  'Any updates on the latency regression in the search service?',
  'Who approved the feature flag cleanup?',
  'How many errors did the payment retries produce overnight?',
  'Can you remind me what the plan for the queue backlog was?',
  'What blockers are left for the mobile release?',
  'Was the certificate rotation completed on all hosts?',
  'Which customers reported the export timeout?',
  'What changed in the onboarding flow last sprint?',
];

export const POLICY =
  'You are the team assistant for this workspace. Answer from the provided context; say when you do not know. '.repeat(
    12,
  );

/** A dry-run context call's body: the i-th question, about `anchor`. */
export const contextBody = (i: number, channelId: string, anchor: string) => ({
  message: {
    content: QUESTIONS[i % QUESTIONS.length]!,
    source: { platform: BENCH_PLATFORM, channel_id: channelId, message_id: anchor },
  },
  system: [{ name: 'policy', text: POLICY }],
  dry_run: true,
});

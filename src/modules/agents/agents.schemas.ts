// Wire shapes of agent sections.
import { z } from 'zod';

export const agentId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, '1–128 characters of [A-Za-z0-9._:-]');
const sectionName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/, '1–128 characters of [A-Za-z0-9._-], e.g. SOUL.md');
export const sectionParams = z.object({ agentId, name: sectionName });
export const sectionSchema = z.object({
  agent_id: z.string(),
  name: z.string(),
  content: z.string(),
  position: z.number(),
  cacheable: z.boolean(),
  sha256: z.string(),
  token_estimate: z.number(),
  updated_at: z.string(),
});

export const agentParams = z.object({ agentId });

export const historyTurnsSchema = z
  .number()
  .int()
  .min(1)
  .max(100_000)
  .describe(
    "at most this many of the lane's latest turns are sent (a view: nothing is dropped from the transcript, and a tool_use never loses its tool_result)",
  );

export const agentSettingsBody = z.strictObject({
  history_turns: historyTurnsSchema
    .nullable()
    .describe("default of the context call's history_turns for this agent; null: send the whole lane"),
});

export const agentSettingsSchema = z.object({
  agent_id: z.string(),
  history_turns: z.number().int().nullable(),
  updated_at: z.string().nullable(),
});

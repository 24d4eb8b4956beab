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

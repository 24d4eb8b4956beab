// The Idempotency-Key request header: one definition for every write route (docs/design.md §5), so a
// key one route accepts no other refuses.
import { z } from 'zod';

export const idempotencyKeyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .refine(
      (key) => ![...key].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f),
      'no control characters',
    )
    .optional()
    .describe('the same key and body replay the first reply; another body is a 409'),
});

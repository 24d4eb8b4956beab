// The Idempotency-Key request header of write routes (docs/design.md §5: every write accepts one).
import { z } from 'zod';

export const idempotencyKeyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('the same key and body replay the first reply; another body is a 409'),
});

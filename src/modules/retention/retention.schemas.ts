// Wire shapes of the tenant's retention periods (GET/PUT /v1/tenant/retention).
import { z } from 'zod';

const period = z
  .number()
  .int()
  .min(0)
  .max(36_500)
  .nullable()
  .describe('days; 0: kept for good; null: the service default');

export const retentionSettingsBody = z
  .object({
    conversation_days: period.describe(
      'channel messages, transcripts, idle sessions, derived memories and unused blobs older than this many days are deleted; 0: kept; null: RETENTION_DAYS',
    ),
    context_log_days: period.describe(
      'context-log rows older than this many days are deleted, and the payload parts of the weeks wholly older; 0: kept; null: CONTEXT_LOG_RETENTION_DAYS',
    ),
  })
  .strict();

export const retentionSettingsSchema = retentionSettingsBody.extend({
  effective: z
    .object({ conversation_days: z.number().int(), context_log_days: z.number().int() })
    .describe('the periods in force (the tenant’s own, else the defaults); 0: kept'),
});

/**
 * The `metadata` of a webhook: the caller's object sent back in every event. It is bounded as the
 * spec bounds feedback metadata (8 KB of JSON), since every event of a job carries it: a large one
 * would be multiplied by the job's pages in the outbox and on the wire.
 */
import { z } from 'zod';

/** Largest webhook `metadata`, in bytes of its UTF-8 JSON: the spec's feedback metadata limit. */
export const maxWebhookMetadataBytes = 8 * 1024;

/** Webhook `metadata` of `values` (any JSON, or strings for monitors), at most 8 KB of JSON. */
export function webhookMetadataSchema<T extends z.ZodType>(values: T) {
  return z.record(z.string(), values).superRefine((value, context) => {
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > maxWebhookMetadataBytes)
      context.addIssue({
        code: 'custom',
        message: `webhook metadata must be 8 KB (${maxWebhookMetadataBytes} bytes of JSON) or smaller (got ${bytes})`,
      });
  });
}

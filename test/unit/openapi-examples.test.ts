// The examples in the OpenAPI document are parsed by the schemas they illustrate.
import { describe, expect, it } from 'vitest';
import { eventBatchSchema } from '../../src/modules/channels/core/channel-events.js';
import { contextReplyExample, contextRequestExample } from '../../src/modules/context/context.examples.js';
import { contextBody, contextReplySchema } from '../../src/modules/context/context.schemas.js';

describe('OpenAPI examples', () => {
  it('the context request and reply examples match their schemas', () => {
    expect(contextBody.safeParse(contextRequestExample).error).toBeUndefined();
    expect(contextReplySchema.safeParse(contextReplyExample).error).toBeUndefined();
  });

  it('the events example matches the batch schema', () => {
    const examples = eventBatchSchema.meta()?.examples as unknown[];
    expect(examples).toHaveLength(1);
    expect(eventBatchSchema.safeParse(examples[0]).error).toBeUndefined();
  });

  it('a reply whose payload is not a Messages request is refused', () => {
    const bad = { ...contextReplyExample, payload: { ...contextReplyExample.payload, max_tokens: '8192' } };
    expect(contextReplySchema.safeParse(bad).success).toBe(false);
  });
});

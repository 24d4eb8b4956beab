// The context call's Prometheus series: the tokens of every payload it returned, per budget
// component (docs/operations.md, Metrics), whichever entry point asked (REST, MCP). Counted once
// the reply is final (after the turn is committed; a dry run too), never for an Idempotency-Key
// replay.
import { Histogram, type Registry } from 'prom-client';
import { budgetComponentNames, type BudgetComponents } from './core/budget.js';
import type { ContextService } from './context.service.js';

export function createContextMetrics(registry: Registry) {
  const tokens = new Histogram({
    name: 'contextd_assembled_tokens',
    help: 'Estimated tokens of each returned payload, by budget component',
    labelNames: ['component'] as const,
    buckets: [0, 100, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 1_000_000],
    registers: [registry],
  });
  return {
    observe(components: BudgetComponents): void {
      for (const component of budgetComponentNames) tokens.observe({ component }, components[component]);
    },
  };
}

export type ContextMetrics = ReturnType<typeof createContextMetrics>;

/** The context service with every returned payload observed (a replay is not a new payload). */
export function withContextMetrics(context: ContextService, metrics: ContextMetrics): ContextService {
  return {
    ...context,
    async assemble(params) {
      let components: BudgetComponents | undefined;
      const result = await context.assemble({
        ...params,
        encode: (reply, payloadText) => {
          components = reply.budget.components;
          return params.encode(reply, payloadText);
        },
      });
      if (!result.replayed && components) metrics.observe(components);
      return result;
    },
  };
}

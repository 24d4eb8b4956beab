// The context call's Prometheus series: the tokens of every payload it returned, per budget
// component, and what its input is expected to bill under the cost model (budget.cost: billed
// input per call, input tokens by cache kind) (docs/operations.md, Metrics), whichever entry point
// asked (REST, MCP). Counted once
// the reply is final (after the turn is committed; a dry run too), never for an Idempotency-Key
// replay.
import { Counter, Histogram, type Registry } from 'prom-client';
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
  const billed = new Histogram({
    name: 'contextd_billed_input_tokens',
    help: "Each returned payload's expected input bill in base-input tokens (budget.cost.billed_input)",
    buckets: [0, 100, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 1_000_000],
    registers: [registry],
  });
  const input = new Counter({
    name: 'contextd_input_tokens_total',
    help: 'Input tokens of returned payloads by how the provider is expected to bill them (budget.cost)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    observe(components: BudgetComponents, cost?: CostReport): void {
      for (const component of budgetComponentNames) tokens.observe({ component }, components[component]);
      if (!cost) return;
      billed.observe(cost.billed_input);
      input.inc({ kind: 'cache_read' }, cost.cache_read);
      input.inc({ kind: 'cache_write' }, cost.cache_write);
      input.inc({ kind: 'uncached' }, cost.uncached);
    },
  };
}

type CostReport = { billed_input: number; cache_read: number; cache_write: number; uncached: number };

type ContextMetrics = ReturnType<typeof createContextMetrics>;

/** The context service with every returned payload observed (a replay is not a new payload). */
export function withContextMetrics(context: ContextService, metrics: ContextMetrics): ContextService {
  return {
    ...context,
    async assemble(params) {
      let budget: { components: BudgetComponents; cost?: CostReport } | undefined;
      const result = await context.assemble({
        ...params,
        encode(reply, payloadText) {
          budget = reply.budget;
          return params.encode(reply, payloadText);
        },
      });
      if (!result.replayed && budget) metrics.observe(budget.components, budget.cost);
      return result;
    },
  };
}

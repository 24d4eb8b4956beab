// Tool runs as a Prometheus series: contextd's built-in tools by name and outcome, wherever they
// are called from (REST, or any other entry point that goes through the tools service).
import { Counter, type Registry } from 'prom-client';
import { AppError } from '../../shared/errors.js';
import { isBuiltinToolName } from './tools.schemas.js';
import type { ToolsService } from './tools.service.js';

/**
 * ok: the tool answered; tool_error: it answered with is_error (the model sees why); rejected: a
 * 4xx (unknown session or tool, bad input); failed: anything else (a 5xx, storage down).
 */
type ToolOutcome = 'ok' | 'tool_error' | 'rejected' | 'failed';

export function createToolMetrics(registry: Registry) {
  const calls = new Counter({
    name: 'contextd_tool_calls_total',
    help: 'Built-in tool runs by tool and outcome (ok, tool_error, rejected, failed); replays are not runs',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  return {
    observe(name: string, outcome: ToolOutcome): void {
      // The name comes from the caller: an unknown one is `unknown`, so the series stay bounded.
      calls.inc({ tool: isBuiltinToolName(name) ? name : 'unknown', outcome });
    },
  };
}

type ToolMetrics = ReturnType<typeof createToolMetrics>;

/** The tools service with every run counted (a replayed Idempotency-Key reply is not a run). */
export function withToolMetrics(tools: ToolsService, metrics: ToolMetrics): ToolsService {
  return {
    ...tools,
    async runTool(params) {
      try {
        const result = await tools.runTool(params);
        if (!result.replayed) metrics.observe(params.name, result.body.is_error ? 'tool_error' : 'ok');
        return result;
      } catch (error) {
        const rejected = error instanceof AppError && error.statusCode < 500;
        metrics.observe(params.name, rejected ? 'rejected' : 'failed');
        throw error;
      }
    },
  };
}

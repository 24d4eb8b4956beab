// Spans around named steps, through the OpenTelemetry API: without a tracer provider (tracing
// off) every call is the API's no-op, so callers never check whether tracing is on.
import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

const tracer = trace.getTracer('contextd');

/**
 * Runs `step` inside a span named `name` (a child of the active span: the request's, or the step
 * around it). A throw marks the span as an error and is rethrown.
 */
export function traced<T>(
  name: string,
  step: () => Promise<T>,
  options: { attributes?: Attributes; kind?: SpanKind } = {},
): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await step();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };

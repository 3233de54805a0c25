/**
 * OpenTelemetry spans of `toolgate serve` (seed 004's `trace_enabled`), through
 * `@opentelemetry/api` only: whoever runs the server registers a tracer
 * provider (an exporter of their choice); the server only makes spans. While
 * tracing is off, `withSpan` calls its function and nothing else.
 */
import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

const TRACER_NAME = 'toolgate';

let enabled = false;

/**
 * Turns the spans on or off for this process (`server.trace_enabled`).
 *
 * @example
 * setTracingEnabled(policy.server?.trace_enabled ?? false);
 */
export function setTracingEnabled(value: boolean): void {
  enabled = value;
}

export function isTracingEnabled(): boolean {
  return enabled;
}

/**
 * Runs `fn` inside a span named `name` when tracing is enabled (the span is
 * ended when `fn` settles, marked as an error when it throws); otherwise
 * just runs `fn` with no span.
 *
 * @example
 * const run = await withSpan('toolgate.run.start', { 'toolgate.run_id': runId }, async (span) => {
 *   span?.setAttribute('toolgate.mode', mode);
 *   return start();
 * });
 */
export async function withSpan<T>(name: string, attributes: Attributes, fn: (span: Span | undefined) => Promise<T> | T): Promise<T> {
  if (!enabled) return fn(undefined);
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

import { Counter, Histogram, Registry } from 'prom-client';
import type { GateObserver } from '../core/gate.ts';

export interface GateMetrics extends GateObserver {
  /** The prom-client registry the server exposes at /metrics. */
  readonly registry: Registry;
}

/**
 * Prometheus metrics for the gate, named as in seed 004:
 * `tool_authorization_failures_total` (blocked or denied calls),
 * `tool_consent_required_total` (calls that asked for approval),
 * `dangerous_operations_detected_total` (the keyword heuristic fired), and
 * `toolgate_decision_duration_seconds` (the whole approval path).
 *
 * Tool names come from the model, so they are a label only for tools the gate
 * knows; any other name is counted as `unknown`, which keeps a model from
 * growing the registry without bound.
 *
 * @example
 * const metrics = createGateMetrics();
 * const gate = createGate({ policy, observer: metrics });
 * response.end(await metrics.registry.metrics());
 */
export function createGateMetrics(options: { registry?: Registry; prefix?: string } = {}): GateMetrics {
  const registry = options.registry ?? new Registry();
  const prefix = options.prefix ?? '';
  const failures = new Counter({
    name: `${prefix}tool_authorization_failures_total`,
    help: 'Tool calls that were blocked or denied.',
    labelNames: ['tool', 'decision', 'source'],
    registers: [registry],
  });
  const consent = new Counter({
    name: `${prefix}tool_consent_required_total`,
    help: 'Tool calls that needed approval (before memory or a mode answered).',
    labelNames: ['tool'],
    registers: [registry],
  });
  const dangerous = new Counter({
    name: `${prefix}dangerous_operations_detected_total`,
    help: 'Calls to tools without rules that the dangerous-keyword heuristic flagged.',
    labelNames: ['tool'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}toolgate_decision_duration_seconds`,
    help: 'Time through the approval path, including any wait for a person.',
    labelNames: ['verdict', 'decision'],
    buckets: [0.000_001, 0.000_01, 0.000_1, 0.001, 0.01, 0.1, 1, 10, 60, 600],
    registers: [registry],
  });
  return {
    registry,
    authorized({ call, known, verdict, authorization, dangerous: flagged, durationMs }) {
      const tool = known ? call.tool : 'unknown';
      if (authorization.decision === 'block' || authorization.decision === 'denied') {
        failures.inc({ tool, decision: authorization.decision, source: authorization.source });
      }
      if (verdict === 'ask') consent.inc({ tool });
      if (flagged) dangerous.inc({ tool });
      duration.observe({ verdict, decision: authorization.decision }, durationMs / 1000);
    },
  };
}

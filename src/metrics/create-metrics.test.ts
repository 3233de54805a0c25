import { describe, expect, it } from 'vitest';
import { createGate } from '../core/gate.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { createGateMetrics } from './create-metrics.ts';

describe('gate metrics', () => {
  it('counts failures, consent and dangerous tools with the seed-004 names', async () => {
    const metrics = createGateMetrics();
    const policy = normalizePolicy({
      tools: { format_disk: 'block', read_file: 'allow', write_file: 'ask' },
      mode: 'auto_deny',
      unknown_tools: { decision: 'allow', dangerous_keywords: true },
    });
    const gate = createGate({ policy, tools: [{ name: 'format_disk' }, { name: 'read_file' }, { name: 'write_file' }, { name: 'run_shell_command' }], observer: metrics });
    const context = { sessionId: 's' };
    await gate.authorize({ tool: 'format_disk', args: {}, callId: '1' }, context);
    await gate.authorize({ tool: 'read_file', args: {}, callId: '2' }, context);
    await gate.authorize({ tool: 'write_file', args: {}, callId: '3' }, context);
    await gate.authorize({ tool: 'run_shell_command', args: {}, callId: '4' }, context);
    await gate.authorize({ tool: 'invented_by_the_model', args: {}, callId: '5' }, context);
    const text = await metrics.registry.metrics();
    expect(text).toContain('tool_authorization_failures_total{tool="format_disk",decision="block",source="policy"} 1');
    expect(text).toContain('tool_authorization_failures_total{tool="write_file",decision="denied",source="mode"} 1');
    expect(text).toContain('tool_authorization_failures_total{tool="unknown",decision="block",source="policy"} 1');
    expect(text).toContain('tool_consent_required_total{tool="write_file"} 1');
    expect(text).toContain('dangerous_operations_detected_total{tool="run_shell_command"} 1');
    expect(text).toContain('toolgate_decision_duration_seconds_count{verdict="allow",decision="allow"} 1');
    expect(text).not.toContain('invented_by_the_model');
  });
});

/**
 * A small tool set and gate for the AI SDK adapter tests, shared by the test
 * process and the child process that resumes a run: `send_email` asks,
 * `read_notes` is allowed. `send_email` records every call it really makes,
 * in memory and, when given a log file, on disk (so another process's runs
 * can be counted).
 */
import { appendFileSync } from 'node:fs';
import { tool } from 'ai';
import { z } from 'zod';
import type { AuditEntry } from '../src/core/audit-entry.ts';
import { createGate, type Gate } from '../src/core/gate.ts';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';

export const EMAIL = { to: 'ann@example.com', body: 'hi' };

/** 32+ bytes, as gateTools requires; a real server reads its key from the environment. */
export const RESUME_SECRET = 'toolgate-test-secret-0123456789-abcdefghij';

export function emailTools(options: { log?: string } = {}) {
  const ran: unknown[] = [];
  const tools = {
    send_email: tool({
      description: 'Send an email',
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      execute: async (args) => {
        ran.push(args);
        if (options.log !== undefined) appendFileSync(options.log, `${JSON.stringify(args)}\n`);
        return { sent: true, to: args.to };
      },
    }),
    read_notes: tool({
      description: 'Read the notes',
      inputSchema: z.object({ topic: z.string() }),
      execute: async (args) => `notes about ${args.topic}`,
    }),
  };
  return { tools, ran };
}

export function emailGate(options: { onDeny?: 'continue' | 'stop'; audit?: AuditEntry[] } = {}): Gate {
  const policy = normalizePolicy({
    ...(options.onDeny ? { on_deny: options.onDeny } : {}),
    tools: { send_email: { decision: 'ask', description: 'Send an email' }, read_notes: 'allow' },
  });
  const audit = options.audit;
  return createGate({ policy, ...(audit ? { audit: { record: async (entry: AuditEntry) => void audit.push(entry) } } : {}) });
}

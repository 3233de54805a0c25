/**
 * Resumes a paused AI SDK run in a fresh process, as a server would after a
 * restart: `node test/ai-sdk-resume-child.ts INPUT OUTPUT`. INPUT holds the
 * serialised run state, the decisions and the send log; the approval secret
 * comes from the environment. OUTPUT gets the model's final text, the tool
 * result the model saw, and the gate's audited decisions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generateText } from 'ai';
import { gateTools, parseRunState, resumeRun } from '../src/adapters/ai-sdk/index.ts';
import type { AuditEntry } from '../src/core/audit-entry.ts';
import { scriptedModel, toolResultFor } from './ai-sdk-fixture.ts';
import { emailGate, emailTools } from './ai-sdk-email-tools.ts';

const [inputPath, outputPath] = process.argv.slice(2);
if (inputPath === undefined || outputPath === undefined) throw new Error('usage: ai-sdk-resume-child.ts INPUT OUTPUT');
const input = JSON.parse(readFileSync(inputPath, 'utf8'));
const secret = process.env.TOOLGATE_TEST_APPROVAL_SECRET;
if (secret === undefined) throw new Error('TOOLGATE_TEST_APPROVAL_SECRET is not set');

const audit: AuditEntry[] = [];
const state = parseRunState(input.state);
const { tools } = emailTools({ log: input.log });
const gated = gateTools({ tools, gate: emailGate({ audit }), context: state.context, resolve: 'deferred', secret });
const resumed = await resumeRun({ gated, state, decisions: input.decisions });

let seen: unknown;
const { model } = scriptedModel((options) => {
  const result = toolResultFor(options.prompt, 'c1');
  seen = result?.output;
  return { text: result === undefined ? 'no result' : `saw: ${JSON.stringify(result.output.value)}` };
});
const result = await generateText({ model, messages: resumed.messages, ...gated });
const decisions = audit.filter((entry) => entry.kind === 'decision').map((entry) => ({ tool: entry.tool, decision: entry.decision, source: entry.source, reason: entry.reason, run: entry.run }));
writeFileSync(outputPath, JSON.stringify({ text: result.text, seen, decisions }));

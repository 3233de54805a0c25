/**
 * A project for the issue-11 suites on paths the kernel resolves, hard
 * links and special files: a rw zone `ws` whose writes and deletes are
 * allowed (so only the path checks stand between a command and the disk),
 * a read-only zone `docs`, and outside every zone a secret and an
 * `outside` directory. The tools are built the way toolgate builds them
 * (`createBuiltinTools`), with the OS sandbox on (bubblewrap) or off, and
 * called through a gate in `auto_deny` mode: what asks does not run, so
 * whatever runs was allowed by the policy alone.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createGate } from '../src/core/gate.ts';
import type { Decision, RunMode } from '../src/core/types.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import type { BuiltinTool, ToolExecutionOptions } from '../src/tools/builtin-tool.ts';
import type { ToolDeclaration } from '../src/core/tool-declaration.ts';
import { runCli } from './cli-harness.ts';

export interface KernelPathsFixture {
  root: string;
  ws: string;
  docs: string;
  outside: string;
  secretFile: string;
  secretText: string;
  docsFile: string;
  docsText: string;
  /** Calls a tool through the gate (auto_deny) and runs it when allowed. */
  call(tool: string, args: Record<string, unknown>): Promise<CallOutcome>;
  /** Runs a tool as if the policy had allowed the call (no gate): for what execution re-checks. */
  execute(tool: string, args: Record<string, unknown>): Promise<CallOutcome>;
  /** The gate's decision alone, nothing run. */
  decide(tool: string, args: Record<string, unknown>): Promise<{ decision: Decision | 'deny'; reason: string }>;
  /** `toolgate check --json` for one call, in the project root. */
  check(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Every path and file content outside `ws` (docs, outside, the root's own files): compare before and after. */
  snapshotOutsideWorkspace(): Map<string, string>;
  cleanup(): void;
}

export type CallOutcome =
  | { ran: true; result: unknown; durationMs: number }
  | { ran: false; stage: 'gate' | 'execute'; reason: string; durationMs: number };

/** The rules: every command the suites use is allowed by name, so only path judgements can stop one. */
const RULES = ['cat', 'tee', 'echo', 'ln', 'cp', 'mv', 'rm', 'tar', 'patch', 'git apply', 'touch', 'head', 'wc', 'printf', 'mkdir', 'ls', 'true', 'cd', 'unzip', 'ps'];

/**
 * @example
 * const fixture = await createKernelPathsFixture({ sandboxed: false });
 * const outcome = await fixture.call('shell', { command: 'tee self/../x' });
 */
export async function createKernelPathsFixture(options: { sandboxed: boolean; /** Default auto_deny; approve_all runs what asks too. */ mode?: RunMode }): Promise<KernelPathsFixture> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-kernel-')));
  const ws = path.join(root, 'ws');
  const docs = path.join(root, 'docs');
  const outside = path.join(root, 'outside');
  for (const directory of [ws, docs, outside]) mkdirSync(directory);
  const secretText = `OUTSIDE-SECRET-${path.basename(root)}`;
  const docsText = `read-only docs ${path.basename(root)}\n`;
  writeFileSync(path.join(outside, 'secret.txt'), secretText);
  writeFileSync(path.join(docs, 'guide.md'), docsText);
  writeFileSync(path.join(ws, 'notes.txt'), 'notes\n');
  const policyFile = path.join(root, 'toolgate.yaml');
  writeFileSync(
    policyFile,
    [
      'fs:',
      '  zones:',
      '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
      '    - { name: docs, root: ./docs, mode: ro }',
      'shell:',
      '  default: ask',
      '  rules:',
      ...RULES.map((match) => `    - { match: ${JSON.stringify(match)}, decision: allow }`),
      `sandbox: { os: ${options.sandboxed ? 'required' : 'off'} }`,
      '',
    ].join('\n'),
  );
  const loaded = await loadPolicyFile(policyFile);
  const { tools, sandbox } = await createBuiltinTools({ loaded, cwd: root });
  if (options.sandboxed && sandbox.mode !== 'sandboxed') throw new Error(`the sandboxed fixture has no sandbox: ${sandbox.reason}`);
  const byName = new Map(tools.map((tool) => [tool.name, tool as BuiltinTool | ToolDeclaration]));
  const gate = createGate({ policy: loaded.policy, tools, mode: options.mode ?? 'auto_deny' });
  let calls = 0;

  async function call(tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
    const started = performance.now();
    calls += 1;
    const authorization = await gate.authorize({ tool, args, callId: `kernel-${calls}` }, { sessionId: 'kernel-paths' });
    if (authorization.decision !== 'allow' && authorization.decision !== 'approved') {
      // A denied ask carries the mode's reason; what made it ask is in the request.
      const asked = authorization.request === undefined ? '' : ` (asked: ${authorization.request.description})`;
      return { ran: false, stage: 'gate', reason: `${authorization.decision}: ${authorization.reason}${asked}`, durationMs: performance.now() - started };
    }
    // What the runtime hands a built-in tool (as the AI SDK adapter does): how the gate let the call through.
    const granted = authorization.decision === 'approved' ? { decision: 'approved' as const, payload: authorization.request?.payload } : { decision: 'allow' as const };
    return execute(tool, authorization.args as Record<string, unknown>, started, { authorization: granted, ...(authorization.presentation === undefined ? {} : { approvedPresentation: authorization.presentation }) });
  }

  async function execute(tool: string, args: Record<string, unknown>, started = performance.now(), granted: ToolExecutionOptions = { authorization: { decision: 'allow' } }): Promise<CallOutcome> {
    const implementation = byName.get(tool) as BuiltinTool | undefined;
    try {
      const result = await implementation!.execute(args as never, granted);
      return { ran: true, result, durationMs: performance.now() - started };
    } catch (error) {
      return { ran: false, stage: 'execute', reason: error instanceof Error ? error.message : String(error), durationMs: performance.now() - started };
    }
  }

  async function decide(tool: string, args: Record<string, unknown>) {
    const verdict = await gate.evaluate({ tool, args, callId: 'decide' }, { sessionId: 'kernel-paths' });
    if (verdict.kind === 'allow') return { decision: 'allow' as const, reason: '' };
    if (verdict.kind === 'block') return { decision: 'block' as const, reason: verdict.reason };
    return { decision: 'ask' as const, reason: verdict.request.description };
  }

  async function check(tool: string, args: Record<string, unknown>) {
    const result = await runCli(['check', '--tool', tool, '--args', JSON.stringify(args), '--json'], { cwd: root });
    return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  }

  function snapshotOutsideWorkspace(): Map<string, string> {
    const snapshot = new Map<string, string>();
    const visit = (directory: string) => {
      for (const name of readdirSync(directory)) {
        const absolute = path.join(directory, name);
        if (absolute === ws || name === '.toolgate') continue;
        const status = statSync(absolute, { throwIfNoEntry: false });
        if (status?.isDirectory() === true) {
          snapshot.set(absolute, 'directory');
          visit(absolute);
        } else snapshot.set(absolute, status?.isFile() === true ? readFileSync(absolute, 'utf8') : 'other');
      }
    };
    visit(root);
    return snapshot;
  }

  return {
    root,
    ws,
    docs,
    outside,
    secretFile: path.join(outside, 'secret.txt'),
    secretText,
    docsFile: path.join(docs, 'guide.md'),
    docsText,
    call,
    execute,
    decide,
    check,
    snapshotOutsideWorkspace,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

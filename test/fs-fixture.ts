/**
 * A real project on disk for the filesystem tool tests: zones, a sibling
 * `outside` directory that must never be read or changed, a gate over the
 * real tools, and a fingerprint of everything outside the zones.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Approver, PresentedRequest } from '../src/core/approver.ts';
import { createGate, type Gate } from '../src/core/gate.ts';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import type { ApprovalDecision, Authorization, GateContext } from '../src/core/types.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';
import { createFsTools } from '../src/tools/fs/create-fs-tools.ts';
import type { EntryLocation } from '../src/tools/fs/file-operations.ts';
import { openVerifiedDirectory } from '../src/tools/fs/verified-directory.ts';
import { zonesFromPolicy, type Zone } from '../src/tools/fs/zones.ts';

export const CONTEXT: GateContext = { sessionId: 'fs-tests' };

/**
 * Runs `use` on the entry `name` of the fixture's workspace zone root (a
 * verified directory, closed afterwards), as the fs tools locate entries.
 *
 * @example
 * const snapshot = await inWorkspace(fixture, 'notes.txt', (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }));
 */
export async function inWorkspace<Result>(fixture: Pick<FsFixture, 'project'>, name: string, use: (location: EntryLocation) => Promise<Result>): Promise<Result> {
  const directory = await openVerifiedDirectory({ absolute: path.join(fixture.project, 'ws'), shown: 'ws' });
  try {
    return await use({ directory, name, shown: `ws/${name}` });
  } finally {
    await directory.close();
  }
}

export interface FsFixture {
  /** Holds `project/` and `outside/`; removed by `cleanup`. */
  base: string;
  /** The project root: the working directory and the policy's directory. */
  project: string;
  /** A sibling of the project with secrets; nothing may touch it. */
  outside: string;
  zones: Zone[];
  tools: BuiltinTool[];
  gate: Gate;
  tool(name: string): BuiltinTool;
  /** Every request a person was asked, in order. */
  asked: PresentedRequest[];
  /** What the person answers; defaults to approve once. */
  answer: (request: PresentedRequest) => ApprovalDecision | Promise<ApprovalDecision>;
  /** Authorizes through the gate and, when allowed or approved, executes with what was approved. */
  run(tool: string, args: unknown): Promise<{ authorization: Authorization; result?: unknown; error?: Error & { code?: string } }>;
  /** A fingerprint of the outside directory (names, symlink targets, contents). */
  outsideState(): string;
  write(relative: string, content: string | Buffer): string;
  read(relative: string): string;
  cleanup(): void;
}

/**
 * Zones: `workspace` (ws, rw), `docs` (docs, ro), `notes` (notes, rw,
 * suffixes .txt/.md), `vendor` (ws/vendor, ro, nested in workspace),
 * `archive` (archive, rw, delete blocked, write allowed). `extraZones` and
 * `approval` override for a test.
 */
export function createFsFixture(options: { workspaceApproval?: Record<string, string>; extraZones?: Record<string, unknown>[]; maxReadBytes?: number } = {}): FsFixture {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-fs-')));
  const project = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  for (const directory of ['ws/sub', 'ws/vendor', 'ws-evil', 'docs', 'notes', 'archive']) mkdirSync(path.join(project, directory), { recursive: true });
  mkdirSync(path.join(outside, 'nested'), { recursive: true });
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  writeFileSync(path.join(outside, 'nested', 'key.pem'), 'PRIVATE KEY\n');
  writeFileSync(path.join(project, 'ws', 'notes.txt'), 'line one\nline two\nline three\n');
  writeFileSync(path.join(project, 'ws', 'sub', 'deep.txt'), 'deep\n');
  writeFileSync(path.join(project, 'ws', 'vendor', 'lib.js'), 'export {};\n');
  writeFileSync(path.join(project, 'ws-evil', 'payload.txt'), 'evil\n');
  writeFileSync(path.join(project, 'docs', 'readme.md'), '# Docs\n');
  writeFileSync(path.join(project, 'notes', 'todo.txt'), 'todo\n');
  writeFileSync(path.join(project, 'notes', 'script.sh'), 'echo hi\n');
  writeFileSync(path.join(project, 'archive', 'old.txt'), 'old\n');

  const policy = normalizePolicy({
    fs: {
      zones: [
        { name: 'workspace', root: './ws', mode: 'rw', ...(options.workspaceApproval ? { approval: options.workspaceApproval } : {}) },
        { name: 'docs', root: 'docs', mode: 'ro' },
        { name: 'notes', root: 'notes', mode: 'rw', suffixes: ['.txt', '.md'] },
        { name: 'vendor', root: 'ws/vendor', mode: 'ro' },
        { name: 'archive', root: 'archive', mode: 'rw', approval: { write: 'preApproved', delete: 'blocked' } },
        ...(options.extraZones ?? []),
      ],
    },
  });
  const zones = zonesFromPolicy({ policy, policyDirectory: project });
  const tools = createFsTools({ zones, cwd: project, ...(options.maxReadBytes === undefined ? {} : { maxReadBytes: options.maxReadBytes }) });
  const asked: PresentedRequest[] = [];
  const fixture: FsFixture = {
    base,
    project,
    outside,
    zones,
    tools,
    gate: undefined as unknown as Gate,
    asked,
    answer: () => ({ approved: true, scope: 'once' }),
    tool: (name) => {
      const found = tools.find((tool) => tool.name === name);
      if (found === undefined) throw new Error(`no tool ${name}`);
      return found;
    },
    async run(tool, args) {
      const authorization = await fixture.gate.authorize({ tool, args, callId: `call-${asked.length}-${Math.random()}` }, CONTEXT);
      if (authorization.decision !== 'allow' && authorization.decision !== 'approved') return { authorization };
      try {
        const result = await fixture.tool(tool).execute(authorization.args, authorization.presentation === undefined ? {} : { approvedPresentation: authorization.presentation });
        return { authorization, result };
      } catch (error) {
        return { authorization, error: error as Error & { code?: string } };
      }
    },
    outsideState: () => fingerprintTree(outside),
    write: (relative, content) => {
      const target = path.join(project, relative);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
      return target;
    },
    read: (relative) => readFileSync(path.join(project, relative), 'utf8'),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
  const approver: Approver = {
    ask: async (request) => {
      asked.push(request);
      return fixture.answer(request);
    },
  };
  fixture.gate = createGate({ policy, tools, approver });
  return fixture;
}

/** Names, types, symlink targets and content hashes of a whole tree, sorted. */
export function fingerprintTree(root: string): string {
  const lines: string[] = [];
  const walk = (directory: string) => {
    for (const name of readdirSync(directory).sort()) {
      const full = path.join(directory, name);
      const relative = path.relative(root, full);
      const status = lstatSync(full);
      if (status.isSymbolicLink()) lines.push(`link ${relative} -> ${readlinkSync(full)}`);
      else if (status.isDirectory()) {
        lines.push(`dir ${relative} ${status.mode.toString(8)}`);
        walk(full);
      } else lines.push(`file ${relative} ${status.mode.toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(root);
  return lines.join('\n');
}

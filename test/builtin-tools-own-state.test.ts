import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import type { ShellTool } from '../src/tools/shell/create-shell-tool.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

describe("the OS sandbox has toolgate's own files to hide before any command runs", () => {
  it('creates .toolgate/, an empty approvals file and the audit log, private, before the first sandboxed command', async () => {
    await requireWorkingBwrap();
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-own-state-'));
    writeFileSync(path.join(root, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: project, root: ., mode: rw }\nshell: { default: ask }\nsandbox: { os: required }\n');
    const { sandbox, tools } = await createBuiltinTools({ loaded: await loadPolicyFile(path.join(root, 'toolgate.yaml')), cwd: root });
    expect(sandbox.mode).toBe('sandboxed');
    // Building the tools writes nothing (the simulator builds them too).
    expect(existsSync(path.join(root, '.toolgate'))).toBe(false);
    const shell = tools.find((tool) => tool.name === 'shell') as ShellTool;
    const result = await shell.execute({ command: 'ls' });
    expect(result.exit_code).toBe(0);
    const approvals = path.join(root, '.toolgate', 'approvals.json');
    expect(JSON.parse(readFileSync(approvals, 'utf8'))).toEqual({ v: 1, approvals: [] });
    expect(statSync(approvals).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(root, '.toolgate', 'audit.jsonl'))).toBe(true);
    expect(statSync(path.join(root, '.toolgate')).mode & 0o777).toBe(0o700);
  });
});

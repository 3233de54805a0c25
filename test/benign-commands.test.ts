/**
 * The other side of a strict shell model: the command lines an agent runs
 * every day that change nothing (test/fixtures/benign-commands.txt) stay
 * pre-approved under a policy that allows the read-only commands they use,
 * in a real git repository with a zone that asks before writes and blocks
 * deletes. A stricter model that starts asking about these has a cost, and
 * this test makes it visible.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import { zonesFromPolicy } from '../src/tools/fs/zones.ts';
import { createShellTool, type ShellTool } from '../src/tools/shell/create-shell-tool.ts';

const READ_ONLY_RULES = [
  'git status', 'git diff', 'git log', 'git show', 'git branch', 'git rev-parse', 'git ls-files', 'git blame', 'git remote', 'git tag', 'git describe', 'git stash list', 'git shortlog',
  'ls', 'pwd', 'cat', 'head', 'tail', 'wc', 'grep', 'rg', 'find', 'sort', 'uniq', 'cut', 'tr', 'diff', 'cmp', 'file', 'stat', 'du', 'echo', 'printf', 'which',
  'node --version', 'npm --version', 'date', 'whoami', 'uname', 'env', 'printenv', 'jq', 'awk', 'sed', 'basename', 'dirname', 'realpath', 'md5sum', 'sha256sum', 'tree', 'less', 'xargs', 'cd',
];

/** What still asks, and why: a loop body's `"$f"` is only known at run time; `[` has no rule. */
const EXPECTED_ASKS = ['for f in src/*.ts; do wc -l "$f"; done', 'if [ -f package.json ]; then cat package.json; fi'];

const corpus = readFileSync(path.join(import.meta.dirname, 'fixtures', 'benign-commands.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));

let root: string;
let workspace: string;
let tool: ShellTool;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-benign-')));
  workspace = path.join(root, 'ws');
  mkdirSync(path.join(workspace, 'src'), { recursive: true });
  writeFileSync(path.join(workspace, 'README.md'), '# demo\ntoolgate TODO\n');
  writeFileSync(path.join(workspace, 'package.json'), '{"name":"demo"}\n');
  writeFileSync(path.join(workspace, 'notes.txt'), 'b\na\nb\n');
  writeFileSync(path.join(workspace, 'data.csv'), 'a,b\n');
  writeFileSync(path.join(workspace, 'src', 'index.ts'), 'export function x() {} // TODO\n');
  writeFileSync(path.join(workspace, 'src', 'util.ts'), 'export const y = 1;\n');
  const environment = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com' };
  for (const args of [['init', '-q'], ['add', '.'], ['commit', '-qm', 'one'], ['commit', '-q', '--allow-empty', '-m', 'two']]) execFileSync('git', args, { cwd: workspace, env: environment });
  const policy = normalizePolicy({
    fs: { zones: [{ name: 'ws', root: 'ws', mode: 'rw', approval: { read: 'allow', write: 'ask', delete: 'block' } }] },
    shell: { default: 'ask', rules: [...READ_ONLY_RULES.map((match) => ({ match, decision: 'allow' })), { match: 'rm', decision: 'block' }] },
  });
  tool = createShellTool({ policy, zones: zonesFromPolicy({ policy, policyDirectory: root }), cwd: workspace });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('benign command lines stay pre-approved', () => {
  it('the corpus is a real one, not a handful', () => {
    expect(corpus.length).toBeGreaterThan(80);
  });

  it('every line is allowed, but for the two that ask for a stated reason', async () => {
    const asked: string[] = [];
    for (const command of corpus) {
      const verdict = await tool.decide({ command, cwd: workspace });
      expect(verdict.decision, `${command}: ${verdict.reasons.join('; ')}`).not.toBe('block');
      if (verdict.decision === 'ask') asked.push(command);
    }
    expect(asked).toEqual(EXPECTED_ASKS);
  });
});

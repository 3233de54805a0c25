/**
 * A project on disk for the shell tool's tests: a writable zone `ws` (the
 * default working directory), a read-only zone `docs`, a writable zone
 * `scratch` whose writes are pre-approved, a secret outside every zone and a
 * symlink from `ws` to it.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import type { Policy } from '../src/core/policy/policy.ts';
import type { Decision } from '../src/core/types.ts';
import { zonesFromPolicy, type Zone } from '../src/tools/fs/zones.ts';
import { analyzeCommand } from '../src/tools/shell/analyze-command.ts';
import { analyzeCommandOnce } from '../src/tools/shell/analysis-cache.ts';
import { createShellTool, type ShellTool } from '../src/tools/shell/create-shell-tool.ts';

export interface ShellFixture {
  root: string;
  policy: Policy;
  zones: Zone[];
  tool: ShellTool;
  remove(): void;
}

/** The rules the adversarial suite runs against. */
export const TEST_RULES = [
  { match: 'git status', decision: 'allow' },
  { match: 'git diff', decision: 'allow' },
  { match: 'git push', decision: 'block', reason: 'pushing is not allowed' },
  { match: 'ls', decision: 'allow' },
  { match: 'grep', decision: 'allow' },
  { match: 'echo', decision: 'allow' },
  { match: 'rg', decision: 'allow' },
  { match: 'tar', decision: 'allow' },
  { match: 'sort', decision: 'allow' },
  { match: 'sed', decision: 'allow' },
  { match: 'awk', decision: 'allow' },
  { match: 'find', decision: 'allow' },
  { match: 'xargs', decision: 'allow' },
  { match: 'wc', decision: 'allow' },
  { match: 'true', decision: 'allow' },
  { match: 'cat', decision: 'allow', paths_in: ['ws'] },
  { match: 'rm', allowed: false },
] as const;

/**
 * Builds the project and the tool. `shell` replaces the policy's shell
 * section (default: the test rules, no default).
 *
 * @example
 * const fixture = createShellFixture();
 * const verdict = await fixture.tool.decide({ command: 'git status' });
 */
export function createShellFixture(options: { shell?: Record<string, unknown> } = {}): ShellFixture {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-shell-')));
  mkdirSync(path.join(root, 'ws', 'src'), { recursive: true });
  mkdirSync(path.join(root, 'docs'));
  mkdirSync(path.join(root, 'scratch'));
  mkdirSync(path.join(root, 'outside'));
  writeFileSync(path.join(root, 'ws', 'notes.txt'), 'notes\n');
  writeFileSync(path.join(root, 'ws', 'a.txt'), 'a\n');
  writeFileSync(path.join(root, 'docs', 'guide.md'), '# guide\n');
  writeFileSync(path.join(root, 'outside', 'secret.txt'), 'secret\n');
  symlinkSync(path.join(root, 'outside'), path.join(root, 'ws', 'link-out'));
  const policy = normalizePolicy({
    fs: {
      zones: [
        { name: 'ws', root: 'ws', mode: 'rw' },
        { name: 'docs', root: 'docs', mode: 'ro' },
        { name: 'scratch', root: 'scratch', mode: 'rw', approval: { write: 'allow' } },
      ],
    },
    shell: options.shell ?? { rules: TEST_RULES },
  });
  const zones = zonesFromPolicy({ policy, policyDirectory: root });
  const tool = createShellTool({ policy, zones, cwd: root });
  return { root, policy, zones, tool, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export type VerdictCase = readonly [command: string, expected: Decision];

/**
 * One `describe` of command lines and the verdict each must get; anything
 * that is not allowed must say why. Each line is decided twice: the second
 * decision reads the analysis the first one kept (`analyzeCommandOnce`), which
 * must still be what a fresh analysis gives, and must get the same verdict.
 *
 * @example
 * verdictSuite('wrappers', [['sudo rm x', 'block']], () => fixture);
 */
export function verdictSuite(name: string, cases: readonly VerdictCase[], fixture: () => ShellFixture): void {
  describe(name, () => {
    it.each(cases)('%j → %s', async (command, expected) => {
      const verdict = await fixture().tool.decide({ command });
      expect({ command, decision: verdict.decision, reasons: verdict.reasons }).toMatchObject({ decision: expected });
      if (expected !== 'allow') expect(verdict.reasons.length).toBeGreaterThan(0);
      expect(analyzeCommandOnce(command), 'a decision changed the analysis it shares with later decisions').toEqual(analyzeCommand(command));
      expect(await fixture().tool.decide({ command })).toEqual(verdict);
    });
  });
}

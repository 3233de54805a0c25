/**
 * Which rules `toolgate insights --suggest` proposes and which it withholds,
 * on audit records as the server writes them, against a real policy file and
 * the real shell analysis: only the narrow, reversible, in-zone command
 * people approved again and again and never denied; and the policy text
 * changed by adding lines only.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditLogItem } from '../audit/read-audit-log.ts';
import { loadPolicyFile } from '../config/load-policy-file.ts';
import type { AuditEntry } from '../core/audit-entry.ts';
import { suggestRules, withShellRules } from './suggest-rules.ts';

const POLICY = `version: 1
# the team's policy
fs:
  zones:
    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }
shell:
  default: ask  # everything else asks
  network: false
  rules:
    - { match: echo, decision: allow }

audit: { enabled: true }
`;

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function* items(entries: AuditEntry[]): AsyncGenerator<AuditLogItem> {
  for (const [index, entry] of entries.entries()) yield { line: index + 1, entry };
}

function decision(command: string, workspace: string, approved = true, index = 0): AuditEntry {
  return { v: 1, kind: 'decision', time: '2026-12-07T10:00:00.000Z', session: `s-${index}`, chat: null, run: null, caller: 'claude-code', call_id: `c-${command}-${index}`, tool: 'shell', args: { command, cwd: workspace }, verdict: 'ask', decision: approved ? 'approved' : 'denied', source: 'person', rule: 'shell.default (ask)', reason: 'r', latency_ms: 500, approver: 'ann' };
}

async function suggest(entries: (workspace: string) => AuditEntry[]) {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-suggest-'));
  made.push(directory);
  mkdirSync(path.join(directory, 'ws'));
  const file = path.join(directory, 'toolgate.yaml');
  writeFileSync(file, POLICY);
  const loaded = await loadPolicyFile(file);
  return suggestRules({ items: items(entries(path.join(directory, 'ws'))), rules: new Set(['shell.default (ask)']), loaded, env: {}, text: POLICY, rootOf: () => directory });
}

const thrice = (command: string, workspace: string, approved = true) => [0, 1, 2].map((index) => decision(command, workspace, approved, index));

describe('rule suggestions', () => {
  it('proposes the command approved again and again, and withholds deletes, pushes, project code, network, what was also denied and what is too rare, saying why', async () => {
    const result = await suggest((ws) => [
      ...thrice('git log -n 5', ws),
      ...thrice('rm -rf build', ws),
      ...thrice('git push origin main', ws),
      ...thrice('npm test', ws),
      ...thrice('make', ws),
      ...thrice('wc -l notes.txt', ws),
      decision('wc -l secrets.txt', ws, false, 9),
      decision('git diff', ws),
      ...thrice('curl -s https://example.com', ws),
      ...thrice('python3 -c "print(1)"', ws),
    ]);
    expect(result.suggestions.map((suggestion) => suggestion.commands)).toEqual([['git log']]);
    const why = Object.fromEntries(result.withheld.map((entry) => [entry.what, entry.why]));
    expect(why['rm in zone ws']).toContain('cannot be had back');
    // A push uses the network, which the policy keeps off: it does not even ask, so no rule is suggested for it.
    expect(why['git push in zone ws']).toBeUndefined();
    expect(why['npm test']).toMatch(/npm test runs the project's code .*which the agent can change first: keep asking$/);
    expect(why.make).toMatch(/^make runs the commands of the project.*which the agent can change first/);
    expect(why['wc in zone ws']).toMatch(/people also denied calls this rule would allow \(wc -l secrets\.txt\)/);
    expect(why['git diff in zone ws']).toMatch(/approved 1 time, fewer than the 3/);
    expect(Object.keys(why).some((what) => what.startsWith('curl'))).toBe(false);
    expect(why['python3 -c "print(1)"']).toMatch(/no narrower rule than the call itself/);
    // The policy as it was, with one line added at the end of shell.rules: comments and everything else kept.
    expect(result.text).toBe(POLICY.replace('    - { match: echo, decision: allow }\n', '    - { match: echo, decision: allow }\n    - { match: "git log", decision: allow, paths_in: [ws], examples: { match: ["git log -n 5"] } }\n'));
    expect(result.diff).toMatch(/^--- a\/toolgate\.yaml\n\+\+\+ b\/toolgate\.yaml\n/);
  });

  it('nothing approved often enough: no change and no diff', async () => {
    const result = await suggest((ws) => [decision('git log', ws)]);
    expect(result.suggestions).toEqual([]);
    expect(result.diff).toBe('');
    expect(result.text).toBe(POLICY);
  });
});

describe('adding shell rules to a policy text', () => {
  it('appends to a block list at its indentation, adds a rules list to a shell section without one, and leaves a flow list alone', () => {
    expect(withShellRules('version: 1\nshell:\n  rules:\n  - { match: a, decision: allow }\nfs: {}\n', ['{ match: b, decision: allow }'])).toBe('version: 1\nshell:\n  rules:\n  - { match: a, decision: allow }\n  - { match: b, decision: allow }\nfs: {}\n');
    expect(withShellRules('version: 1\nshell:\n  default: ask\n', ['{ match: b, decision: allow }'])).toBe('version: 1\nshell:\n  default: ask\n  rules:\n    - { match: b, decision: allow }\n');
    expect(withShellRules('version: 1\nshell:\n  rules: [{ match: a, decision: allow }]\n', ['{ match: b, decision: allow }'])).toBeUndefined();
    expect(withShellRules('version: 1\nfs: {}\n', ['{ match: b, decision: allow }'])).toBeUndefined();
    // CRLF line endings are kept, the added line's too.
    expect(withShellRules('version: 1\r\nshell:\r\n  rules:\r\n    - { match: a, decision: allow }\r\n', ['{ match: b, decision: allow }'])).toBe('version: 1\r\nshell:\r\n  rules:\r\n    - { match: a, decision: allow }\r\n    - { match: b, decision: allow }\r\n');
  });
});

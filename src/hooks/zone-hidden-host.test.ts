/**
 * A zone's `hidden` patterns in front of an agent host: the secrets of the
 * project (`.env`, keys) are refused by name to every tool that names them
 * (Read, Edit, Write, Grep, cat, head, a redirection, a symlink to one), and a
 * search through every file below a directory that holds one (Grep, grep -r,
 * rg) asks; `!` takes a name back. Judged with the real policy file, on the
 * real filesystem, as the hook judges a call.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../config/load-policy-file.ts';
import { createHostJudge, type HostJudge } from './decide-host-call.ts';
import type { HostInput } from './host-dialect.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hidden-'));
const project = path.join(directory, 'project');
let judge: HostJudge;

beforeAll(async () => {
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(path.join(project, 'config'), { recursive: true });
  mkdirSync(path.join(project, 'certs'), { recursive: true });
  writeFileSync(path.join(project, '.env'), 'API_KEY=sk-live-123\n');
  writeFileSync(path.join(project, '.env.example'), 'API_KEY=\n');
  writeFileSync(path.join(project, 'config', '.env.production'), 'DB_PASSWORD=hunter2\n');
  writeFileSync(path.join(project, 'certs', 'server.pem'), '-----BEGIN PRIVATE KEY-----\n');
  writeFileSync(path.join(project, 'src', 'app.ts'), 'export const x = 1;\n');
  symlinkSync('../.env', path.join(project, 'src', 'settings.txt'));
  writeFileSync(
    path.join(project, 'toolgate.yaml'),
    `version: 1
fs:
  zones:
    - name: project
      root: .
      mode: rw
      approval: { read: allow, write: allow, delete: ask }
      hidden: [".env", ".env.*", "!.env.example", "*.pem"]
shell:
  default: ask
  network: true
  rules:
    - { match: cat, decision: allow }
    - { match: head, decision: allow }
    - { match: grep, decision: allow }
    - { match: rg, decision: allow }
    - { match: ls, decision: allow }
    - { match: git log, decision: allow }
    - { match: tar, decision: allow }
    - { match: zip, decision: allow }
audit: { enabled: false }
`,
  );
  judge = await createHostJudge({ loaded: await loadPolicyFile(path.join(project, 'toolgate.yaml')), env: {}, cwd: project });
});
afterAll(async () => {
  await judge.close();
  rmSync(directory, { recursive: true, force: true });
});

function input(hostTool: string, toolInput: Record<string, unknown>, cwd = project): HostInput {
  return { host: 'claude-code', sessionId: 's', cwd, toolUseId: undefined, transcriptPath: undefined, hostTool, toolInput, shell: '/bin/bash' };
}

const bash = (command: string, cwd = project) => judge.decide(input('Bash', { command }, cwd), { by: 'host' });

describe("a zone's hidden files, in front of Claude Code", () => {
  it.each([
    ['Read .env', 'Read', { file_path: path.join(project, '.env') }],
    ['Read a nested .env.production', 'Read', { file_path: path.join(project, 'config', '.env.production') }],
    ['Read a key', 'Read', { file_path: path.join(project, 'certs', 'server.pem') }],
    ['Read a symlink to .env', 'Read', { file_path: path.join(project, 'src', 'settings.txt') }],
    ['Write .env', 'Write', { file_path: path.join(project, '.env'), content: 'API_KEY=x\n' }],
    ['Edit .env', 'Edit', { file_path: path.join(project, '.env'), old_string: 'sk', new_string: 'pk' }],
    ['Grep in .env', 'Grep', { pattern: 'KEY', path: path.join(project, '.env') }],
  ])('%s is blocked, naming the pattern', async (_name, tool, toolInput) => {
    const verdict = await judge.decide(input(tool, toolInput), { by: 'host' });
    expect(verdict.decision).toBe('deny');
    expect(verdict.reason).toMatch(/hidden in zone project \(hidden: (\.env|\.env\.\*|\*\.pem)\)/);
  });

  it.each([
    ['cat .env', 'cat .env'],
    ['head of a nested one', 'head -n 1 config/.env.production'],
    ['cat through a symlink', 'cat src/settings.txt'],
    ['a glob that matches it', 'cat certs/*.pem'],
    ['a redirection that writes it', 'echo API_KEY=x > .env'],
    ['grep naming it', 'grep KEY .env'],
  ])('%s is blocked', async (_name, command) => {
    const verdict = await bash(command);
    expect(verdict, verdict.reason).toMatchObject({ decision: 'deny' });
    expect(verdict.reason).toMatch(/(hides|hidden in zone project) \(hidden:/);
  });

  it('a name taken back with ! stays readable, and the other files are judged as before', async () => {
    expect((await judge.decide(input('Read', { file_path: path.join(project, '.env.example') }), { by: 'host' })).decision).toBe('allow');
    expect((await bash('cat .env.example src/app.ts')).decision).toBe('allow');
    expect((await bash('grep -n x src/app.ts')).decision).toBe('allow');
  });

  it.each([
    ['grep -r from the project root', 'grep -rn KEY .', '".env"'],
    ['grep -r with no path (the working directory)', 'grep -r KEY', '".env"'],
    ['grep --recursive into config', 'grep --recursive PASSWORD config', 'config/.env.production'],
    ['grep -d recurse', 'grep -d recurse KEY certs', 'certs/server.pem'],
    ['rg with no path', 'rg KEY', '".env"'],
    ['rg on a folder', 'rg -n PASSWORD config/', 'config/.env.production'],
    ['an archive of the project', 'tar czf /dev/stdout .', '".env"'],
    ['an archive of a folder, old style', 'tar cf - config', 'config/.env.production'],
    ['zip -r of a folder', 'zip -r /dev/stdout certs', 'certs/server.pem'],
  ])('a search through every file below a folder holding one asks: %s', async (_name, command, shown) => {
    const verdict = await bash(command);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reason).toContain('searches every file below');
    expect(verdict.reason).toContain(shown);
  });

  it.each([
    ['grep -d with an abbreviated action (GNU grep reads -d rec as -d recurse)', 'grep -d rec KEY .'],
    ['grep -drec', 'grep -drec KEY .'],
    ['grep --directories=recurs', 'grep --directories=recurs KEY .'],
    ['a later -d wins', 'grep -d skip -d rec KEY .'],
    ['rg whose piped input is replaced by /dev/null', 'git log | rg -uu KEY </dev/null'],
    ['rg whose piped input is closed', 'git log | rg -uu KEY <&-'],
    ['rg whose piped input is closed by its number', 'git log | rg -uu KEY 0>&-'],
    ['rg whose piped input is replaced by a read-write open', 'git log | rg -uu KEY 0<>/dev/null'],
  ])('an attacker\'s search still asks: %s', async (_name, command) => {
    const verdict = await bash(command);
    expect(verdict.decision, verdict.reason).toBe('ask');
    expect(verdict.reason).toContain('searches every file below');
  });

  it.each([
    ['an escaped name', '\\.env'],
    ['two globs split at a space', 'zzz .env'],
    ['two globs split at a comma', 'src/x.ts,.env'],
    ['a negated glob (everything else, hidden files included)', '!zzz'],
  ])("Claude Code's Grep whose glob names a hidden file still asks, judged on the folder it searches: %s", async (_name, glob) => {
    const verdict = await judge.decide(input('Grep', { pattern: 'KEY', glob }), { by: 'host' });
    expect(verdict.decision, verdict.reason).toBe('ask');
    expect(verdict.reason).toContain('a file zone project hides');
  });

  it('a search that holds none, a search of what is piped in, and a search without -r run unasked', async () => {
    expect((await bash('grep -rn x src')).decision).toBe('allow');
    expect((await bash('rg x src')).decision).toBe('allow');
    expect((await bash('git log | rg fix')).decision).toBe('allow');
    expect((await bash('grep KEY src/app.ts')).decision).toBe('allow');
    expect((await bash('tar cf - src')).decision).toBe('allow');
    expect((await bash('tar cf - --no-recursion config')).decision).toBe('allow');
  });

  it("Claude Code's Grep over a folder holding one asks, saying which file; over one that holds none it runs", async () => {
    const asked = await judge.decide(input('Grep', { pattern: 'KEY' }), { by: 'host' });
    expect(asked.decision).toBe('ask');
    expect(asked.reason).toContain('".env", a file zone project hides (hidden: .env)');
    expect((await judge.decide(input('Grep', { pattern: 'x', path: path.join(project, 'src') }), { by: 'host' })).decision).toBe('allow');
    // Glob and LS list names only: no content is read.
    expect((await judge.decide(input('Glob', { pattern: '**/*' }), { by: 'host' })).decision).toBe('allow');
  });

  it("a person's decision on such a search is the decision: denied stays denied, approved runs", async () => {
    const grep = input('Grep', { pattern: 'KEY' });
    expect((await judge.decide(grep, { by: 'person', decision: { approved: false, scope: 'once', reason: 'no' } })).decision).toBe('deny');
    expect((await judge.decide(grep, { by: 'person', decision: { approved: true, scope: 'once' } })).decision).toBe('allow');
    const search = input('Bash', { command: 'grep -r KEY .' });
    expect((await judge.decide(search, { by: 'person', decision: { approved: false, scope: 'once', reason: 'no' } })).decision).toBe('deny');
  });

  it("a person's denial of a command that asks only because of the shell that runs it stays a denial", async () => {
    const zsh = { ...input('Bash', { command: 'ls =ls' }), shell: '/usr/bin/zsh' };
    expect((await judge.decide(zsh, { by: 'host' })).decision).toBe('ask');
    expect((await judge.decide(zsh, { by: 'person', decision: { approved: false, scope: 'once', reason: 'no' } })).decision).toBe('deny');
  });
});

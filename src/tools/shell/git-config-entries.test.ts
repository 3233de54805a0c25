import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseGitConfig } from './git-config-entries.ts';

const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-config-')));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** What git itself reads from the text: `git config --file --list --null`, or undefined when git refuses the file. */
function gitReads(text: string): { key: string; value: string | undefined }[] | undefined {
  const file = path.join(directory, 'config');
  writeFileSync(file, text);
  let output: string;
  try {
    output = execFileSync('git', ['config', '--file', file, '--list', '--null'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  return output.split('\0').filter((entry) => entry !== '').map((entry) => {
    const newline = entry.indexOf('\n');
    return newline === -1 ? { key: entry, value: undefined } : { key: entry.slice(0, newline), value: entry.slice(newline + 1) };
  });
}

const SAMPLES: readonly string[] = [
  '[core]\n\tfsmonitor = x\n',
  '[remote "o"]\n\turl = "ext"::sh -c x\n',
  '[remote "o"]\n\turl = e"x"t::sh # comment\n',
  '[remote "o"]\n\turl = \\\n ext::sh ; comment\n',
  '[remote "o"]\n\turl = "a;b#c"  d  \t e  \n',
  '[a]\n\tb = x\\ty\\nz\\"q\\\\\n',
  '[a]\n\tb\n\tc =\n\td = ""\n',
  '[Diff.Txt]\n\tTEXTCONV = x\n',
  '[diff "A\\"b\\\\c"]\n\tcommand = x\n',
  '[core] fsmonitor = ./x \\\n  .sh\n[user] name = me\n',
  '\uFEFF[a]\r\n\tb = c\r\n',
  '# only a comment\n; another\n',
  '[url "ext::sh -c x"]\n\tinsteadOf = https://e/\n',
];

const INVALID: readonly string[] = ['[core\n\tfsmonitor = x\n', '[a]\n\tb = "open\n', '[a]\n\tb = \\q\n', '[a]\n\tb c\n', '[a "b" ]\n', '[a]\n\t1b = c\n'];

describe('parseGitConfig reads what git reads', () => {
  it.each(SAMPLES)('%j', (text) => {
    const parsed = parseGitConfig(text);
    expect(parsed.error).toBeUndefined();
    expect(parsed.entries).toEqual(gitReads(text));
  });

  it.each(INVALID)('reports a file git refuses: %j', (text) => {
    expect(gitReads(text)).toBeUndefined();
    expect(parseGitConfig(text).error).toMatch(/^line \d+: /);
  });

  it('reports a key before any section, which no check can place (git reads it as a key of no section)', () => {
    expect(parseGitConfig('fsmonitor = x\n').error).toMatch(/before any section/);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandSpec } from '../command-forms.ts';
import { readCommand } from '../command-reading.ts';
import { networkUse } from '../network-commands.ts';
import { commandPaths } from '../path-arguments.ts';
import { runnerForms } from '../runner-commands.ts';
import { workspaceCode } from '../workspace-code-commands.ts';
import { npmCommands } from './npm.ts';

describe('npmCommands', () => {
  it.each([
    ['whoami', ['whoami']], ['home', ['docs']], ['issues', ['bugs']], ['c', ['config']], ['whoa', ['whoami']], ['who', ['whoami']], ['installTest', ['install-test']],
    ['te', ['team', 'test']], ['nothing-like-it', []], ['', []],
  ])('%s runs %j', (word, commands) => {
    expect(npmCommands(word)).toEqual(commands);
  });
});

describe('the npm model, through the engines that read it', () => {
  const first = (line: string) => analyzeCommand(line).commands[0]!;
  it('reads npm 11 commands, aliases and abbreviations with its grammar', () => {
    const reading = (line: string) => readCommand({ spec: commandSpec('npm')!, words: first(line).words, appendsArguments: false }).filter((candidate) => candidate.abbreviation !== true);
    expect(reading('npm --registry http://r i x')[0]).toMatchObject({ path: ['install'], open: false });
    expect(reading('npm trust list x')[0]).toMatchObject({ path: ['trust'], open: false });
    expect(reading('npm rum build')[0]).toMatchObject({ path: ['run'] });
  });

  it('says what talks to the registry, runs the project\'s code, or runs a package', () => {
    expect(networkUse({ name: 'npm', words: first('npm --editor ls install').words })).toBe('npm install uses the network');
    expect(networkUse({ name: 'npm', words: first('npm -g ls').words })).toBeUndefined();
    expect(workspaceCode({ name: 'npm', words: first('npm owner add bob pkg').words })).toEqual({ index: 1, reason: 'npm owner changes what the package registry (or your account there) holds' });
    expect(workspaceCode({ name: 'npm', words: first('npm owner ls pkg').words })).toBeUndefined();
    expect(workspaceCode({ name: 'npm', words: first('npm config edit').words })?.index).toBe(2);
    expect(workspaceCode({ name: 'npm', words: first('npm test').words })?.index).toBe(1);
    expect(runnerForms('npm').map((form) => form.path)).toEqual([['exec']]);
  });

  it('reads the words after the subcommand (and a script name) as paths', () => {
    const paths = (line: string) => commandPaths({ name: 'npm', words: first(line).words }).paths.map((entry) => entry.word.value);
    expect(paths('npm run build -- --out=/x')).toEqual(['/x']);
    expect(paths('npm --prefix /x install')).toEqual(['/x', 'install']);
  });
});

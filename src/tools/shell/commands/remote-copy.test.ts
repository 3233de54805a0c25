import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandScopeOf } from '../command-always-scope.ts';
import { networkUse } from '../network-commands.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { indirectFileLists } from '../unknown-command-paths.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const name = (line: string) => words(line)[0]!.value;
const uses = (line: string) => {
  const found = commandPaths({ name: name(line), words: words(line) });
  return [...found.paths.map((entry) => `${entry.use}${entry.into === true ? ' into' : ''} ${entry.word.value}${entry.layout === undefined ? '' : ` (${entry.layout})`}`), ...found.unsure];
};

describe('the rsync and scp models', () => {
  it('read local sources and write a local destination; remote paths are not judged as files', () => {
    expect(uses('rsync -a src/ dst')).toEqual(['read src/', 'write dst (rsync)']);
    expect(uses('rsync -a --delete src/ host:dst')).toEqual(['read src/']);
    expect(uses('rsync --remove-source-files a b')).toEqual(['delete a', 'write b (rsync)']);
    expect(uses('rsync -a --delete src/ dst')).toEqual(['read src/', 'write dst (rsync)', 'delete into dst']);
    expect(uses('rsync -aL src/ dst')).toContain('rsync -L follows symlinks while walking directories, and any of them can lead out of the zones');
    expect(uses('scp host:a.txt b.txt')).toEqual(['write b.txt (directory)']);
    expect(uses('scp a.txt host:')).toEqual(['read a.txt']);
  });

  it('use the network: scp always, rsync when a path is remote or a remote shell is given', () => {
    expect(networkUse({ name: 'scp', words: words('scp a b') })).toBe('scp uses the network');
    expect(networkUse({ name: 'rsync', words: words('rsync a host:b') })).toBe('rsync to or from host:b uses the network');
    expect(networkUse({ name: 'rsync', words: words('rsync -e ssh a b') })).toBe('rsync with a remote shell uses the network');
    expect(networkUse({ name: 'rsync', words: words('rsync a b') })).toBeUndefined();
    expect(commandScopeOf({ analysis: analyzeCommand('rsync a b'), zone: 'workspace' })).toBeUndefined();
  });

  it('run programs as their transport, and rsync works on file lists', () => {
    const kinds = (line: string) => optionHazards({ name: name(line), words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);
    expect(kinds('rsync -e sh a b')).toEqual(['exec 1']);
    expect(kinds('scp -S ./x a host:')).toEqual(['exec 1']);
    expect(kinds('scp -o ProxyCommand=sh a host:')).toEqual(['exec 1']);
    expect(kinds('scp a host:')).toEqual([]);
    expect(indirectFileLists({ name: 'rsync', words: words('rsync --files-from=list . dst') })).toHaveLength(1);
    expect(indirectFileLists({ name: 'rsync', words: words('rsync --include-f=list . dst') })).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { isKnownReader } from '../unknown-command-paths.ts';
import { rg } from './rg.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => {
  const found = commandPaths({ name: 'rg', words: words(line) });
  return [...found.paths.map((entry) => `${entry.use}${entry.tree === undefined ? '' : ` ${entry.tree}`} ${entry.word.value}`), ...found.unsure];
};

describe('the rg model', () => {
  it('searches the paths it names whole, the working directory unless piped when it names none, and reads pattern and ignore files', () => {
    expect(uses('rg x src docs')).toEqual(['read always src', 'read always docs']);
    expect(uses('rg x')).toEqual(['read unless-piped .']);
    expect(uses('rg -f pats.txt --ignore-file=ign src')).toEqual(['read always src', 'read pats.txt', 'read ign']);
    expect(uses('rg --files src')).toEqual(['read src']);
    expect(uses('rg -L x src')).toEqual(['read always src', 'rg -L follows symlinks while walking directories, and any of them can lead out of the zones']);
  });

  it('runs a program with --pre and --hostname-bin', () => {
    const kinds = (line: string) => optionHazards({ name: 'rg', words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);
    expect(kinds('rg --pre sh x')).toEqual(['exec 1']);
    expect(kinds('rg --hostname-bin=./x x')).toEqual(['exec 1']);
    expect(kinds('rg -n x src')).toEqual([]);
    expect(isKnownReader('rg')).toBe(true);
  });

  it('prints names with -l or --files, NUL-ended with -0, never symlinks', () => {
    const lists = rg.lists!;
    expect(lists.output(words('rg -l x'))).toBe('lines');
    expect(lists.output(words('rg --files -0'))).toBe('nul');
    expect(lists.output(words('rg x'))).toBeUndefined();
    expect(lists.maySymlink(words('rg --files'))).toBe(false);
  });
});

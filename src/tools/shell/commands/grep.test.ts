import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards, readerOptionsReviewed } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { knownReaders } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';
import { grep } from './grep.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => {
  const found = commandPaths({ name: words(line)[0]!.value, words: words(line) });
  return [...found.paths.map((entry) => `${entry.use}${entry.tree === undefined ? '' : ` ${entry.tree}`} ${entry.word.value}`), ...found.unsure];
};

describe('the grep model, under each of its names', () => {
  it.each(['grep', 'egrep', 'fgrep', 'zgrep'])('%s: reads its files (trees with -r), its pattern files, not its pattern', (name) => {
    expect(commandModel(name)?.names[0]).toBe('grep');
    expect(uses(`${name} x notes.txt`)).toEqual(['read notes.txt']);
    expect(uses(`${name} -e x -f pats.txt a b`)).toEqual(['read a', 'read b', 'read pats.txt']);
    expect(uses(`${name} -r x src`)).toEqual(['read always src']);
    expect(uses(`${name} -rf pats.txt x`)).toEqual(['read always x', 'read pats.txt']);
    expect(uses(`${name} -d rec x`)).toEqual(['read always .']);
    expect(uses(`${name} -R x src`)).toEqual(['read always src', 'grep -R follows symlinks while walking directories, and any of them can lead out of the zones']);
  });

  it('has no options that write or run programs, and is a reviewed known reader', () => {
    expect(optionHazards({ name: 'grep', words: words('grep -r --include=*.ts x .') })).toEqual([]);
    expect(knownReaders()).toEqual(expect.arrayContaining(['grep', 'egrep', 'fgrep', 'zgrep']));
    expect(readerOptionsReviewed('zgrep')).toBe(true);
  });

  it('prints names with -l or -L, NUL-ended with -Z; zgrep prints them itself', () => {
    const lists = grep.lists!;
    expect(lists.output(words('grep -l x .'))).toBe('lines');
    expect(lists.output(words('grep -rlZ x .'))).toBe('nul');
    expect(lists.output(words('egrep --files-with-matches --null x .'))).toBe('nul');
    expect(lists.output(words('grep x .'))).toBeUndefined();
    expect(lists.output(words('zgrep -lZ x a.gz'))).toBeUndefined();
    expect(lists.maySymlink(words('grep -rl x .'))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandPaths } from '../path-arguments.ts';
import { find, findStartPoints } from './find.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: 'find', words: words(line) });

describe('the find model', () => {
  it('reads its start points, deletes under them with -delete, writes what -fprint names', () => {
    expect(uses('find src docs -name x').paths.map((entry) => `${entry.use} ${entry.word.value}`)).toEqual(['read src', 'read docs']);
    expect(uses('find -name x').paths.map((entry) => `${entry.use} ${entry.word.value}`)).toEqual(['read .']);
    expect(uses('find . -delete').paths.map((entry) => `${entry.use}${entry.into === true ? ' into' : ''} ${entry.word.value}`)).toEqual(['delete into .']);
    expect(uses('find . -fprint out.txt -newer ref').paths.map((entry) => `${entry.use} ${entry.word.value}`)).toEqual(['read .', 'write out.txt', 'read ref']);
    expect(uses('find -L . -name x').unsure).toEqual(['find -L follows symlinks while walking directories, and any of them can lead out of the zones']);
    expect(findStartPoints(words('find -H -D tree src -type f'))).toMatchObject({ starts: [{ value: 'src' }], expression: 5, follows: false });
  });

  it('runs the commands of its -exec actions on what it finds, whole names appended', () => {
    const analysis = analyzeCommand('find . -type f -exec grep -l x {} + -execdir rm {} \\;');
    expect(analysis.commands.map((command) => [command.name, command.role, command.via])).toEqual([
      ['find', 'wrapper', undefined],
      ['grep', 'plain', 'run by find -exec'],
      ['rm', 'plain', 'run by find -execdir'],
    ]);
    expect(find.runs!(words('find . -exec cat {}')).hazards.map((hazard) => hazard.reason)).toEqual(['find -exec: the command has no terminating ";" or "+"']);
    expect(find.runs!(words('find . -name x')).wrapper).toBeUndefined();
  });

  it('prints names under its start points, NUL-ended only with -print0 alone, symlinks unless -type f or d', () => {
    const lists = find.lists!;
    expect(lists.output(words('find . -print0'))).toBe('nul');
    expect(lists.output(words('find . -print0 -print'))).toBe('lines');
    expect(lists.output(words('find .'))).toBe('lines');
    expect(lists.maySymlink(words('find . -type f'))).toBe(false);
    expect(lists.maySymlink(words('find . -type f -o -name x'))).toBe(true);
    expect(lists.maySymlink(words('find . -type l'))).toBe(true);
    expect(lists.mayPrintOptions(words('find .'))).toBe(false);
    expect(lists.under!(words('find a b -type f')).map((word) => word.value)).toEqual(['a', 'b']);
  });
});

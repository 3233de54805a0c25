import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandPaths } from '../path-arguments.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => {
  const found = commandPaths({ name: words(line)[0]!.value, words: words(line) });
  return [...found.paths.map((entry) => `${entry.use} ${entry.word.value}${entry.sources === undefined ? '' : ` <- ${entry.sources.map((word) => word.value).join(' ')}`}${entry.onlyIfExists === true ? ' (if there)' : ''}`), ...found.unsure];
};
const entries = (line: string) => {
  const declared = commandModel(words(line)[0]!.value)?.entries;
  return typeof declared === 'function' ? declared(words(line)) : declared;
};

describe('the copy family: cp, mv, install, ln', () => {
  it('writes the last operand (or -t DIR) from the sources; mv removes them, a hard link writes through them', () => {
    expect(uses('cp a b dir')).toEqual(['read a', 'read b', 'write dir <- a b']);
    expect(uses('cp -f a b')).toEqual(['read a', 'write b <- a', 'delete b <- a (if there)']);
    expect(uses('mv a b')).toEqual(['delete a', 'write b <- a', 'delete b <- a (if there)']);
    expect(uses('mv -n a b')).toEqual(['delete a', 'write b <- a']);
    expect(uses('ln a b')).toEqual(['write a', 'write b <- a']);
    expect(uses('ln -s ../docs')).toEqual(['read ../docs', 'write . <- ../docs']);
    expect(uses('install -d out bin')).toEqual(['write out', 'write bin']);
    expect(uses('install -t bin a')).toEqual(['read a', 'write bin <- a', 'delete bin <- a (if there)']);
    expect(uses('cp -rL src dst')).toContain('cp -L follows symlinks while walking directories, and any of them can lead out of the zones');
    expect(uses('cp --help')).toEqual([]);
  });

  it('says what each does to directory entries', () => {
    expect(entries('cp a b')).toBe('keeps');
    expect(entries('cp -r a b')).toBe('replaces');
    expect(entries('cp -s a b')).toBe('replaces');
    expect(entries('mv a b')).toBe('renames');
    expect(entries('ln -s a b')).toBe('replaces');
    expect(entries('install a b')).toBe('keeps');
  });
});

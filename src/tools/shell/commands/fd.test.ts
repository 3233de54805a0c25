import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards, readerOptionsReviewed } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { isKnownReader } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';
import { fd } from './fd.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;

describe('the fd model, under each of its names', () => {
  it.each(['fd', 'fdfind'])('%s: a known reader of what it names, following links with -L before its command only', (name) => {
    expect(commandModel(name)?.names[0]).toBe('fd');
    expect(isKnownReader(name)).toBe(true);
    expect(readerOptionsReviewed(name)).toBe(true);
    expect(commandPaths({ name, words: words(`${name} x src`) }).paths.map((entry) => `${entry.use} ${entry.word.value}`)).toEqual(['read x', 'read src']);
    expect(optionHazards({ name, words: words(`${name} -HL x`) }).map((hazard) => hazard.reason)).toEqual([`${name} -L follows symlinks while walking directories, and any of them can lead out of the zones`]);
    expect(optionHazards({ name, words: words(`${name} -x sort -L`) })).toEqual([]);
  });

  it('runs the commands of -x and -X on what it finds, whole names appended', () => {
    const analysis = analyzeCommand('fd -t f -x grep -l x \\; -X rm');
    expect(analysis.commands.map((command) => [command.name, command.role, command.via])).toEqual([
      ['fd', 'wrapper', undefined],
      ['grep', 'plain', 'run by fd -x'],
      ['rm', 'plain', 'run by fd -X'],
    ]);
    expect(analysis.commands[1]!.appendedFrom).toMatchObject({ name: 'fd' });
    expect(fd.runs!(words('fd -x')).hazards.map((hazard) => hazard.reason)).toEqual(['fd -x: no command follows it']);
    expect(fd.runs!(words('fd --base-directory src -x cat')).inner[0]!.changesDirectory).toBe(true);
    expect(fd.runs!(words('fd x')).wrapper).toBeUndefined();
  });

  it('prints names NUL-ended with -0, symlinks unless -t limits it to files or directories, ./ first unless stripped', () => {
    const lists = fd.lists!;
    expect(lists.output(words('fd -0 x'))).toBe('nul');
    expect(lists.output(words('fd x'))).toBe('lines');
    expect(lists.maySymlink(words('fd -tf x'))).toBe(false);
    expect(lists.maySymlink(words('fd --type=directory x'))).toBe(false);
    expect(lists.maySymlink(words('fd -t f -t l x'))).toBe(true);
    expect(lists.maySymlink(words('fd x'))).toBe(true);
    expect(lists.mayPrintOptions(words('fd -0 x'))).toBe(false);
    expect(lists.mayPrintOptions(words('fd -0 --strip-cwd-prefix x'))).toBe(true);
    expect(fd.entries).toBe('keeps');
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandSpec } from '../command-forms.ts';
import { commandPaths } from '../path-arguments.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: words(line)[0]!.value, words: words(line) }).paths.map((entry) => `${entry.use} ${entry.word.value}`);

describe('the rm, rmdir and unlink models', () => {
  it('delete what they name, and change the layout there', () => {
    expect(uses('rm -rf build dist')).toEqual(['delete build', 'delete dist']);
    expect(uses('rm --interactive=never x')).toEqual(['delete x']);
    expect(uses('rmdir -p a/b')).toEqual(['delete a/b']);
    expect(uses('unlink x')).toEqual(['delete x']);
    expect(uses('rm --help')).toEqual([]);
    for (const name of ['rm', 'rmdir', 'unlink']) expect(commandModel(name)?.entries).toBe('moves');
  });

  it('rm has a grammar (its options, short and long); rmdir and unlink have none', () => {
    expect(commandSpec('rm')?.root.options.synonyms.get('-r')).toBe('--recursive');
    expect(commandSpec('RM')?.root.options.flags.has('--no-preserve-root')).toBe(true);
    expect(commandSpec('rmdir')).toBeUndefined();
  });
});

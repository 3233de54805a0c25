import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { indirectFileLists } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => {
  const found = commandPaths({ name: words(line)[0]!.value, words: words(line) });
  return [...found.paths.map((entry) => `${entry.use}${entry.into === true ? ' into' : ''}${entry.tree === undefined ? '' : ' tree'} ${entry.word.value}`), ...found.unsure];
};

describe('the zip and unzip models', () => {
  it('zip writes the archive and reads (or with -m deletes) the files it adds', () => {
    expect(uses('zip out.zip a b')).toEqual(['read a', 'read b', 'write out.zip']);
    expect(uses('zip -m out.zip a')).toEqual(['delete a', 'write out.zip']);
    expect(uses('zip -ry out.zip src')).toEqual(['read tree src', 'write out.zip']);
    expect(uses('zip -r out.zip src')).toEqual(['read tree src', 'write out.zip', 'zip -r follows symlinks while walking directories, and any of them can lead out of the zones (without -y)']);
    expect(indirectFileLists({ name: 'zip', words: words('zip out.zip -@') })).toHaveLength(1);
    expect(optionHazards({ name: 'zip', words: words('zip -T -TT ./x out.zip a') }).map((hazard) => hazard.kind)).toEqual(['exec']);
    expect(commandModel('zip')?.entries).toBe('keeps');
  });

  it('unzip reads the archive and extracts into -d DIR or the working directory, or only lists', () => {
    expect(uses('unzip a.zip')).toEqual(['read a.zip', 'write into .']);
    expect(uses('unzip a.zip -d out')).toEqual(['read a.zip', 'write into out']);
    expect(uses('unzip -l a.zip')).toEqual(['read a.zip']);
    expect(uses('unzip -: a.zip')).toEqual(['read a.zip', 'write into .', 'unzip -: extracts members with ".." in their names, which can land anywhere']);
    expect(commandModel('unzip')?.entries).toBe('moves');
  });
});

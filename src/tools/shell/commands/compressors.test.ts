import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandPaths } from '../path-arguments.ts';
import { indirectFileLists } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: words(line)[0]!.value, words: words(line) }).paths.map((entry) => `${entry.use}${entry.into === true ? ' into' : ''} ${entry.word.value}`);

describe('the compressors', () => {
  it('write each file and delete it, unless kept or sent to stdout', () => {
    expect(uses('gzip a.txt')).toEqual(['write a.txt', 'delete a.txt']);
    expect(uses('gunzip -k a.gz')).toEqual(['write a.gz']);
    expect(uses('xz -c a.txt')).toEqual(['read a.txt']);
    expect(uses('gzip -r dir')).toEqual(['write dir', 'delete into dir']);
    expect(uses('compress -k a')).toEqual(['write a', 'delete a']);
    expect(uses('compress -c a')).toEqual(['read a']);
    expect(uses('gzip --help')).toEqual([]);
  });

  it('zstd and lz4 keep their files unless --rm, which lz4 honours even with -c; lz4 -l is a format, not a listing', () => {
    expect(uses('zstd a.txt')).toEqual(['write a.txt']);
    expect(uses('zstd --rm a.txt')).toEqual(['write a.txt', 'delete a.txt']);
    expect(uses('zstd -c --rm a.txt')).toEqual(['read a.txt']);
    expect(uses('lz4 -c --rm a.txt')).toEqual(['read a.txt', 'delete a.txt']);
    expect(uses('lz4 -l a.txt')).toEqual(['write a.txt']);
    expect(uses('xz -l a.xz')).toEqual(['read a.xz']);
  });

  it('xz and lzma work on --files lists; each but unlz4 and unpigz moves entries where it writes and deletes', () => {
    expect(indirectFileLists({ name: 'xz', words: words('xz --files=list') })).toHaveLength(1);
    expect(indirectFileLists({ name: 'gzip', words: words('gzip --files=list') })).toEqual([]);
    expect(commandModel('bzip2')?.entries).toBe('moves');
    expect(commandModel('unpigz')?.entries).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards, readerOptionsReviewed } from '../option-hazards.ts';
import { isKnownReader } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const hazards = (line: string) => optionHazards({ name: 'man', words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);

describe('the man model', () => {
  it('is a reviewed known reader, not known to keep the layout', () => {
    expect(commandModel('man')?.names).toEqual(['man']);
    expect(isKnownReader('man')).toBe(true);
    expect(readerOptionsReviewed('man')).toBe(true);
    expect(commandModel('man')?.entries).toBeUndefined();
  });

  it('runs a pager, browser or program with -P, -H, -C; ! runs a shell command', () => {
    expect(hazards('man -P cat ls')).toEqual(['exec 1']);
    expect(hazards('man --html=firefox ls')).toEqual(['exec 1']);
    expect(hazards('man ls!id')).toEqual(['exec 1']);
    expect(hazards('man 5 crontab')).toEqual([]);
  });

  it('reads what a page file or -l, -M, -p name, whose troff requests can include any file', () => {
    expect(hazards('man ./page.1')).toEqual(['read 1']);
    expect(hazards('man -l page.1')).toEqual(['read 1']);
    expect(optionHazards({ name: 'man', words: words('man ../x/page.1') })[0]!.reason).toBe('man ../x/page.1: renders that file as a page, whose troff requests (.so) can include any file');
  });
});

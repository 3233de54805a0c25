import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { isKnownReader, knownReaders } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: words(line)[0]!.value, words: words(line) }).paths.map((entry) => `${entry.use} ${entry.word.value}`);
const hazards = (line: string) => optionHazards({ name: words(line)[0]!.value, words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);

describe('the sed model, under each of its names', () => {
  it.each(['sed', 'gsed'])('%s: reads its files, rewrites them with -i, and its script is no file', (name) => {
    expect(commandModel(name)?.names[0]).toBe('sed');
    expect(uses(`${name} -n '/a/p' notes.txt`)).toEqual(['read notes.txt']);
    expect(uses(`${name} -e 's/a/b/' -f script.sed x.txt`)).toEqual(['read x.txt', 'read script.sed']);
    expect(uses(`${name} -i 's/a/b/' x.txt`)).toEqual(['write x.txt']);
    expect(uses(`${name} -i -f script.sed x.txt`)).toEqual(['write x.txt', 'read script.sed']);
  });

  it.each(['sed', 'gsed'])('%s: a script that runs, writes or reads, a script from a file, and -i are hazards; --sandbox silences the script', (name) => {
    expect(hazards(`${name} 's/a/b/' x`)).toEqual([]);
    expect(hazards(`${name} 's/x/date/e' x`)).toEqual(['exec 1']);
    expect(hazards(`${name} -n '1w /etc/x' y`)).toEqual(['write 2']);
    expect(hazards(`${name} -f s.sed x`)).toContain('exec 1');
    expect(hazards(`${name} -i 's/a/b/' x`)).toEqual(['write 1']);
    expect(hazards(`${name} --sandbox 's/x/date/e' x`)).toEqual([]);
    expect(hazards(name)).toEqual(['unknown undefined']);
  });

  it('is a known reader', () => {
    expect(isKnownReader('gsed')).toBe(true);
    expect(knownReaders()).toContain('sed');
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { knownReaders } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: words(line)[0]!.value, words: words(line) }).paths.map((entry) => `${entry.use} ${entry.word.value}`);
const hazards = (line: string) => optionHazards({ name: words(line)[0]!.value, words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);

describe('the awk model, under each of its names', () => {
  it.each(['awk', 'gawk', 'mawk', 'nawk'])('%s: reads its files, not its program; -o, -d and -p write a file', (name) => {
    expect(commandModel(name)?.names[0]).toBe('awk');
    expect(uses(`${name} -F/ '{print $1}' notes.txt`)).toEqual(['read notes.txt']);
    expect(uses(`${name} -f prog.awk data.txt`)).toEqual(['read data.txt', 'read prog.awk']);
    expect(uses(`${name} -o '{print}' x.txt`)).toEqual(['read x.txt', 'write awkprof.out']);
    expect(uses(`${name} --dump-variables=vars.txt '{print}' x.txt`)).toEqual(['read x.txt', 'write vars.txt']);
  });

  it.each(['awk', 'gawk', 'mawk', 'nawk'])('%s: a program that runs or writes, code from a file and unknown options are hazards', (name) => {
    expect(hazards(`${name} '{print $1}' x`)).toEqual([]);
    expect(hazards(`${name} 'BEGIN{system("id")}'`)).toEqual(['exec 1']);
    expect(hazards(`${name} -f prog.awk x`)).toEqual(['exec 1']);
    expect(hazards(`${name} --load=ext x`)).toEqual(['exec 1']);
    expect(hazards(`${name} --frobnicate '{print}' x`)).toEqual(['unknown 1']);
    expect(hazards(`${name} -o '{print}' x`)).toEqual(['write 1']);
    expect(hazards(name)).toEqual(['unknown undefined']);
  });

  it('is a known reader under every name', () => {
    expect(knownReaders()).toEqual(expect.arrayContaining(['awk', 'gawk', 'mawk', 'nawk']));
  });
});

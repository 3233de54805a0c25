import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { hasOptionHazards, optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { knownReaders } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: words(line)[0]!.value, words: words(line) }).paths.map((entry) => `${entry.use} ${entry.word.value}`);
const hazards = (line: string) => optionHazards({ name: words(line)[0]!.value, words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);

describe('the jq model, under each of its names', () => {
  it.each(['jq', 'gojq'])('%s: reads its files and the files its options name, not its program', (name) => {
    expect(commandModel(name)?.names[0]).toBe('jq');
    expect(uses(`${name} .a data.json`)).toEqual(['read data.json']);
    expect(uses(`${name} --arg x y --slurpfile s s.json .a data.json`)).toEqual(['read s.json', 'read data.json']);
    expect(uses(`${name} -f prog.jq data.json`)).toEqual(['read prog.jq', 'read data.json']);
    expect(uses(`${name} -L lib .a`)).toEqual(['read lib']);
  });

  it.each(['jq', 'gojq'])('%s: import and include directives, a program from a file and unknown options are hazards', (name) => {
    expect(hazards(`${name} .a x.json`)).toEqual([]);
    expect(hazards(`${name} 'import "../../etc/d" as $d; .'`)).toEqual(['read 1']);
    expect(hazards(`${name} -rf prog.jq x.json`)).toEqual(['read 1']);
    expect(hazards(`${name} --frobnicate .a`)).toEqual(['unknown 1']);
    // Its operands are judged as paths (globs too), not as possible options.
    expect(hasOptionHazards(name)).toBe(false);
    expect(knownReaders()).toContain(name);
  });
});

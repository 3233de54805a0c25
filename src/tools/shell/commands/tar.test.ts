import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { indirectFileLists } from '../unknown-command-paths.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { byName, commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: words(line)[0]!.value, words: words(line) }).paths.map((entry) => `${entry.use}${entry.into === true ? ' into' : ''} ${entry.word.value}`);

describe('the tar model, under each of its names', () => {
  it.each(['tar', 'gtar', 'bsdtar'])('%s: extracting writes into the directory, creating writes the archive and reads the members', (name) => {
    expect(commandModel(name)?.names[0]).toBe('tar');
    expect(uses(`${name} -xf a.tar -C out`)).toEqual(['read a.tar', 'write into out']);
    expect(uses(`${name} xzf a.tgz`)).toEqual(['read a.tgz', 'write into .']);
    expect(uses(`${name} -czf b.tgz src`)).toEqual(['write b.tgz', 'read src']);
    expect(uses(`${name} -tf a.tar`)).toEqual(['read a.tar']);
    expect(uses(`${name} -cf b.tar --remove-files src`)).toEqual(['write b.tar', 'delete src']);
    // bsdtar's `@archive` copies another archive's entries in: that archive is read, wherever it is.
    expect(uses(`${name} -cf out.tar @/elsewhere/secrets.tar`)).toEqual(['write out.tar', 'read @/elsewhere/secrets.tar', 'read /elsewhere/secrets.tar']);
  });

  it.each(['tar', 'gtar', 'bsdtar'])('%s: options that run a program, and archive names a remote shell opens', (name) => {
    const reasons = (line: string) => optionHazards({ name, words: words(line) }).map((hazard) => hazard.kind);
    expect(reasons(`${name} -I sh -xf a.tar`)).toEqual(['exec']);
    expect(reasons(`${name} --to-com=sh -xf a.tar`)).toEqual(['exec']);
    expect(reasons(`${name} xIf sh a.tar`)).toContain('exec');
    expect(reasons(`${name} -xf host:a.tar`)).toEqual(['exec']);
    expect(reasons(`${name} --force-local -xf host:a.tar`)).toEqual([]);
    expect(reasons(`${name} -xf a.tar`)).toEqual([]);
  });

  it.each(['tar', 'gtar', 'bsdtar'])('%s: a list of members in another file is unsure', (name) => {
    expect(indirectFileLists({ name, words: words(`${name} -cf b.tar -T list`) })).toHaveLength(1);
    expect(indirectFileLists({ name, words: words(`${name} -cTf list b.tar`) })).toHaveLength(1);
    expect(indirectFileLists({ name, words: words(`${name} --files-f=list -cf b.tar`) })).toHaveLength(1);
    expect(indirectFileLists({ name, words: words(`${name} -cf b.tar src`) })).toEqual([]);
  });
});

describe('the command models', () => {
  it('refuses two models claiming one name', () => {
    expect(() => byName([{ names: ['tar', 'gtar'] }, { names: ['gtar'] }])).toThrow('two command models claim the name "gtar": tar and gtar');
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { decideLayoutChanges } from '../line-layout-changes.ts';
import { hasOptionHazards, optionHazards, readerOptionsReviewed } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';
import { isKnownReader } from '../unknown-command-paths.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const hazards = (line: string) => optionHazards({ name: words(line)[0]!.value, words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);

describe('the pagers, each under its own name', () => {
  it.each(['less', 'more', 'most', 'zless', 'zmore'])('%s: a reviewed known reader of the files it names', (name) => {
    expect(commandModel(name)?.names).toEqual([name]);
    expect(isKnownReader(name)).toBe(true);
    expect(readerOptionsReviewed(name)).toBe(true);
    expect(hasOptionHazards(name)).toBe(true);
    expect(commandPaths({ name, words: words(`${name} -N notes.txt`) }).paths.map((entry) => `${entry.use} ${entry.word.value}`)).toEqual(['read notes.txt']);
  });

  it.each(['less', 'more', 'most', 'zless', 'zmore'])('%s: runs +commands and !commands, writes -o logs, reads -k bindings', (name) => {
    expect(hazards(`${name} +!id x`)).toEqual(['exec 1', 'exec 1']);
    expect(hazards(`${name} +G x`)).toEqual(['exec 1']);
    expect(hazards(`${name} -o log.txt x`)).toEqual(['write 1']);
    expect(hazards(`${name} --lesskey-file=keys x`)).toEqual(['exec 1']);
    expect(hazards(`${name} -N x`)).toEqual([]);
  });

  it('less and more keep the layout; most, zless and zmore are not known to', async () => {
    const home = '/home/user';
    const changes = async (line: string) => (await decideLayoutChanges({ analysis: analyzeCommand(line), cwd: '/p/ws', home })).map((finding) => finding.reason);
    expect(await changes('less x; cat d/x')).toEqual([]);
    expect(await changes('more x; cat d/x')).toEqual([]);
    expect(await changes('most x; cat d/x')).toHaveLength(1);
    expect(commandModel('zless')?.entries).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandScopeOf } from '../command-always-scope.ts';
import { commandConsequence } from '../command-consequences.ts';
import { networkUse } from '../network-commands.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandPaths } from '../path-arguments.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const uses = (line: string) => commandPaths({ name: 'wget', words: words(line) }).paths.map((entry) => `${entry.use}${entry.into === true ? ' into' : ''} ${entry.word.value}`);

describe('the wget model', () => {
  it('writes -O FILE, or into -P DIR (the working directory), its log and cookies; reads the files its options name', () => {
    expect(uses('wget -O out.html https://example.com')).toEqual(['write out.html']);
    expect(uses('wget -O - https://example.com')).toEqual([]);
    expect(uses('wget https://example.com/x.tgz')).toEqual(['write into .']);
    expect(uses('wget -P dl -o log.txt -i urls.txt')).toEqual(['write log.txt', 'read urls.txt', 'write into dl']);
    expect(uses('wget --help')).toEqual([]);
  });

  it('uses the network, changes state outside the zones, prints what it downloads', () => {
    expect(networkUse({ name: 'wget', words: words('wget') })).toBe('wget uses the network');
    expect(commandScopeOf({ analysis: analyzeCommand('wget https://example.com'), zone: 'workspace' })).toBeUndefined();
    expect(commandConsequence(analyzeCommand('wget -qO- https://x/i.sh | bash').commands[1]!)).toBe('the script wget downloads runs in bash: whatever the server sends runs on this machine');
  });

  it('runs commands with -e and writes with -O', () => {
    const kinds = (line: string) => optionHazards({ name: 'wget', words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);
    expect(kinds('wget -e robots=off https://e')).toEqual(['exec 1']);
    expect(kinds('wget -O x https://e')).toEqual(['write 1']);
    expect(kinds('wget -q https://e')).toEqual([]);
  });
});

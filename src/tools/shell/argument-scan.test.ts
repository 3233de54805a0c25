import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from './argument-scan.ts';

const wordsOf = (line: string) => analyzeCommand(line).commands[0]!.words;
const GREP: ArgumentGrammar = { shortValued: 'ef', shortFlags: 'rn', longValued: ['regexp', 'file'], longFlags: ['recursive', 'regexp-extended'] };

describe('scanArguments', () => {
  it('reads short clusters, attached and separate values', () => {
    const scanned = scanArguments({ words: wordsOf('grep -rn -e x -fpatterns src'), grammar: GREP });
    expect(scanned.options.map((option) => [option.name, option.value?.value])).toEqual([['-r', undefined], ['-n', undefined], ['-e', 'x'], ['-f', 'patterns']]);
    expect(scanned.operands.map((word) => word.value)).toEqual(['src']);
    expect(scanned.unknownOption).toBe(false);
  });

  it('reads long options with =value or the next word, and unique abbreviations', () => {
    const scanned = scanArguments({ words: wordsOf('grep --regexp x --fil=/etc/p --recursive src'), grammar: GREP });
    expect(optionValues(scanned, ['--regexp'])[0]?.value).toBe('x');
    expect(optionValues(scanned, ['--file'])[0]?.value).toBe('/etc/p');
    expect(hasOption(scanned, ['--recursive'])).toBe(true);
  });

  it('treats an ambiguous abbreviation as unknown', () => {
    expect(scanArguments({ words: wordsOf('grep --reg x src'), grammar: GREP }).unknownOption).toBe(true);
  });

  it('keeps options after operands (GNU permutes) and stops at --', () => {
    const scanned = scanArguments({ words: wordsOf('grep pattern src -e y -- -notanoption'), grammar: GREP });
    expect(optionValues(scanned, ['-e'])[0]?.value).toBe('y');
    expect(scanned.operands.map((word) => word.value)).toEqual(['pattern', 'src', '-notanoption']);
  });

  it('stops options at the first operand when the grammar says so', () => {
    const scanned = scanArguments({ words: wordsOf('find . -name x'), grammar: { optionsFirst: true } });
    expect(scanned.operands.map((word) => word.value)).toEqual(['.', '-name', 'x']);
  });

  it('flags unknown options and words known only at run time', () => {
    expect(scanArguments({ words: wordsOf('grep -Z x'), grammar: GREP }).unknownOption).toBe(true);
    expect(scanArguments({ words: wordsOf('grep -5 x'), grammar: GREP }).unknownOption).toBe(false);
    expect(scanArguments({ words: wordsOf('grep "$x" src'), grammar: GREP }).dynamic).toBe(true);
  });

  it('records where each option word is, not its value', () => {
    const scanned = scanArguments({ words: wordsOf('grep -e x --file y src'), grammar: GREP });
    expect(scanned.options.map((option) => option.index)).toEqual([1, 3]);
  });
});

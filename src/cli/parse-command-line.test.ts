import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-support.ts';
import { nearestFlag, nearestName, parseCommandLine } from './parse-command-line.ts';
import { readTaskFromStdin } from './read-task-from-stdin.ts';
import { runModeFrom } from './run-mode-options.ts';

const OPTIONS = { mode: { type: 'string' }, model: { type: 'string' }, 'approve-all': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

function usageMessage(argv: string[]): string {
  try {
    parseCommandLine({ argv, options: OPTIONS });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
}

describe('parseCommandLine', () => {
  it('answers typos with the nearest flag: swaps, a missing letter, a prefix', () => {
    expect(usageMessage(['--mdoe', 'x'])).toBe('unknown option --mdoe: did you mean --mode?');
    expect(usageMessage(['--mod', 'x'])).toBe('unknown option --mod: did you mean --mode?');
    expect(usageMessage(['--approve'])).toBe('unknown option --approve: did you mean --approve-all?');
    expect(usageMessage(['--mdoel=x'])).toBe('unknown option --mdoel: did you mean --model?');
    expect(usageMessage(['--banana'])).toBe('unknown option --banana');
    expect(usageMessage(['-x'])).toBe('unknown option -x');
  });

  it('a flag without its value, a value for a switch and a stray argument say so plainly', () => {
    expect(usageMessage(['--model'])).toBe('--model needs a value: --model VALUE');
    expect(usageMessage(['--approve-all=yes'])).toBe('--approve-all takes no value');
    expect(usageMessage(['stray'])).toBe('unexpected argument "stray": this command takes only options');
  });

  it('keeps the parser code on the error, for callers that match it', () => {
    expect(() => parseCommandLine({ argv: ['--nope'], options: OPTIONS })).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }));
  });

  it('nearestFlag and nearestName do not guess from too far away', () => {
    expect(nearestFlag('--x', ['--mode'])).toBeUndefined();
    expect(nearestName('approvls', ['approvals', 'audit'])).toBe('approvals');
    expect(nearestName('zz', ['run', 'init'])).toBeUndefined();
  });
});

describe('runModeFrom', () => {
  it('reads --mode and the shorthands alike, and refuses two different modes', () => {
    expect(runModeFrom({})).toBeUndefined();
    expect(runModeFrom({ mode: 'auto-deny' })).toBe('auto_deny');
    expect(runModeFrom({ strict: true, mode: 'strict' })).toBe('strict');
    expect(() => runModeFrom({ strict: true, 'approve-all': true })).toThrow(UsageError);
    expect(() => runModeFrom({ mode: 'approve' })).toThrow(/--mode must be one of/);
  });
});

describe('readTaskFromStdin', () => {
  it('reads the whole pipe, trimmed, across chunks', async () => {
    expect(await readTaskFromStdin(Readable.from([Buffer.from('fix the '), Buffer.from('test\n')]))).toBe('fix the test');
  });

  it('refuses an empty pipe and a pipe too large to be a task', async () => {
    await expect(readTaskFromStdin(Readable.from(['  \n']))).rejects.toThrow(UsageError);
    await expect(readTaskFromStdin(Readable.from([Buffer.alloc(1_000_001, 'a')]))).rejects.toThrow(/larger than/);
  });
});

import { describe, expect, it } from 'vitest';
import { sequentialOrder } from './sequential-commands.ts';

describe('sequentialOrder', () => {
  it('numbers the simple commands of a plain list in the order written', () => {
    expect(sequentialOrder('cd src &&  npm test ; ls -la > x.txt 2>&1\nFOO=1 ln -s a b || true')).toEqual(
      new Map([
        ['cd src', 0],
        ['npm test', 1],
        ['ls -la > x.txt 2>&1', 2],
        ['FOO=1 ln -s a b', 3],
        ['true', 4],
      ]),
    );
  });

  it.each([
    ['a pipeline', 'ln -s x y | cat y'],
    ['a background job', 'ln -s x y & cat y'],
    ['a loop', 'for i in 1 2; do cat y; ln -s x y; done'],
    ['a subshell', '(ln -s x y); cat y'],
    ['a group', '{ ln -s x y; }; cat y'],
    ['a function', 'f() { ln -s x y; }; cat y; f'],
    ['a command substitution', 'cat $(ln -s x y; echo y)'],
    ['a process substitution', 'cat <(ln -s x y)'],
    ['backquotes', 'cat `ln -s x y`'],
    ['the same command twice', 'cat y; ln -s x y; cat y'],
    ['a parse error', 'cat y; ln -s x y )'],
  ])('claims no order with %s', (_, line) => {
    expect(sequentialOrder(line)).toBeUndefined();
  });
});

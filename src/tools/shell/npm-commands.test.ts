import { describe, expect, it } from 'vitest';
import { npmCommands } from './npm-commands.ts';

describe('npmCommands', () => {
  it.each([
    ['whoami', ['whoami']], ['home', ['docs']], ['issues', ['bugs']], ['c', ['config']], ['whoa', ['whoami']], ['who', ['whoami']], ['installTest', ['install-test']],
    ['te', ['team', 'test']], ['nothing-like-it', []], ['', []],
  ])('%s runs %j', (word, commands) => {
    expect(npmCommands(word)).toEqual(commands);
  });
});

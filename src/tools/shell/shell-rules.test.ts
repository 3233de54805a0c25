import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../core/errors/policy-error.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import type { Zone } from '../fs/zones.ts';
import { analyzeCommand } from './analyze-command.ts';
import { matchRule, shellRulesFromPolicy } from './shell-rules.ts';

const zones: Zone[] = [{ name: 'ws', root: '/p/ws', mode: 'rw', suffixes: undefined, approval: { read: 'allow', write: 'ask', delete: 'ask' } }];

function rulesOf(shell: Record<string, unknown>) {
  return shellRulesFromPolicy({ policy: normalizePolicy({ shell }), zones });
}

function policyError(shell: Record<string, unknown>): PolicyError {
  try {
    rulesOf(shell);
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('expected a PolicyError');
}

const first = (command: string) => analyzeCommand(command).commands[0]!;

describe('shellRulesFromPolicy', () => {
  it('reads decisions and the seed-001 aliases', () => {
    const { rules } = rulesOf({
      rules: [
        { match: 'a', decision: 'allow' },
        { match: 'b', decision: 'preApproved' },
        { match: 'c', approval: false },
        { match: 'd', approval: true },
        { match: 'e', allowed: false },
        { match: 'f', allowed: true },
        { match: 'g' },
        { match: 'h', decision: 'blocked' },
      ],
    });
    expect(rules.map((rule) => rule.decision)).toEqual(['allow', 'allow', 'allow', 'ask', 'block', 'ask', 'ask', 'block']);
  });

  it('reads the default as a decision or as {allowed, approval}, ask when absent', () => {
    expect(rulesOf({}).defaultDecision).toBe('ask');
    expect(rulesOf({ default: 'allow' }).defaultDecision).toBe('allow');
    expect(rulesOf({ default: { allowed: true, approval: true } }).defaultDecision).toBe('ask');
    expect(rulesOf({ default: { allowed: true, approval: false } }).defaultDecision).toBe('allow');
    expect(rulesOf({ default: { allowed: false } }).defaultDecision).toBe('block');
  });

  it('rejects contradictory decisions', () => {
    const error = policyError({ rules: [{ match: 'a', decision: 'allow', allowed: false }] });
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.issues[0]!.path).toBe('shell.rules[0]');
  });

  it('rejects a match that is not plain words', () => {
    for (const match of ['git status; rm x', 'git $(x)', 'ls *', 'a | b', 'FOO=1 ls', 'ls > x', '"unterminated']) {
      const error = policyError({ rules: [{ match, decision: 'allow' }] });
      expect(error.issues[0]!.path, match).toBe('shell.rules[0].match');
    }
    expect(rulesOf({ rules: [{ match: "git 'commit' -m", decision: 'ask' }] }).rules[0]!.words).toEqual(['git', 'commit', '-m']);
  });

  it('rejects an unknown zone in paths_in', () => {
    const error = policyError({ rules: [{ match: 'pytest', decision: 'allow', paths_in: ['ws', 'nope'] }] });
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.issues[0]).toMatchObject({ path: 'shell.rules[0].paths_in[1]' });
    expect(error.message).toContain('unknown zone "nope"');
  });

  it('checks examples when the tool is built, naming the failing one', () => {
    expect(() => rulesOf({ rules: [{ match: 'git status', decision: 'allow', examples: { match: ['git status -s', 'ls && git status'], not_match: ['git statusx', 'git stash'] } }] })).not.toThrow();
    const error = policyError({ rules: [{ match: 'ls', decision: 'allow' }, { match: 'git status', decision: 'allow', examples: { match: ['git status', 'git st'], not_match: ['git status --short'] } }] });
    expect(error.code).toBe('POLICY_EXAMPLE_FAILED');
    expect(error.issues.map((issue) => issue.path)).toEqual(['shell.rules[1].examples.match[1]', 'shell.rules[1].examples.not_match[0]']);
    expect(error.message).toContain('shell.rules[1].examples.match[1]');
  });

  it('uses POLICY_INVALID when example failures come with other problems', () => {
    const error = policyError({ rules: [{ match: 'a && b', decision: 'allow' }, { match: 'b', decision: 'allow', examples: { match: ['c'] } }] });
    expect(error.code).toBe('POLICY_INVALID');
  });
});

describe('matchRule', () => {
  const [gitStatus, rm, pathRule, relative] = rulesOf({
    rules: [
      { match: 'git status', decision: 'allow' },
      { match: 'rm', decision: 'block' },
      { match: '/usr/local/bin/tool run', decision: 'allow' },
      { match: './scripts/test.sh', decision: 'allow' },
    ],
  }).rules;

  it('matches on whole words, as a prefix', () => {
    expect(matchRule(gitStatus!, first('git status'))).toBe('yes');
    expect(matchRule(gitStatus!, first('git status -s'))).toBe('yes');
    expect(matchRule(gitStatus!, first('git stash'))).toBe('no');
    expect(matchRule(gitStatus!, first('git'))).toBe('no');
    expect(matchRule(gitStatus!, first('gitx status'))).toBe('no');
  });

  it('lets an allow rule say yes only where it surely matches', () => {
    // Harmless global options are skipped; others (another repository, configuration) leave it unsure.
    expect(matchRule(gitStatus!, first('git --no-pager status'))).toBe('yes');
    expect(matchRule(gitStatus!, first('git -P status -s'))).toBe('yes');
    expect(matchRule(gitStatus!, first('git -C x status'))).toBe('maybe');
    expect(matchRule(gitStatus!, first('git -c x=y status'))).toBe('maybe');
    expect(matchRule(gitStatus!, first('git --git-dir=/x/.git status'))).toBe('maybe');
    expect(matchRule(gitStatus!, first('git --frobnicate status'))).toBe('maybe');
    // Not a built-in: it may be an alias (of status or anything else).
    expect(matchRule(gitStatus!, first('git statusx'))).toBe('maybe');
  });

  it('lets a block rule match wherever it may, and say yes where the command surely is it', () => {
    const [push] = rulesOf({ rules: [{ match: 'git push', decision: 'block' }] }).rules;
    expect(matchRule(push!, first('git -p push'))).toBe('yes');
    expect(matchRule(push!, first('git -C /elsewhere -c x=y push origin'))).toBe('yes');
    expect(matchRule(push!, first('git --unknown push'))).toBe('maybe');
    expect(matchRule(push!, first('git p'))).toBe('maybe');
    expect(matchRule(push!, first('git status'))).toBe('no');
    expect(matchRule(push!, first('git -c push status'))).toBe('no');
  });

  it('says maybe when a word is only known at run time', () => {
    expect(matchRule(gitStatus!, first('git $sub'))).toBe('maybe');
    expect(matchRule(gitStatus!, first('git st*'))).toBe('maybe');
    expect(matchRule(rm!, first('$cmd x'))).toBe('maybe');
    expect(matchRule(gitStatus!, analyzeCommand('xargs git').commands[1]!)).toBe('maybe');
  });

  it('normalises names: block rules catch any path to the program', () => {
    expect(matchRule(rm!, first('/bin/rm x'))).toBe('yes');
    expect(matchRule(rm!, first("'r'm"))).toBe('yes');
  });

  it('matches path rules on the path only', () => {
    expect(matchRule(pathRule!, first('/usr/local/bin/tool run x'))).toBe('yes');
    expect(matchRule(pathRule!, first('/tmp/tool run x'))).toBe('no');
    expect(matchRule(pathRule!, first('tool run x'))).toBe('no');
    expect(matchRule(relative!, first('./scripts/test.sh'))).toBe('yes');
    expect(matchRule(relative!, first('scripts/test.sh'))).toBe('yes');
    expect(matchRule(relative!, analyzeCommand('cd sub && ./scripts/test.sh').commands[1]!)).toBe('maybe');
  });
});

import { describe, expect, it } from 'vitest';
import { createCallEvaluator } from '../evaluate-call.ts';
import type { EvaluatedVerdict } from '../evaluate-call.ts';
import { PolicyError } from '../errors/policy-error.ts';
import type { PathForms } from './judge-argument-rules.ts';
import { parsePolicy } from './parse-policy.ts';

const FILE = '/home/me/toolgate.yaml';

function verdict(text: string, args: unknown, tool = 'write_file', pathForms?: PathForms): EvaluatedVerdict {
  const policy = parsePolicy({ text, source: FILE });
  const evaluated = createCallEvaluator({ policy, openWorld: true, pathForms }).evaluate({ tool, args, callId: 'c1' }, { sessionId: 's' }, undefined);
  if (evaluated instanceof Promise) throw new Error('no tool checks here: the verdict should be synchronous');
  return evaluated;
}

function policyError(text: string): PolicyError {
  try {
    parsePolicy({ text, source: FILE });
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('the policy should be rejected');
}

const README_RULE = 'tools:\n  write_file:\n    decision: ask\n    rules: [{ args: { path: "/home/me/notes/drafts/.*" }, decision: allow }]\n';
const INSIDE_RULE = 'tools:\n  write_file:\n    decision: ask\n    rules: [{ args: { path: { inside: "/home/me/notes/drafts" } }, decision: allow }]\n';

describe('a plain pattern on a path that is not normalised', () => {
  it('asks instead of allowing: drafts/../important.md is not covered by drafts/.*', () => {
    const escaped = verdict(README_RULE, { path: '/home/me/notes/drafts/../important.md' });
    expect(escaped.kind).toBe('ask');
    expect(escaped.rule).toBe('tools.write_file.rules[0]');
    expect(escaped.reason).toContain('is not a normalised path');
    if (escaped.kind === 'ask') expect(escaped.request.required).toBe(true);
    for (const value of ['/home/me/notes/drafts/./a.md', '/home/me/notes/drafts//a.md', '/home/me/notes/x/../drafts/a.md']) {
      expect(verdict(README_RULE, { path: value }).kind, value).toBe('ask');
    }
    expect(verdict(README_RULE, { path: '/home/me/notes/drafts/ok.md' }).kind).toBe('allow');
  });

  it('never lowers a block: the tool default or a later block rule still blocks', () => {
    const blockedDefault = 'tools:\n  write_file:\n    decision: block\n    rules: [{ args: { path: "/home/me/notes/drafts/.*" }, decision: allow }]\n';
    expect(verdict(blockedDefault, { path: '/home/me/notes/drafts/../important.md' }).kind).toBe('block');
    const laterBlock =
      'tools:\n  write_file:\n    decision: allow\n    rules:\n      - { args: { path: "/home/me/.*" }, decision: allow }\n      - { args: { path: "/etc/.*" }, decision: block }\n';
    expect(verdict(laterBlock, { path: '/home/me/../../etc/passwd' }).kind).toBe('block');
  });

  it('a block rule blocks on the value as written and normalised', () => {
    const text = 'tools:\n  write_file:\n    decision: allow\n    rules: [{ args: { path: "/etc/.*" }, decision: block }]\n';
    expect(verdict(text, { path: '/tmp/../etc/passwd' }).kind).toBe('block');
    expect(verdict(text, { path: '/etc/../tmp/x' }).kind).toBe('block');
    expect(verdict(text, { path: '/tmp/x' }).kind).toBe('allow');
  });

  it('leaves non-path values and URLs alone', () => {
    const text = 'tools:\n  fetch:\n    decision: ask\n    rules: [{ args: { url: "https://docs\\\\.example\\\\.com/.*", n: "[0-9]+" }, decision: allow }]\n';
    expect(verdict(text, { url: 'https://docs.example.com/a/b', n: 3 }, 'fetch').kind).toBe('allow');
    expect(verdict(text, { url: 'https://docs.example.com/a/../../b', n: 3 }, 'fetch').kind).toBe('ask');
  });
});

describe('{inside: DIR}', () => {
  it('normalises before comparing: inside allows, escapes and look-alikes fall to the tool decision', () => {
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/ok.md' }).kind).toBe('allow');
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/sub/../ok.md' }).kind).toBe('allow');
    const escaped = verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/../important.md' });
    expect(escaped.kind).toBe('ask');
    expect(escaped.rule).toBe('tools.write_file');
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts-old/a.md' }).kind).toBe('ask');
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/../../../../home/me/notes/drafts/a.md' }).kind).toBe('allow');
    expect(verdict(INSIDE_RULE, { path: ['/home/me/notes/drafts/a.md'] }).kind).toBe('ask');
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/a\u0000.md' }).kind).toBe('ask');
    expect(verdict(INSIDE_RULE, {}).kind).toBe('ask');
    const allowed = verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/ok.md' });
    expect(allowed.reason).toContain('path inside "/home/me/notes/drafts"');
  });

  it('a relative value never matches without relative_to (fail closed)', () => {
    expect(verdict(INSIDE_RULE, { path: 'drafts/ok.md' }).kind).toBe('ask');
    expect(verdict(INSIDE_RULE, { path: 'drafts/../important.md' }).kind).toBe('ask');
    // A block rule that cannot judge a relative value asks rather than letting it through.
    const block = 'tools:\n  write_file:\n    decision: allow\n    rules: [{ args: { path: { inside: "/etc" } }, decision: block }]\n';
    expect(verdict(block, { path: '/etc/../etc/passwd' }).kind).toBe('block');
    expect(verdict(block, { path: '../etc/passwd' }).kind).toBe('ask');
    expect(verdict(block, { path: '/tmp/x' }).kind).toBe('allow');
  });

  it('relative_to resolves relative values: an absolute directory, or policy for the policy file\'s directory', () => {
    const absolute = 'tools:\n  write_file:\n    decision: ask\n    rules: [{ args: { path: { inside: "drafts", relative_to: "/home/me/notes" } }, decision: allow }]\n';
    expect(verdict(absolute, { path: 'drafts/ok.md' }).kind).toBe('allow');
    expect(verdict(absolute, { path: '/home/me/notes/drafts/ok.md' }).kind).toBe('allow');
    expect(verdict(absolute, { path: 'drafts/../important.md' }).kind).toBe('ask');
    const policyDirectory = 'tools:\n  write_file:\n    decision: ask\n    rules: [{ args: { path: { inside: "notes/drafts", relative_to: policy } }, decision: allow }]\n';
    // The policy is /home/me/toolgate.yaml: its directory is /home/me.
    expect(verdict(policyDirectory, { path: 'notes/drafts/ok.md' }).kind).toBe('allow');
    expect(verdict(policyDirectory, { path: '/home/me/notes/drafts/ok.md' }).kind).toBe('allow');
    expect(verdict(policyDirectory, { path: 'notes/drafts/../../.ssh/authorized_keys' }).kind).toBe('ask');
  });

  it('rule examples are checked with the path form', () => {
    const text =
      'tools:\n  write_file:\n    rules:\n      - args: { path: { inside: "/home/me/notes/drafts" } }\n        decision: allow\n        examples: { match: [{ path: "/home/me/notes/drafts/a.md" }], not_match: [{ path: "/home/me/notes/drafts/../a.md" }] }\n';
    expect(() => parsePolicy({ text, source: FILE })).not.toThrow();
  });
});

describe('parsing errors of the path form name file and line', () => {
  it('a relative inside without relative_to', () => {
    const error = policyError('tools:\n  write_file:\n    rules:\n      - args:\n          path: { inside: "notes/drafts" }\n        decision: allow\n');
    const issue = error.issues.find((candidate) => candidate.path === 'tools.write_file.rules[0].args.path.inside');
    expect(issue, JSON.stringify(error.issues)).toBeDefined();
    expect(issue!.line).toBe(5);
    expect(issue!.expected).toContain('starting with "/"');
    expect(issue!.found).toBe('"notes/drafts"');
    expect(error.message).toContain(`${FILE}:5:`);
  });

  it('a bad relative_to, relative_to: policy without a file, an empty inside, unknown keys', () => {
    const badBase = policyError('tools:\n  write_file:\n    rules:\n      - args: { path: { inside: "/a", relative_to: "notes" } }\n        decision: allow\n');
    expect(badBase.issues.find((issue) => issue.path === 'tools.write_file.rules[0].args.path.relative_to')?.line).toBe(4);
    expect(() => parsePolicy({ text: 'tools:\n  w:\n    rules: [{ args: { path: { inside: "d", relative_to: policy } }, decision: allow }]\n' })).toThrow(/relative_to: policy needs a policy read from a file/);
    const empty = policyError('tools:\n  write_file:\n    rules:\n      - args: { path: { inside: "" } }\n        decision: allow\n');
    expect(empty.issues[0]!.line).toBe(4);
    const unknown = policyError('tools:\n  write_file:\n    rules:\n      - args: { path: { insde: "/a" } }\n        decision: allow\n');
    expect(unknown.issues[0]!.line).toBe(4);
  });
});

describe('{inside: DIR} with the forms a path takes where the tool runs', () => {
  // drafts/imp.md links to ../important.md; /home/me/notes/private is also reachable as /srv/private.
  const forms: PathForms = (absolute) => {
    if (absolute === '/home/me/notes/drafts/imp.md') return ['/home/me/notes/important.md'];
    if (absolute.startsWith('/srv/private')) return [absolute.replace('/srv/private', '/home/me/notes/private')];
    return [];
  };
  const BLOCKING = 'tools:\n  write_file:\n    decision: allow\n    rules: [{ args: { path: { inside: "/home/me/notes/private" } }, decision: block }]\n';

  it('an allow needs every form inside: a link out of drafts asks, naming where it leads', () => {
    const linked = verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/imp.md' }, 'write_file', forms);
    expect(linked.kind).toBe('ask');
    expect(linked.reason).toContain('leads to "/home/me/notes/important.md"');
    if (linked.kind === 'ask') expect(linked.request.required).toBe(true);
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/a.md' }, 'write_file', forms).kind).toBe('allow');
    // Without forms (a program that passes none) the path is compared as written.
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/imp.md' }).kind).toBe('allow');
  });

  it('a block needs any one form inside', () => {
    expect(verdict(BLOCKING, { path: '/srv/private/key' }, 'write_file', forms).kind).toBe('block');
    expect(verdict(BLOCKING, { path: '/srv/public/key' }, 'write_file', forms).kind).toBe('allow');
  });

  it("DIR's own forms count as DIR: a path reached through a linked DIR is inside it", () => {
    const linkedDirectory: PathForms = (absolute) => (absolute.startsWith('/home/me/notes/drafts') ? [absolute.replace('/home/me/notes/drafts', '/data/drafts')] : []);
    expect(verdict(INSIDE_RULE, { path: '/home/me/notes/drafts/a.md' }, 'write_file', linkedDirectory).kind).toBe('allow');
    // The directory's real path names the same place.
    expect(verdict(INSIDE_RULE, { path: '/data/drafts/a.md' }, 'write_file', linkedDirectory).kind).toBe('allow');
    expect(verdict(INSIDE_RULE, { path: '/data/other/a.md' }, 'write_file', linkedDirectory).kind).toBe('ask');
  });
});

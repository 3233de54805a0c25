import { describe, expect, it } from 'vitest';
import { PolicyError } from '../core/errors/policy-error.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { judgeAccess } from './mcp-access-policy.ts';
import { readUpstreamServers } from './upstream-server-config.ts';

const server = (entry: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  readUpstreamServers({ policy: normalizePolicy({ ...extra, mcp: { servers: { docs: { command: 'docs-server', ...entry } } } }), directory: '/p', env: {} })[0]!;

describe('resources and prompts rules', () => {
  it("follow the server's default when absent: ask without one, block when the policy blocks unknown tools", () => {
    expect(judgeAccess(server({}).resources, 'file:///a')).toEqual({ decision: 'ask', rule: 'mcp.servers.docs (no default: ask)' });
    expect(judgeAccess(server({ default: 'allow' }).prompts, 'p')).toEqual({ decision: 'allow', rule: 'mcp.servers.docs.default' });
    expect(judgeAccess(server({}, { unknown_tools: { decision: 'block' } }).resources, 'file:///a').decision).toBe('block');
    expect(server({ default: 'block' }).resources.blocksAll).toBe(true);
  });

  it('let every matching rule speak, the most restrictive winning; the default only when none matches', () => {
    const resources = server({
      resources: {
        default: 'block',
        rules: [
          { uri: 'file:///docs/.*', decision: 'allow' },
          { uri: 'file:///docs/private/.*', decision: 'ask' },
        ],
      },
    }).resources;
    expect(judgeAccess(resources, 'file:///docs/readme.md')).toEqual({ decision: 'allow', rule: 'mcp.servers.docs.resources.rules[0]' });
    expect(judgeAccess(resources, 'file:///docs/private/keys')).toEqual({ decision: 'ask', rule: 'mcp.servers.docs.resources.rules[1]' });
    expect(judgeAccess(resources, 'file:///etc/passwd')).toEqual({ decision: 'block', rule: 'mcp.servers.docs.resources.default' });
    expect(resources.blocksAll).toBe(false);
    expect(judgeAccess(server({ prompts: 'allow' }).prompts, 'anything').rule).toBe('mcp.servers.docs.prompts');
  });

  it('name every broken rule: a missing pattern, a key of the other kind, a pattern that does not compile', () => {
    const problems = (entry: Record<string, unknown>): string => {
      try {
        server(entry);
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyError);
        return (error as PolicyError).message;
      }
      throw new Error('expected a PolicyError');
    };
    const shape = problems({ resources: { rules: [{ decision: 'allow' }] }, prompts: { rules: [{ uri: 'x', decision: 'allow' }] } });
    expect(shape).toContain('mcp.servers.docs.resources.rules[0].uri: missing required key');
    expect(shape).toContain('mcp.servers.docs.prompts.rules[0].uri: unknown key "uri" (expected one of name, decision');
    expect(problems({ resources: { rules: [{ uri: '(', decision: 'allow' }] } })).toContain('mcp.servers.docs.resources.rules[0].uri');
  });

  it('never lets an allow rule cover a URI that may lead elsewhere than it reads; block rules see where it leads', () => {
    const resources = server({
      resources: { default: 'block', rules: [{ uri: 'demo://resource/static/.*', decision: 'allow' }, { uri: 'demo://resource/secret/.*', decision: 'block' }] },
    }).resources;
    for (const sneaky of ['demo://resource/static/../../dynamic/text/7', 'demo://resource/static/./x', 'demo://resource/static//x', 'demo://resource/static/%2e%2e/%2e%2e/dynamic/1']) {
      expect(judgeAccess(resources, sneaky).decision, sneaky).toBe('ask');
    }
    expect(judgeAccess(resources, 'demo://resource/static/../secret/key')).toEqual({ decision: 'block', rule: 'mcp.servers.docs.resources.rules[1]' });
    expect(judgeAccess(resources, 'demo://resource/static/doc.md').decision).toBe('allow');
    const open = server({ resources: { default: 'allow', rules: [{ uri: 'file:///private/.*', decision: 'block' }] } }).resources;
    expect(judgeAccess(open, 'file:///public/../private/keys').decision).toBe('block');
    expect(judgeAccess(open, 'file:///public/./readme').decision).toBe('ask');
    expect(judgeAccess(open, 'file:///public/readme').decision).toBe('allow');
  });
});

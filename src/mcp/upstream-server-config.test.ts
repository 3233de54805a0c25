import { describe, expect, it } from 'vitest';
import { PolicyError } from '../core/errors/policy-error.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { readUpstreamServers } from './upstream-server-config.ts';

const read = (servers: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  readUpstreamServers({ policy: normalizePolicy({ ...extra, mcp: { servers } }), directory: '/policies' });

describe('readUpstreamServers', () => {
  it('resolves cwd and relative command paths against the policy directory; bare commands stay on PATH', () => {
    const [local, bare] = read({ local: { command: './bin/server', cwd: 'work' }, bare: { command: 'npx', args: ['-y', 'pkg'] } });
    expect(local!.transport).toMatchObject({ kind: 'stdio', command: '/policies/bin/server', cwd: '/policies/work' });
    expect(bare!.transport).toMatchObject({ kind: 'stdio', command: 'npx', args: ['-y', 'pkg'], cwd: '/policies' });
  });

  it('reads url servers with headers, and merges redact keys', () => {
    const [remote] = read({ remote: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' }, redact: { keys: ['Body'] } } }, { redact: { keys: ['password'] } });
    expect(remote!.transport).toMatchObject({ kind: 'http', headers: { Authorization: 'Bearer x' } });
    expect([...remote!.redactKeys].sort()).toEqual(['body', 'password']);
  });

  it('binds the identity to the name and how the server is started', () => {
    const [a] = read({ s: { command: 'server', args: ['one'] } });
    const [b] = read({ s: { command: 'server', args: ['two'] } });
    const [c] = read({ t: { command: 'server', args: ['one'] } });
    expect(new Set([a!.identity, b!.identity, c!.identity]).size).toBe(3);
  });

  it('lists every problem: no transport, two transports, a bad url, bad patterns, a bad namespace', () => {
    try {
      read({
        none: {},
        both: { command: 'x', url: 'http://a' },
        ftp: { url: 'ftp://a' },
        bad: { command: 'x', filter: { deny: ['('] }, tools: { t: { decision: 'ask', rules: [{ args: { p: '[' }, decision: 'allow' }] } } },
        'we ird': { command: 'x' },
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyError);
      const message = (error as PolicyError).message;
      expect(message).toContain('mcp.servers.none: the server has neither `command` nor `url`');
      expect(message).toContain('mcp.servers.both: the server has both `command` and `url`');
      expect(message).toContain('only Streamable HTTP servers are supported');
      expect(message).toContain('mcp.servers.bad.filter.deny[0]');
      expect(message).toContain('mcp.servers.bad.tools.t.rules[0].args.p');
      expect(message).toContain('cannot prefix tool names');
    }
  });
});

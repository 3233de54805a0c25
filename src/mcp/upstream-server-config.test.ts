import { describe, expect, it } from 'vitest';
import { PolicyError } from '../core/errors/policy-error.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { readUpstreamServers } from './upstream-server-config.ts';

const read = (servers: Record<string, unknown>, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  readUpstreamServers({ policy: normalizePolicy({ ...extra, mcp: { servers } }), directory: '/policies', env });

const problems = (servers: Record<string, unknown>, env: Record<string, string> = {}): string => {
  try {
    read(servers, {}, env);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as PolicyError).message;
  }
  throw new Error('expected a PolicyError');
};

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

  it('fills ${VAR} in args, env and headers from its own environment, passes env_from as is, and keeps $${ literal', () => {
    const env = { GITHUB_TOKEN: 'ghp_secret', API_HOST: 'api.example', HOME_DIR: '/home/me', LANG: 'C.UTF-8' };
    const [local, remote] = read(
      {
        local: { command: 'server', args: ['--root', '${HOME_DIR}/notes', 'cost: $${5}'], env: { TOKEN: '${GITHUB_TOKEN}', LANG: 'de_DE' }, env_from: ['LANG', 'API_HOST'] },
        remote: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}', 'X-Host': '${API_HOST}' } },
      },
      {},
      env,
    );
    expect(local!.transport).toMatchObject({ kind: 'stdio', args: ['--root', '/home/me/notes', 'cost: ${5}'], env: { TOKEN: 'ghp_secret', LANG: 'de_DE', API_HOST: 'api.example' } });
    expect(remote!.transport).toMatchObject({ kind: 'http', headers: { Authorization: 'Bearer ghp_secret', 'X-Host': 'api.example' } });
  });

  it('binds the identity to what the variables hold (a rotated token is another server), without keeping the value in it', () => {
    const servers = { gh: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } }, local: { command: 'server', env_from: ['TOKEN'] } };
    const [before, localBefore] = read(servers, {}, { TOKEN: 'old' });
    const [after, localAfter] = read(servers, {}, { TOKEN: 'new' });
    const [same] = read(servers, {}, { TOKEN: 'old' });
    expect(after!.identity).not.toBe(before!.identity);
    expect(localAfter!.identity).not.toBe(localBefore!.identity);
    expect(same!.identity).toBe(before!.identity);
    expect(before!.identity).toMatch(/^[0-9a-f]{16}$/);
  });

  it('names the key and the variable when one is not set, malformed, or not closed; env_from only with command', () => {
    const message = problems(
      {
        a: { command: 'x', env: { TOKEN: '${MISSING_TOKEN}' }, args: ['${1BAD}', '${OPEN'], env_from: ['NOT_SET', 'bad name'] },
        b: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${ALSO_MISSING}' }, env_from: ['HOME'] },
      },
      { HOME: '/root' },
    );
    expect(message).toContain('mcp.servers.a.env.TOKEN: ${MISSING_TOKEN} is not set in the environment toolgate runs in');
    expect(message).toContain('set MISSING_TOKEN before starting toolgate');
    expect(message).toContain('mcp.servers.a.args[0]: ${1BAD} does not name a variable');
    expect(message).toContain('mcp.servers.a.args[1]: "${OPEN" is not closed');
    expect(message).toContain('mcp.servers.a.env_from[0]: NOT_SET is not set in the environment toolgate runs in');
    expect(message).toContain('mcp.servers.a.env_from[1]: "bad name" is not a variable name');
    expect(message).toContain('mcp.servers.b.headers.Authorization: ${ALSO_MISSING} is not set');
    expect(message).toContain('mcp.servers.b.env_from: `env_from` applies only to servers started with `command`');
  });
});

/** A path swapped between the check and the run cannot slip past an ask (security review). */
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { createFsTools } from './create-fs-tools.ts';
import { zonesFromPolicy } from './zones.ts';

function project() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-exec-auth-'));
  mkdirSync(path.join(root, 'ws', 'd'), { recursive: true });
  mkdirSync(path.join(root, 'ws', 'secure'), { recursive: true });
  const policy = normalizePolicy({
    fs: {
      zones: [
        { name: 'ws', root: './ws', mode: 'rw', approval: { read: 'allow', write: 'allow', delete: 'ask' } },
        { name: 'secure', root: './ws/secure', mode: 'rw', approval: { read: 'allow', write: 'ask', delete: 'ask' } },
      ],
    },
  });
  const tools = createFsTools({ zones: zonesFromPolicy({ policy, policyDirectory: root }), cwd: root });
  return { root, policy, tools, write: tools.find((tool) => tool.name === 'write_file')! };
}

describe('fs execution re-checks how the gate let the call through', () => {
  it('a write allowed by its zone is refused when the path now leads into a zone that asks', async () => {
    const { root, policy, tools, write } = project();
    const gate = createGate({ policy, tools });
    const args = { path: 'ws/d/x.txt', content: 'x' };
    const result = await gate.authorize({ tool: 'write_file', args, callId: 'c' }, { sessionId: 's' });
    expect(result.decision).toBe('allow');
    // The swap: ws/d becomes a symlink into the zone that asks.
    renameSync(path.join(root, 'ws', 'd'), path.join(root, 'ws', 'd-old'));
    symlinkSync(path.join(root, 'ws', 'secure'), path.join(root, 'ws', 'd'));
    await expect(write.execute(result.args, { authorization: { decision: 'allow' } })).rejects.toThrow(/needs approval; nothing was done/);
    expect(existsSync(path.join(root, 'ws', 'secure', 'x.txt'))).toBe(false);
  });

  it('an approved write is refused when the path now resolves somewhere other than what was approved', async () => {
    const { root, write } = project();
    writeFileSync(path.join(root, 'ws', 'secure', 'a.txt'), 'a');
    await expect(
      write.execute({ path: 'ws/secure/a.txt', content: 'b' }, { authorization: { decision: 'approved', payload: { zone: 'secure', path: 'other.txt' } } }),
    ).rejects.toThrow(/is not what was approved/);
    await expect(write.execute({ path: 'ws/secure/a.txt', content: 'b' }, { authorization: { decision: 'approved', payload: { zone: 'secure', path: 'a.txt' } } })).resolves.toBeDefined();
  });
});

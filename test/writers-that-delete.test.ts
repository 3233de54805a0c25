/**
 * Writers that also delete what they name are judged as deleting it: in a
 * zone that allows writes but blocks deletes, `shred -u` is blocked like
 * `rm`, and so are `gzip FILE` (which removes FILE once FILE.gz is
 * written) and `zstd --rm FILE`, while `shred` alone, `gzip -k` and `zstd`
 * (which keeps its files) stay allowed. Judged by the shell tool, and
 * executed through the gate in auto_deny mode without a sandbox (with the
 * sandbox on, such a zone is read-only to every command nobody approved, so
 * the policy layer is the only thing between these commands and the files),
 * checking the files afterwards.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../src/runtime/create-runtime-gate.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';

const RULES = ['rm', 'shred', 'gzip', 'gunzip', 'bzip2', 'xz', 'zstd', 'lz4', 'ls'];
const VICTIMS = ['important1', 'important2', 'important3'];

let root: string;
let ws: string;

function policyText(): string {
  return [
    'mode: auto_deny',
    'fs:',
    '  zones:',
    '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: allow, delete: block } }',
    'shell:',
    '  default: ask',
    '  network: false',
    '  rules:',
    ...RULES.map((match) => `    - { match: ${match}, decision: allow }`),
    'sandbox: { os: off }',
    '',
  ].join('\n');
}

function layOut(): void {
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(ws);
  for (const name of VICTIMS) writeFileSync(path.join(ws, name), `${name}\n`);
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-writers-delete-')));
  ws = path.join(root, 'ws');
  writeFileSync(path.join(root, 'toolgate.yaml'), policyText());
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => layOut());

async function toolsFor() {
  const loaded = await loadPolicyFile(path.join(root, 'toolgate.yaml'));
  const { tools } = await createBuiltinTools({ loaded, cwd: root });
  const gate = createRuntimeGate({ loaded, tools, mode: 'auto_deny' });
  return { gate, tools: new Map((tools as BuiltinTool[]).map((tool) => [tool.name, tool])) };
}

let calls = 0;
/** The whole path of a model's call: the gate, then the tool only when the gate lets it run. */
async function attempt(command: string): Promise<{ decision: string; ran: boolean }> {
  const { gate, tools } = await toolsFor();
  const args = { command, cwd: 'ws' };
  try {
    const authorization = await gate.authorize({ tool: 'shell', args, callId: `c${++calls}` }, { sessionId: 'writers-delete' });
    if (authorization.decision !== 'allow' && authorization.decision !== 'approved') return { decision: authorization.decision, ran: false };
    await tools.get('shell')!.execute(authorization.args ?? args, { authorization: { decision: 'allow' } } as never);
    return { decision: authorization.decision, ran: true };
  } finally {
    await gate.close?.();
  }
}

async function decide(command: string): Promise<{ decision: string; reasons: string }> {
  const { tools } = await toolsFor();
  const shell = tools.get('shell') as unknown as { decide(args: { command: string; cwd: string }): Promise<{ decision: string; reasons: string[] }> };
  const verdict = await shell.decide({ command, cwd: 'ws' });
  return { decision: verdict.decision, reasons: verdict.reasons.join('\n') };
}

describe('in a zone that allows writes but blocks deletes', () => {
  it.each(['rm important1', 'shred -u important1', 'shred --remove important1', 'shred --remove=wipe important1', 'shred --rem important1', 'shred -vzu important1', 'shred -n 1 -u important1'])(
    '%s blocks: it deletes the file',
    async (command) => {
      const verdict = await decide(command);
      expect(verdict.decision, verdict.reasons).toBe('block');
      expect(verdict.reasons).toMatch(/deletes ws:important1; zone ws blocks deletes/);
    },
  );

  it.each(['gzip important1', 'gzip -9 important1', 'gzip -r .', 'gunzip important1.gz', 'bzip2 important1', 'bzip2 -d important1.bz2', 'xz important1', 'xz -d -T0 important1.xz', 'zstd --rm important1', 'lz4 -c --rm important1'])(
    '%s blocks: it removes the file it (de)compresses',
    async (command) => {
      const verdict = await decide(command);
      expect(verdict.decision, verdict.reasons).toBe('block');
      expect(verdict.reasons).toMatch(/blocks deletes/);
    },
  );

  it.each(['shred important1', 'shred -n 1 -z important1', 'ls -la', 'gzip -k important1', 'gzip --keep important1', 'gzip -c important1', 'gzip -t important1', 'bzip2 -k important1', 'xz -k important1', 'xz -l important1', 'zstd important1', 'zstd -d important1.zst', 'lz4 -c important1'])('%s is allowed: it only writes (or reads)', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('allow');
  });
});

describe('executed through the gate (auto_deny) without a sandbox', () => {
  it('the deleting forms do not run, and every file is still there', async () => {
    for (const command of ['shred -u important1', 'shred --remove important2', 'gzip important2', 'xz important3', 'bzip2 important1', 'zstd -q --rm important2']) expect((await attempt(command)).ran, command).toBe(false);
    expect(readdirSync(ws).sort()).toEqual([...VICTIMS].sort());
  });

  it('the controls run', async () => {
    expect(await attempt('shred -n 1 important1 && gzip -k important2 && zstd -q important3')).toMatchObject({ ran: true });
    expect(readdirSync(ws).sort()).toEqual([...VICTIMS, 'important2.gz', 'important3.zst'].sort());
  });
});

/**
 * Writers that also delete what they name are judged as deleting it: in a
 * zone that allows writes but blocks deletes, `shred -u` is blocked like
 * `rm`, and so are `gzip FILE` (which removes FILE once FILE.gz is
 * written) and `zstd --rm FILE`, while `shred` alone, `gzip -k` and `zstd`
 * (which keeps its files) stay allowed. `patch -E` deletes what it
 * empties; without -E a patch still deletes what it says is gone, which
 * only the patch knows, so it asks. `ln -sf`, `cp --remove-destination`,
 * `cp -f`, `install` and `mv` remove a file already at the destination,
 * so they delete it; onto a name that is free they only write. Judged by the shell tool, and
 * executed through the gate in auto_deny mode without a sandbox (with the
 * sandbox on, such a zone is read-only to every command nobody approved, so
 * the policy layer is the only thing between these commands and the files),
 * checking the files afterwards.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../src/runtime/create-runtime-gate.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';

const RULES = ['rm', 'shred', 'gzip', 'gunzip', 'bzip2', 'xz', 'zstd', 'lz4', 'patch', 'ln', 'cp', 'mv', 'install', 'ls'];
const VICTIMS = ['important1', 'important2', 'important3'];

let root: string;
let ws: string;

function policyText(): string {
  return [
    'mode: auto_deny',
    'fs:',
    '  zones:',
    '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: allow, delete: block } }',
    '    - { name: patches, root: ./patches, mode: ro, approval: { read: allow, write: block, delete: block } }',
    '    - { name: free, root: ./free, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
    'shell:',
    '  default: ask',
    '  network: false',
    '  rules:',
    ...RULES.map((match) => `    - { match: ${match}, decision: allow }`),
    'sandbox: { os: off }',
    '',
  ].join('\n');
}

/** Empties important1. */
const EMPTYING_DIFF = '--- important1\n+++ important1\n@@ -1 +0,0 @@\n-important1\n';
/** A git diff that deletes important2. */
const DELETING_DIFF = 'diff --git a/important2 b/important2\ndeleted file mode 100644\n--- a/important2\n+++ /dev/null\n@@ -1 +0,0 @@\n-important2\n';

function layOut(): void {
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(ws);
  for (const name of VICTIMS) writeFileSync(path.join(ws, name), `${name}\n`);
  rmSync(path.join(root, 'free'), { recursive: true, force: true });
  mkdirSync(path.join(root, 'free'));
  writeFileSync(path.join(root, 'free', 'new.txt'), 'new\n');
  writeFileSync(path.join(root, 'free', 'important1'), 'free/important1\n');
  mkdirSync(path.join(ws, 'dir'));
  writeFileSync(path.join(ws, 'dir', 'important1'), 'dir/important1\n');
  mkdirSync(path.join(root, 'patches'), { recursive: true });
  writeFileSync(path.join(root, 'patches', 'empty.diff'), EMPTYING_DIFF);
  writeFileSync(path.join(root, 'patches', 'delete.diff'), DELETING_DIFF);
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

  it.each(['patch -E important1 ../patches/empty.diff', 'patch --remove-empty-files important1 ../patches/empty.diff', 'patch -E -p0 -i ../patches/empty.diff'])('%s blocks: it deletes what it empties', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('block');
    expect(verdict.reasons).toMatch(/patch deletes .*zone ws blocks deletes/);
  });

  it.each(['patch -p1 -i ../patches/delete.diff', 'patch important1 ../patches/empty.diff', 'patch -p1 < ../patches/delete.diff'])('%s asks: only the patch says whether it deletes files', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('ask');
    expect(verdict.reasons).toMatch(/patch may write or delete .*blocks deletes: the patch decides which files it removes/);
  });

  it.each(['ln -sf /dev/null important1', 'ln -f important2 important1', 'ln --force -s x important1', 'ln -sf ../important1 dir', 'ln -sfT x dir/important1', 'cp -f important2 important1', 'cp --remove-destination important2 important1', 'cp -f important1 dir', 'cp -f -t dir important1', 'install -m 644 important2 important1', 'mv ../free/new.txt important1', 'mv -f ../free/important1 dir/'])(
    '%s blocks: it removes the file already there',
    async (command) => {
      const verdict = await decide(command);
      expect(verdict.decision, verdict.reasons).toBe('block');
      expect(verdict.reasons).toMatch(/deletes ws:(dir\/)?important1; zone ws blocks deletes/);
    },
  );

  it.each(['ln -sf important1 new-link', 'ln -sf ../important1 dir/new-link', 'ln -sf ../important2 dir', 'ln -s important1 new-link', 'cp important2 important1', 'cp -f important1 copy', 'cp --remove-destination important1 dir/copy', 'install -m 644 important1 new', 'cp -r dir dir2', 'mv ../free/new.txt fresh', 'mv -n ../free/new.txt important1'])('%s is allowed: nothing is there to replace (or it is written into)', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('allow');
  });

  it.each(['patch -o out.txt important1 ../patches/empty.diff', 'patch --dry-run important1 ../patches/empty.diff', 'shred important1', 'shred -n 1 -z important1', 'ls -la', 'gzip -k important1', 'gzip --keep important1', 'gzip -c important1', 'gzip -t important1', 'bzip2 -k important1', 'xz -k important1', 'xz -l important1', 'zstd important1', 'zstd -d important1.zst', 'lz4 -c important1'])('%s is allowed: it only writes (or reads)', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('allow');
  });
});

describe('executed through the gate (auto_deny) without a sandbox', () => {
  it('the deleting forms do not run, and every file is still there', async () => {
    for (const command of ['shred -u important1', 'shred --remove important2', 'gzip important2', 'xz important3', 'bzip2 important1', 'zstd -q --rm important2', 'patch -E important1 ../patches/empty.diff', 'patch -p1 -i ../patches/delete.diff', 'ln -sf /dev/null important1', 'cp --remove-destination important2 important3', 'install important1 important2', 'mv ../free/new.txt important3']) expect((await attempt(command)).ran, command).toBe(false);
    expect(readdirSync(ws).sort()).toEqual([...VICTIMS, 'dir'].sort());
    for (const name of VICTIMS) expect(readFileSync(path.join(ws, name), 'utf8')).toBe(`${name}\n`);
  });

  it('the controls run', async () => {
    expect(await attempt('patch -o out.txt important1 ../patches/empty.diff')).toMatchObject({ ran: true });
    expect(await attempt('shred -n 1 important1 && gzip -k important2 && zstd -q important3')).toMatchObject({ ran: true });
    expect(await attempt('ln -sf important2 link')).toMatchObject({ ran: true });
    expect(readdirSync(ws).sort()).toEqual([...VICTIMS, 'dir', 'important2.gz', 'important3.zst', 'link', 'out.txt'].sort());
  });
});

/**
 * The filesystem tools doing their job inside the zones, through the real
 * gate: results, presentations, decisions, and "what you approved is what runs".
 */
import { asSchema } from 'ai';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { createFsTools } from './create-fs-tools.ts';
import { FsChangedSinceApprovalError } from './errors/fs-changed-since-approval-error.ts';
import { CONTEXT, createFsFixture, type FsFixture } from '../../../test/fs-fixture.ts';
import { zonesFromPolicy } from './zones.ts';

let fixture: FsFixture;

beforeEach(() => {
  fixture = createFsFixture();
});

afterEach(() => fixture.cleanup());

function evaluate(tool: string, args: unknown) {
  return fixture.gate.evaluate({ tool, args, callId: 'c' }, CONTEXT);
}

describe('reading and listing', () => {
  it('reads a file without asking (read defaults to allow)', async () => {
    const outcome = await fixture.run('read_file', { path: 'ws/notes.txt' });
    expect(outcome.authorization.decision).toBe('allow');
    expect(outcome.result).toEqual({ path: 'ws/notes.txt', zone: 'workspace', content: 'line one\nline two\nline three\n', bytes: 29, truncated: false });
  });

  it('reads through a symlink that stays inside the zone, and an absolute path inside it', async () => {
    symlinkSync('notes.txt', path.join(fixture.project, 'ws/alias.txt'));
    expect((await fixture.run('read_file', { path: 'ws/alias.txt' })).result).toMatchObject({ path: 'ws/notes.txt', content: 'line one\nline two\nline three\n' });
    expect((await fixture.run('read_file', { path: path.join(fixture.project, 'ws/sub/deep.txt') })).result).toMatchObject({ path: 'ws/sub/deep.txt', content: 'deep\n' });
    expect((await fixture.run('read_file', { path: 'ws/sub/../notes.txt' })).result).toMatchObject({ path: 'ws/notes.txt' });
  });

  it('reads from a read-only zone and a suffix zone', async () => {
    expect((await fixture.run('read_file', { path: 'docs/readme.md' })).result).toMatchObject({ zone: 'docs', content: '# Docs\n' });
    expect((await fixture.run('read_file', { path: 'notes/todo.txt' })).result).toMatchObject({ zone: 'notes', content: 'todo\n' });
  });

  it('cuts long files at maxReadBytes without splitting a character', async () => {
    const small = createFsFixture({ maxReadBytes: 10 });
    try {
      small.write('ws/long.txt', 'aaaaaaaaé and more');
      const outcome = await small.run('read_file', { path: 'ws/long.txt' });
      expect(outcome.result).toMatchObject({ content: 'aaaaaaaa', truncated: true, bytes: 19 });
    } finally {
      small.cleanup();
    }
  });

  it('refuses binary files, directories and missing files with a useful message', async () => {
    fixture.write('ws/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect((await fixture.run('read_file', { path: 'ws/image.png' })).error?.message).toMatch(/binary file \(6 bytes\)/);
    // Refused when checked: nothing is opened.
    expect((await fixture.run('read_file', { path: 'ws/sub' })).authorization).toMatchObject({ decision: 'block', reason: expect.stringMatching(/is a directory.*list_dir/) });
    expect((await fixture.run('read_file', { path: 'ws/missing.txt' })).error?.message).toMatch(/does not exist/);
  });

  it('does not hang on a FIFO', async () => {
    const { execFileSync } = await import('node:child_process');
    try {
      execFileSync('mkfifo', [path.join(fixture.project, 'ws/pipe')]);
    } catch {
      return; // no mkfifo on this machine
    }
    const outcome = await fixture.run('read_file', { path: 'ws/pipe' });
    expect(outcome.authorization).toMatchObject({ decision: 'block', reason: expect.stringMatching(/FIFO.*regular files only/) });
  });

  it('lists a directory, sorted, with types and sizes, without following symlinks', async () => {
    symlinkSync(fixture.outside, path.join(fixture.project, 'ws/out'));
    const outcome = await fixture.run('list_dir', { path: 'ws' });
    expect(outcome.result).toEqual({
      path: 'ws',
      zone: 'workspace',
      truncated: false,
      entries: [
        { name: 'notes.txt', type: 'file', size: 29 },
        { name: 'out', type: 'symlink' },
        { name: 'sub', type: 'directory' },
        { name: 'vendor', type: 'directory' },
      ],
    });
    expect((await fixture.run('list_dir', { path: 'notes' })).result).toMatchObject({ zone: 'notes', entries: [{ name: 'script.sh' }, { name: 'todo.txt' }] });
    expect((await fixture.run('list_dir', { path: 'ws/notes.txt' })).error?.message).toMatch(/is a file.*read_file/);
  });
});

describe('writing, editing, moving and deleting', () => {
  it('creates a new file (and its parents) after approval, and returns what it did', async () => {
    const outcome = await fixture.run('write_file', { path: 'ws/new/dir/hello.ts', content: 'export const x = 1;\n' });
    expect(outcome.authorization.decision).toBe('approved');
    expect(outcome.result).toEqual({ path: 'ws/new/dir/hello.ts', zone: 'workspace', bytes: 20, created: true });
    expect(fixture.read('ws/new/dir/hello.ts')).toBe('export const x = 1;\n');
  });

  it('replaces an existing file atomically, keeping its permissions', async () => {
    chmodSync(path.join(fixture.project, 'ws/notes.txt'), 0o640);
    const outcome = await fixture.run('write_file', { path: 'ws/notes.txt', content: 'replaced\n' });
    expect(outcome.result).toMatchObject({ created: false, bytes: 9 });
    expect(fixture.read('ws/notes.txt')).toBe('replaced\n');
    expect(statSync(path.join(fixture.project, 'ws/notes.txt')).mode & 0o777).toBe(0o640);
    expect(readdirNames('ws').some((name) => name.includes('.toolgate-'))).toBe(false);
  });

  it('edits one exact occurrence, keeping "$&" literal', async () => {
    const outcome = await fixture.run('edit_file', { path: 'ws/notes.txt', old_string: 'line two', new_string: 'line $& 2' });
    expect(outcome.result).toMatchObject({ path: 'ws/notes.txt', zone: 'workspace' });
    expect(fixture.read('ws/notes.txt')).toBe('line one\nline $& 2\nline three\n');
  });

  it('refuses an edit whose text is not found, or found more than once, before asking anyone', async () => {
    const missing = await fixture.run('edit_file', { path: 'ws/notes.txt', old_string: 'line four', new_string: 'x' });
    expect(missing.authorization.decision).toBe('denied');
    expect(missing.authorization.reason).toMatch(/old_string was not found in ws\/notes\.txt; read the file/);
    const twice = await fixture.run('edit_file', { path: 'ws/notes.txt', old_string: 'line', new_string: 'x' });
    expect(twice.authorization.reason).toMatch(/old_string occurs 3 times in ws\/notes\.txt; include more surrounding lines/);
    expect(fixture.asked).toHaveLength(0);
    // Executed directly (a pre-approved zone), the same errors are thrown with a stable code.
    await expect(fixture.tool('edit_file').execute({ path: 'ws/notes.txt', old_string: 'line', new_string: 'x' })).rejects.toMatchObject({ code: 'FS_EDIT_NOT_APPLICABLE', matches: 3 });
    await expect(fixture.tool('edit_file').execute({ path: 'ws/notes.txt', old_string: 'nope', new_string: 'x' })).rejects.toMatchObject({ code: 'FS_EDIT_NOT_APPLICABLE', matches: 0 });
    const overlapping = fixture.write('ws/aaa.txt', 'aaa');
    await expect(fixture.tool('edit_file').execute({ path: 'ws/aaa.txt', old_string: 'aa', new_string: 'b' })).rejects.toMatchObject({ matches: 2 });
    expect(readFileSync(overlapping, 'utf8')).toBe('aaa');
    expect(fixture.read('ws/notes.txt')).toBe('line one\nline two\nline three\n');
  });

  it('blocks an edit of a file that does not exist, pointing to write_file', async () => {
    const verdict = await evaluate('edit_file', { path: 'ws/none.txt', old_string: 'a', new_string: 'b' });
    expect(verdict).toMatchObject({ kind: 'block', reason: 'ws/none.txt does not exist; use write_file to create it' });
  });

  it('moves a file within a zone and between zones, never replacing the destination', async () => {
    const within = await fixture.run('move_file', { source: 'ws/notes.txt', destination: 'ws/sub/moved.txt' });
    expect(within.result).toEqual({ source: 'ws/notes.txt', destination: 'ws/sub/moved.txt', sourceZone: 'workspace', destinationZone: 'workspace' });
    expect(existsSync(path.join(fixture.project, 'ws/notes.txt'))).toBe(false);
    expect(fixture.read('ws/sub/moved.txt')).toBe('line one\nline two\nline three\n');
    const across = await fixture.run('move_file', { source: 'ws/sub/moved.txt', destination: 'notes/moved.txt' });
    expect(across.result).toMatchObject({ sourceZone: 'workspace', destinationZone: 'notes' });
    expect(fixture.read('notes/moved.txt')).toBe('line one\nline two\nline three\n');
    fixture.write('ws/a.txt', 'a');
    fixture.write('ws/b.txt', 'b');
    // Allowed by the check (b.txt did not exist), then b.txt appears: the move refuses instead of replacing it.
    fixture.answer = () => {
      writeFileSync(path.join(fixture.project, 'ws/c.txt'), 'appeared');
      return { approved: true, scope: 'once' };
    };
    const raced = await fixture.run('move_file', { source: 'ws/a.txt', destination: 'ws/c.txt' });
    expect(raced.error?.message).toMatch(/ws\/c\.txt already exists; move_file never replaces a file/);
    expect(fixture.read('ws/c.txt')).toBe('appeared');
    expect(fixture.read('ws/a.txt')).toBe('a');
  });

  it('deletes a file, and refuses a directory', async () => {
    const outcome = await fixture.run('delete_file', { path: 'ws/sub/deep.txt' });
    expect(outcome.result).toEqual({ path: 'ws/sub/deep.txt', zone: 'workspace', deleted: true });
    expect(existsSync(path.join(fixture.project, 'ws/sub/deep.txt'))).toBe(false);
    const directory = await fixture.run('delete_file', { path: 'ws/sub' });
    expect(directory.authorization.decision).toBe('denied');
    expect(directory.authorization.reason).toMatch(/ws\/sub is a directory/);
    await expect(fixture.tool('delete_file').execute({ path: 'ws/sub' })).rejects.toMatchObject({ code: 'FS_OPERATION_FAILED' });
    expect(lstatSync(path.join(fixture.project, 'ws/sub')).isDirectory()).toBe(true);
  });

  it('rejects unknown arguments in the schema itself (Vercel AI SDK shape)', () => {
    for (const tool of fixture.tools) {
      expect(typeof tool.description).toBe('string');
      expect(typeof tool.execute).toBe('function');
      const json = asSchema(tool.inputSchema).jsonSchema as { additionalProperties?: unknown; properties?: Record<string, unknown> };
      expect(json.additionalProperties).toBe(false);
    }
    expect(fixture.tool('read_file').inputSchema.safeParse({ path: 'ws/a', extra: 1 }).success).toBe(false);
    expect(fixture.tools.map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'edit_file', 'delete_file', 'move_file', 'list_dir']);
  });
});

describe('decisions from the zones', () => {
  it('uses the defaults: read allow, write ask, delete ask', async () => {
    expect((await evaluate('read_file', { path: 'ws/notes.txt' })).kind).toBe('allow');
    expect((await evaluate('list_dir', { path: 'ws' })).kind).toBe('allow');
    expect((await evaluate('write_file', { path: 'ws/notes.txt', content: '' })).kind).toBe('ask');
    expect((await evaluate('edit_file', { path: 'ws/notes.txt', old_string: 'one', new_string: '1' })).kind).toBe('ask');
    expect((await evaluate('delete_file', { path: 'ws/notes.txt' })).kind).toBe('ask');
    expect((await evaluate('move_file', { source: 'ws/notes.txt', destination: 'ws/n.txt' })).kind).toBe('ask');
  });

  it('applies aliases and blocks, with a reason naming the zone setting', async () => {
    expect((await evaluate('write_file', { path: 'archive/new.txt', content: 'x' })).kind).toBe('allow'); // preApproved
    expect(await evaluate('delete_file', { path: 'archive/old.txt' })).toMatchObject({ kind: 'block', reason: 'deleting archive/old.txt is blocked: zone archive has approval.delete: block' });
    const reading = createFsFixture({ workspaceApproval: { read: 'ask', write: 'blocked' } });
    try {
      const verdict = await reading.gate.evaluate({ tool: 'read_file', args: { path: 'ws/notes.txt' }, callId: 'c' }, CONTEXT);
      expect(verdict).toMatchObject({ kind: 'ask', request: { description: 'Read ws/notes.txt (zone workspace)', payload: { zone: 'workspace', path: 'notes.txt' } } });
      const write = await reading.gate.evaluate({ tool: 'write_file', args: { path: 'ws/notes.txt', content: 'x' }, callId: 'c' }, CONTEXT);
      expect(write).toMatchObject({ kind: 'block', reason: 'writing ws/notes.txt is blocked: zone workspace has approval.write: block' });
      await expect(reading.tool('write_file').execute({ path: 'ws/notes.txt', content: 'x' })).rejects.toMatchObject({ code: 'FS_PATH_REJECTED' });
    } finally {
      reading.cleanup();
    }
  });

  it('asks for a move when either end asks: the stricter approval wins', async () => {
    // archive: write allow; workspace: delete ask → ask. archive → archive: delete block → block.
    expect((await evaluate('move_file', { source: 'ws/notes.txt', destination: 'archive/notes.txt' })).kind).toBe('ask');
    const allowing = createFsFixture({ workspaceApproval: { delete: 'allow', write: 'allow' } });
    try {
      const verdict = await allowing.gate.evaluate({ tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'archive/notes.txt' }, callId: 'c' }, CONTEXT);
      expect(verdict.kind).toBe('allow');
      const intoNotes = await allowing.gate.evaluate({ tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'notes/notes.txt' }, callId: 'c' }, CONTEXT);
      expect(intoNotes.kind).toBe('ask');
    } finally {
      allowing.cleanup();
    }
  });

  it('remembers approve-for-session by zone and zone-relative path', async () => {
    fixture.answer = () => ({ approved: true, scope: 'session' });
    await fixture.run('write_file', { path: 'ws/notes.txt', content: 'one\n' });
    const second = await fixture.run('write_file', { path: path.join(fixture.project, 'ws/notes.txt'), content: 'two\n' });
    expect(second.authorization).toMatchObject({ decision: 'approved', source: 'memory' });
    expect(fixture.asked).toHaveLength(1);
    expect(fixture.asked[0]!.payload).toEqual({ zone: 'workspace', path: 'notes.txt' });
    expect(fixture.read('ws/notes.txt')).toBe('two\n');
    const other = await fixture.run('write_file', { path: 'ws/other.txt', content: 'x' });
    expect(other.authorization.source).toBe('person');
  });
});

describe('what the person sees', () => {
  it('shows a unified diff for an existing file, recording the hash of what it diffed', async () => {
    await fixture.run('write_file', { path: 'ws/notes.txt', content: 'line one\nline 2\nline three\n' });
    const request = fixture.asked[0]!;
    expect(request.description).toBe('Write ws/notes.txt (zone workspace)');
    expect(request.payload).toEqual({ zone: 'workspace', path: 'notes.txt' });
    expect(request.presentation?.type).toBe('diff');
    expect(request.presentation?.content).toContain('--- ws/notes.txt\tcurrent\n+++ ws/notes.txt\tproposed\n@@ -1,3 +1,3 @@\n line one\n-line two\n+line 2\n line three');
    expect(request.presentation?.metadata).toMatchObject({
      operation: 'write',
      zone: 'workspace',
      path: 'notes.txt',
      existed: true,
      sha256: createHash('sha256').update('line one\nline two\nline three\n').digest('hex'),
    });
  });

  it('shows a new file with its language, and records that it did not exist', async () => {
    await fixture.run('write_file', { path: 'ws/app.ts', content: 'export const answer = 42;\n' });
    expect(fixture.asked[0]!.presentation).toMatchObject({
      type: 'file_content',
      content: 'export const answer = 42;\n',
      language: 'typescript',
      metadata: { sha256: null, existed: false, new_file: true },
    });
  });

  it('describes binary content by type and size only', async () => {
    await fixture.run('write_file', { path: 'ws/blob.bin', content: 'abc\u0000def' });
    expect(fixture.asked[0]!.presentation).toMatchObject({ type: 'text', content: 'New binary file ws/blob.bin: 7 bytes', metadata: { binary: true } });
    fixture.write('ws/old.bin', Buffer.from([0xff, 0xfe, 0x00]));
    await fixture.run('write_file', { path: 'ws/old.bin', content: 'text now' });
    expect(fixture.asked[1]!.presentation).toMatchObject({ type: 'text', content: 'Replace ws/old.bin: 3 bytes → 8 bytes (binary → text)' });
  });

  it('cuts large content in the prompt and keeps all of it in metadata.full_content', async () => {
    const content = Array.from({ length: 500 }, (_, index) => `line ${index}`).join('\n');
    await fixture.run('write_file', { path: 'ws/big.md', content });
    const presentation = fixture.asked[0]!.presentation!;
    expect(presentation.language).toBe('markdown');
    expect(presentation.content.split('\n').length).toBeLessThan(210);
    expect(presentation.content).toMatch(/\.\.\. \[300 more lines; the full text is in metadata\.full_content\]$/);
    expect(presentation.metadata?.full_content).toBe(content);
  });

  it('shows the lines a delete removes, and a move by its two ends', async () => {
    await fixture.run('delete_file', { path: 'ws/sub/deep.txt' });
    expect(fixture.asked[0]!.presentation).toMatchObject({ type: 'diff', metadata: { operation: 'delete', path: 'sub/deep.txt', risk: 'dangerous' } });
    expect(fixture.asked[0]!.presentation?.content).toContain('-deep');
    await fixture.run('move_file', { source: 'ws/notes.txt', destination: 'notes/notes.txt' });
    expect(fixture.asked[1]!.description).toBe('Move ws/notes.txt → notes/notes.txt (zone workspace → zone notes)');
    expect(fixture.asked[1]!.payload).toEqual({ source: { zone: 'workspace', path: 'notes.txt' }, destination: { zone: 'notes', path: 'notes.txt' } });
  });
});

describe('what you approved is what runs', () => {
  it('refuses a write when the file changed after its diff was shown', async () => {
    fixture.answer = () => {
      writeFileSync(path.join(fixture.project, 'ws/notes.txt'), 'changed by someone else\n');
      return { approved: true, scope: 'once' };
    };
    const outcome = await fixture.run('write_file', { path: 'ws/notes.txt', content: 'mine\n' });
    expect(outcome.authorization.decision).toBe('approved');
    expect(outcome.error).toBeInstanceOf(FsChangedSinceApprovalError);
    expect(outcome.error?.code).toBe('FS_CHANGED_SINCE_APPROVAL');
    expect(outcome.error?.message).toMatch(/ws\/notes\.txt changed since it was approved \(its content changed: sha256 .*\); nothing was changed\. Call write_file again so the person sees the current version/);
    expect(fixture.read('ws/notes.txt')).toBe('changed by someone else\n');
  });

  it('refuses to overwrite a file that appeared after "new file" was approved', async () => {
    fixture.answer = () => {
      writeFileSync(path.join(fixture.project, 'ws/fresh.txt'), 'someone else\n');
      return { approved: true, scope: 'once' };
    };
    const outcome = await fixture.run('write_file', { path: 'ws/fresh.txt', content: 'mine\n' });
    expect(outcome.error?.message).toMatch(/did not exist when approved and exists now/);
    expect(fixture.read('ws/fresh.txt')).toBe('someone else\n');
  });

  it('refuses stale edits, deletes and moves', async () => {
    const change = () => {
      writeFileSync(path.join(fixture.project, 'ws/notes.txt'), 'line one\nline two\nline three\nmore\n');
      return { approved: true, scope: 'once' } as const;
    };
    fixture.answer = change;
    for (const [tool, args] of [
      ['edit_file', { path: 'ws/notes.txt', old_string: 'line two', new_string: 'x' }],
      ['delete_file', { path: 'ws/notes.txt' }],
      ['move_file', { source: 'ws/notes.txt', destination: 'ws/moved.txt' }],
    ] as const) {
      writeFileSync(path.join(fixture.project, 'ws/notes.txt'), 'line one\nline two\nline three\n');
      const outcome = await fixture.run(tool, args);
      expect(outcome.error?.code, tool).toBe('FS_CHANGED_SINCE_APPROVAL');
      expect(fixture.read('ws/notes.txt')).toBe('line one\nline two\nline three\nmore\n');
    }
    expect(existsSync(path.join(fixture.project, 'ws/moved.txt'))).toBe(false);
  });

  it('refuses a presentation that was built for another file or records nothing', async () => {
    const write = fixture.tool('write_file');
    await expect(
      write.execute({ path: 'ws/notes.txt', content: 'x' }, { approvedPresentation: { type: 'diff', content: '', metadata: { operation: 'write', zone: 'workspace', path: 'other.txt', sha256: null } } }),
    ).rejects.toMatchObject({ code: 'FS_CHANGED_SINCE_APPROVAL' });
    await expect(write.execute({ path: 'ws/notes.txt', content: 'x' }, { approvedPresentation: { type: 'text', content: 'ok?' } })).rejects.toMatchObject({
      code: 'FS_CHANGED_SINCE_APPROVAL',
    });
    expect(fixture.read('ws/notes.txt')).toBe('line one\nline two\nline three\n');
  });
});

describe('zone roots relative to the policy file', () => {
  it('resolves zone roots against policyDirectory while paths resolve against cwd', async () => {
    const policy = normalizePolicy({ fs: { zones: [{ name: 'workspace', root: '../ws', mode: 'rw', approval: { write: 'allow' } }] } });
    const zones = zonesFromPolicy({ policy, policyDirectory: path.join(fixture.project, 'docs') });
    const tools = createFsTools({ zones, cwd: fixture.project });
    const gate = createGate({ policy, tools });
    expect((await gate.evaluate({ tool: 'write_file', args: { path: 'ws/x.txt', content: 'x' }, callId: 'c' }, CONTEXT)).kind).toBe('allow');
    await tools.find((tool) => tool.name === 'write_file')!.execute({ path: 'ws/x.txt', content: 'x' });
    expect(fixture.read('ws/x.txt')).toBe('x');
  });
});

function readdirNames(relative: string): string[] {
  return readdirSync(path.join(fixture.project, relative));
}

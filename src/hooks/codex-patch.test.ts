import { describe, expect, it } from 'vitest';
import { describePatch, parsePatch, readPatchCommand } from './codex-patch.ts';

const PATCH = ['*** Begin Patch', '*** Update File: src/a.ts', '*** Move to: src/b.ts', '@@ function a()', ' one', '-two', '+TWO', '*** Add File: docs/new.md', '+# New', '+', '*** Delete File: old.txt', '*** End Patch'].join('\n');

describe('readPatchCommand', () => {
  it('reads the heredoc Codex runs itself, with its delimiter quoted or not, after cd DIR && or not', () => {
    for (const command of [`apply_patch <<'EOF'\n${PATCH}\nEOF\n`, `apply_patch <<"PATCH"\n${PATCH}\nPATCH`, `applypatch <<EOF\n${PATCH}\nEOF\n`]) {
      const read = readPatchCommand(command);
      expect(read).toMatchObject({ patch: PATCH, operations: [{ kind: 'update', path: 'src/a.ts', moveTo: 'src/b.ts' }, { kind: 'add', path: 'docs/new.md', content: '# New\n\n' }, { kind: 'delete', path: 'old.txt' }] });
      expect(read).not.toHaveProperty('directory');
    }
    expect(readPatchCommand(`cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF\n`)).toMatchObject({ directory: 'sub' });
    expect(readPatchCommand(`cd 'my dir' && apply_patch <<'EOF'\n${PATCH}\nEOF\n`)).toMatchObject({ directory: 'my dir' });
  });

  it('leaves every other command a shell command: more after the heredoc, the patch as an argument, bash -lc, another program', () => {
    for (const command of [
      `apply_patch <<'EOF'\n${PATCH}\nEOF\nrm -rf ~`,
      `apply_patch <<'EOF'\n${PATCH}\nEOF && touch pwned`,
      `apply_patch '${PATCH}'`,
      `bash -lc "apply_patch <<'EOF'\n${PATCH}\nEOF\n"`,
      `cd $(evil) && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd a; rm -rf b && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      // Found by an attacker's review: bash reads these otherwise than Codex, and runs the heredoc's lines as commands.
      `cd #x && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd\n{mv,/a,/b} && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd {a,b} && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd * && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd ~ && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd 'a\nb' && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `\ncd a && apply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `cd a &&\napply_patch <<'EOF'\n${PATCH}\nEOF\n`,
      `apply_patch <<'EOF'\n${PATCH}\nEOF\n\nrm -rf x\n`,
      `echo apply_patch`,
      `apply_patch <<'EOF'\n${PATCH}\nEOT\n`,
    ]) {
      expect(readPatchCommand(command), command).toBeUndefined();
    }
  });

  it('says what is wrong with a patch that does not parse', () => {
    expect(readPatchCommand("apply_patch <<'EOF'\nhello\nEOF\n")).toEqual({ problem: 'the patch does not start with *** Begin Patch' });
    expect(parsePatch('*** Begin Patch\n*** Add File: a\n+x\n')).toEqual({ problem: 'the patch does not end with *** End Patch' });
    expect(parsePatch('*** Begin Patch\n*** Add File: a\nx\n*** End Patch')).toMatchObject({ problem: expect.stringContaining('does not start with +') });
    expect(parsePatch('*** Begin Patch\n*** Rename File: a\n*** End Patch')).toMatchObject({ problem: expect.stringContaining('is not a file header') });
    expect(parsePatch('*** Begin Patch\n*** Update File: a\nrm -rf /\n*** End Patch')).toMatchObject({ problem: expect.stringContaining('is not part of a hunk') });
    expect(parsePatch('*** Begin Patch\n*** End Patch')).toEqual({ problem: 'the patch changes no file' });
    expect(parsePatch('*** Begin Patch\n*** Add File: ~/.ssh/authorized_keys\n+key\n*** End Patch')).toMatchObject({ problem: expect.stringContaining('a path starting with ~') });
    expect(parsePatch('*** Begin Patch\n*** Update File: a\n*** Move to: ~/x\n@@\n-a\n+b\n*** End Patch')).toMatchObject({ problem: expect.stringContaining('a path starting with ~') });
  });

  it('describes the files as git status would', () => {
    const parsed = parsePatch(PATCH);
    expect('operations' in parsed && describePatch(parsed.operations)).toBe('R src/a.ts → src/b.ts, A docs/new.md, D old.txt');
  });
});

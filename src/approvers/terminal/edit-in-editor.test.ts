import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { editInEditor } from './edit-in-editor.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const signal = (): AbortSignal => new AbortController().signal;

/** A shell function as the editor: `$1` is the file, as it would be for `vi file`. */
function editorScript(body: string): string {
  return `edit() { ${body}; }; edit`;
}

describe('editInEditor', () => {
  it('runs $EDITOR on a temporary file and returns what it saved', async () => {
    const edited = await editInEditor({ text: '{ "path": "old" }\n', env: { PATH: process.env.PATH, EDITOR: "sed -i s/old/new/" }, signal: signal() });
    expect(edited).toBe('{ "path": "new" }\n');
  });

  it('prefers $VISUAL, names the file .json, keeps it private and removes it afterwards', async () => {
    const edited = await editInEditor({
      text: '{}',
      env: { PATH: process.env.PATH, VISUAL: editorScript('printf "%s %s" "$(stat -c %a "$1")" "$1" > "$1"'), EDITOR: 'false' },
      signal: signal(),
    });
    const [mode, file] = edited.split(' ');
    expect(mode).toBe('600');
    expect(file).toMatch(/toolgate-edit-.*\/arguments\.json$/);
    expect(existsSync(file!)).toBe(false);
  });

  it('fails with EDITOR_FAILED when no editor is set or it fails', async () => {
    await expect(editInEditor({ text: '{}', env: { EDITOR: '  ' }, signal: signal() })).rejects.toMatchObject({ code: 'EDITOR_FAILED', message: /set \$VISUAL or \$EDITOR/ });
    const failing = editInEditor({ text: '{}', env: { PATH: process.env.PATH, EDITOR: editorScript('exit 3') }, signal: signal() });
    await expect(failing).rejects.toBeInstanceOf(TerminalPromptError);
    await expect(failing).rejects.toMatchObject({ code: 'EDITOR_FAILED', message: 'the editor exited with code 3' });
  });

  it('stops the editor itself (not only its shell) when the signal aborts', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'toolgate-editor-'));
    try {
      // A slow editor that records its pid: it must be gone after the abort.
      const script = join(directory, 'slow-editor');
      const pidFile = join(directory, 'pid');
      await writeFile(script, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 30\n`, { mode: 0o700 });
      const controller = new AbortController();
      const editing = editInEditor({ text: '{}', env: { PATH: process.env.PATH, EDITOR: script }, signal: controller.signal });
      while (!existsSync(pidFile) || (await readFile(pidFile, 'utf8')).trim() === '') await sleep(20);
      controller.abort(new Error('approval timed out'));
      await expect(editing).rejects.toMatchObject({ code: 'EDITOR_FAILED', message: /stopped: the prompt was aborted/ });
      const pid = Number((await readFile(pidFile, 'utf8')).trim());
      // Waits for the death itself (up to 10 s on a loaded machine), not for a fixed time.
      for (let attempt = 0; attempt < 500 && isAlive(pid); attempt += 1) await sleep(20);
      expect(isAlive(pid)).toBe(false);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

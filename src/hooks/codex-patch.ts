/**
 * Codex edits files with `apply_patch`, which it runs itself when its shell
 * tool is given `apply_patch <<'EOF' … EOF` (measured with 0.171: the hook
 * sees a `Bash` call with that command, and Codex writes the files). Read as
 * a shell command it is an unknown program, so every edit would ask or be
 * denied; read as the patch it is, each file it adds, updates, deletes or
 * moves is judged as the fs write it is, under the zones — the same rules as
 * Claude Code's `Edit`. Only an exact patch command is read so: anything
 * else on the line (`&& rm -rf x`) leaves it a shell command.
 *
 * The format (Codex's `apply_patch` tool instructions):
 *   *** Begin Patch
 *   *** Add File: path        then its lines, each starting with +
 *   *** Delete File: path
 *   *** Update File: path     then optionally *** Move to: path, then hunks
 *                             (@@ [context], lines starting with ' ', -, +)
 *   *** End Patch
 */

/** One file the patch changes. */
export type PatchOperation =
  | { kind: 'add'; path: string; content: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; hunks: string };

/** A patch command read: where it runs (a `cd DIR &&` before it), and what it changes. */
export interface PatchCommand {
  directory?: string;
  patch: string;
  operations: PatchOperation[];
}

/**
 * The one line Codex applies itself, and nothing more: spaces and tabs only
 * between its words (a newline after `cd` makes bash run what follows as
 * commands), and a `cd` folder that is one plain word — letters, digits and
 * `._/+@%:=,-`, or single-quoted without a newline — since a `#` (a comment
 * to bash), braces, globs or `~` (which Codex versions expand differently)
 * would make bash run the heredoc's lines where Codex would not take it as
 * a patch (an attacker's review found `cd #x && apply_patch …` and
 * `cd\n{mv,a,b} && apply_patch …` allowed as patches and run as commands).
 */
const HEREDOC = /^[ \t]*(?:cd[ \t]+('[^'\n]*'|[A-Za-z0-9._/+@%:=,-]+)[ \t]*&&[ \t]*)?(?:apply_patch|applypatch)[ \t]+<<[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2[ \t]*\n([\s\S]*?)\n\3[ \t]*\n?$/;

/**
 * The patch a command applies, when the command is exactly Codex's
 * `apply_patch` with its patch in a heredoc, optionally after `cd DIR &&`
 * (the forms Codex 0.171 runs itself, measured); undefined otherwise — the
 * patch as an argument, or inside `bash -lc`, Codex hands to the shell,
 * which runs whatever `apply_patch` is on PATH, so those stay shell
 * commands. A patch command whose patch does not parse gives `{ problem }`.
 *
 * @example
 * readPatchCommand("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF\n")
 * // { patch: '…', operations: [{ kind: 'delete', path: 'a.txt' }] }
 */
export function readPatchCommand(command: string): PatchCommand | { problem: string } | undefined {
  const heredoc = HEREDOC.exec(command);
  if (heredoc === null) return undefined;
  const directory = heredoc[1]?.replace(/^'(.*)'$/s, '$1');
  const patch = heredoc[4]!;
  const parsed = parsePatch(patch);
  if ('problem' in parsed) return parsed;
  return { ...(directory === undefined ? {} : { directory }), patch, operations: parsed.operations };
}

/**
 * The operations of a patch's text.
 *
 * @example
 * parsePatch('*** Begin Patch\n*** Add File: b.txt\n+new\n*** End Patch') // { operations: [{ kind: 'add', path: 'b.txt', content: 'new\n' }] }
 */
export function parsePatch(text: string): { operations: PatchOperation[] } | { problem: string } {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  if (lines[0]?.trim() !== '*** Begin Patch') return { problem: 'the patch does not start with *** Begin Patch' };
  if (lines.at(-1)?.trim() !== '*** End Patch') return { problem: 'the patch does not end with *** End Patch' };
  const body = lines.slice(1, -1);
  const operations: PatchOperation[] = [];
  for (let index = 0; index < body.length; ) {
    const line = body[index]!;
    const header = /^\*\*\* (Add|Delete|Update) File: (.+)$/.exec(line);
    if (header === null) return { problem: `line ${index + 2} of the patch is not a file header (*** Add File:, *** Delete File:, *** Update File:): ${JSON.stringify(line.slice(0, 80))}` };
    const path = header[2]!.trim();
    if (path === '') return { problem: `line ${index + 2} of the patch names no file` };
    if (path.startsWith('~')) return { problem: `line ${index + 2} of the patch names ${JSON.stringify(path)}: a path starting with ~ is read differently by Codex versions (a folder named ~, or the home)` };
    index++;
    if (header[1] === 'Delete') {
      operations.push({ kind: 'delete', path });
      continue;
    }
    const section: string[] = [];
    while (index < body.length && !/^\*\*\* (Add|Delete|Update) File: /.test(body[index]!)) section.push(body[index++]!);
    if (header[1] === 'Add') {
      const bad = section.findIndex((entry) => !entry.startsWith('+'));
      if (bad !== -1) return { problem: `a line of the file ${path} added by the patch does not start with +: ${JSON.stringify(section[bad]!.slice(0, 80))}` };
      operations.push({ kind: 'add', path, content: section.map((entry) => `${entry.slice(1)}\n`).join('') });
      continue;
    }
    const move = /^\*\*\* Move to: (.+)$/.exec(section[0] ?? '');
    const hunks = move === null ? section : section.slice(1);
    const bad = hunks.findIndex((entry) => !(entry.startsWith('@@') || entry.startsWith(' ') || entry.startsWith('-') || entry.startsWith('+') || entry === '' || entry === '*** End of File'));
    if (bad !== -1) return { problem: `a line of the update of ${path} is not part of a hunk: ${JSON.stringify(hunks[bad]!.slice(0, 80))}` };
    const moveTo = move?.[1]?.trim();
    if (moveTo?.startsWith('~') === true) return { problem: `the patch moves ${path} to ${JSON.stringify(moveTo)}: a path starting with ~ is read differently by Codex versions` };
    operations.push({ kind: 'update', path, ...(moveTo === undefined || moveTo === '' ? {} : { moveTo }), hunks: hunks.join('\n') });
  }
  if (operations.length === 0) return { problem: 'the patch changes no file' };
  return { operations };
}

/** The file list of a patch as a person reads it: `A b.txt, M a.txt, D c.txt, R d.txt → e.txt`. */
export function describePatch(operations: readonly PatchOperation[]): string {
  return operations
    .map((operation) => (operation.kind === 'add' ? `A ${operation.path}` : operation.kind === 'delete' ? `D ${operation.path}` : operation.moveTo === undefined ? `M ${operation.path}` : `R ${operation.path} → ${operation.moveTo}`))
    .join(', ');
}

/**
 * A host that runs its commands with another shell than bash (zsh, fish,
 * PowerShell...): the shell tool's analysis reads bash, so a command in a
 * form that shell reads differently asks, saying which shell and why.
 */
import path from 'node:path';
import { realpathSync } from '../filesystem/file-lookups.ts';

/**
 * Constructs zsh reads otherwise than bash, where the shell tool's analysis
 * (which reads bash) would see harmless words: code run by parameter flags
 * and glob qualifiers, words turned into paths, `$var:h`-style modifiers
 * (`rm -rf $HOME:h` removes the parent of $HOME in zsh, a file named
 * "…:h" in bash), numeric globs that bash reads as a redirection, and the
 * arrays zsh ties to PATH and friends. Deliberately wide: a false match
 * only asks a person.
 */
const ZSH_CONSTRUCTS: ReadonlyArray<{ pattern: RegExp; what: string; inDoubleQuotes: boolean }> = [
  { pattern: /\$\{[(=~^#+]/, what: 'a parameter expansion with zsh flags (${(...)…}, ${=…}, ${~…}), which can evaluate code', inDoubleQuotes: true },
  { pattern: /\$[=~^+][A-Za-z_{]/, what: 'a zsh word-splitting, globbing or set-test expansion ($=var, $~var, $^var, $+var)', inDoubleQuotes: true },
  { pattern: /\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*):[hetrlupqQaAcsgwW&]/, what: 'a zsh modifier on a parameter ($var:h, $var:t, $var:s/…/…/), which changes the path it names', inDoubleQuotes: true },
  { pattern: /\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)\[/, what: 'a zsh subscript on a parameter ($var[1])', inDoubleQuotes: true },
  { pattern: /(^|[\s;&|(<>])=[A-Za-z0-9_.\/(-]/, what: 'an =word or =(…), which zsh expands to the path of a command or of a temporary file', inDoubleQuotes: false },
  { pattern: /[^\s;&|<>$(`]\(/, what: 'a parenthesis after a word: a zsh glob qualifier (*(…), file(e:…:)), which can run code', inDoubleQuotes: false },
  { pattern: /<\d*-\d*>/, what: 'a zsh numeric glob (<1-10>), which bash reads as a redirection', inDoubleQuotes: false },
  {
    pattern: /(^|[\s;&|(])(path|fpath|cdpath|manpath|module_path|mailpath|FPATH|MODULE_PATH|NULLCMD|READNULLCMD|TMPPREFIX|ZDOTDIR|histchars)(\[[^\]]*\])?\+?=/,
    what: 'an assignment to a variable zsh ties to a search path or to the command it runs for a bare redirection (path, fpath, NULLCMD, READNULLCMD…), which changes what later commands run',
    inDoubleQuotes: false,
  },
  { pattern: /\^|[^\s;&|($]#|[^\s;&|(=:]~/, what: 'a character zsh reads as a glob operator with EXTENDED_GLOB (^, x#, a~b) where bash reads a plain word', inDoubleQuotes: false },
];

/**
 * The command's text outside quotes (`unquoted`), and outside single quotes
 * only (`expanded`: zsh expands parameters inside double quotes too).
 * Backslash-escaped characters are dropped from both.
 */
function shellTextParts(command: string): { unquoted: string; expanded: string } {
  // What this scanner does not follow — comments, here-documents, $'…' and $"…" strings, command substitutions
  // (whose own quotes nest) — and the whole text is read as unquoted: a construct in it then asks, never passes.
  if (/[#`]|<<|\$['"(]/.test(command)) return { unquoted: command, expanded: command };
  let unquoted = '';
  let expanded = '';
  let quote: "'" | '"' | undefined;
  let segment = '';
  for (let index = 0; index < command.length; index++) {
    const character = command[index]!;
    if (quote === "'") {
      if (character === "'") quote = undefined;
      continue;
    }
    if (character === '\\') {
      index++;
      unquoted += quote === undefined ? ' ' : '';
      expanded += ' ';
      continue;
    }
    if (quote === '"') {
      if (character === '"') {
        quote = undefined;
        // A command substitution inside double quotes is read unquoted: the whole segment is, to be safe.
        if (segment.includes('$(') || segment.includes('`')) unquoted += segment;
        segment = '';
      } else {
        expanded += character;
        segment += character;
      }
      continue;
    }
    if (character === "'" || character === '"') {
      quote = character;
      // $'…' is quoted as '…' is.
      if (character === "'" && unquoted.endsWith('$')) {
        unquoted = unquoted.slice(0, -1);
        expanded = expanded.slice(0, -1);
      }
      unquoted += ' ';
      expanded += ' ';
      continue;
    }
    unquoted += character;
    expanded += character;
  }
  return { unquoted, expanded };
}

/** The system's shells, from /etc/shells, each with its real path; read once. */
let systemShells: Set<string> | undefined;

/**
 * Whether `shell` is an absolute path that is, or resolves to, one listed in
 * /etc/shells. Where there is no /etc/shells, the shells in the system's
 * own directories (/bin, /usr/bin, /usr/local/bin, /opt/homebrew/bin).
 */
export function isSystemShell(shell: string): boolean {
  if (!path.isAbsolute(shell)) return false;
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const real = (file: string): string | undefined => {
    try {
      return realpathSync(file);
    } catch {
      return undefined;
    }
  };
  if (systemShells === undefined) {
    systemShells = new Set();
    let listed: string[];
    try {
      listed = readFileSync('/etc/shells', 'utf8').split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line.startsWith('/'));
    } catch {
      listed = ['bash', 'sh', 'dash', 'zsh'].flatMap((name) => ['/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin'].map((directory) => path.join(directory, name)));
    }
    for (const entry of listed) {
      systemShells.add(entry);
      const resolved = real(entry);
      if (resolved !== undefined) systemShells.add(resolved);
    }
  }
  const resolved = real(shell);
  return systemShells.has(path.normalize(shell)) && resolved !== undefined && systemShells.has(resolved);
}

/**
 * Why `command` may not do, under the host's `shell`, what the shell tool's
 * analysis (which reads bash) says: a shell that is not known (the host did
 * not say), one that is not bash's kind at all (fish, PowerShell, csh,
 * anything else), or zsh with a construct it reads otherwise than bash
 * (`ZSH_CONSTRUCTS`). Undefined for bash, sh and dash, and for zsh when the
 * text has none of them.
 *
 * @example
 * otherShellHazard('/bin/zsh', 'echo ${(e)x}') // 'the host runs this command with zsh, and zsh reads a parameter expansion with zsh flags ...'
 * otherShellHazard(undefined, 'ls')           // 'the host did not say which shell runs it ...'
 */
export function otherShellHazard(shell: string | undefined, command: string): string | undefined {
  if (shell === undefined || shell === '') return 'the host did not say which shell runs this command, and toolgate judges commands only as bash reads them';
  // The model (Codex's shell argument) or a repository (an env setting) can name any program "bash": only a shell of this system counts as one.
  if (!isSystemShell(shell)) return `the shell ${shell} is not one of this system's shells (an absolute path listed in /etc/shells), so what runs the command is not known`;
  const name = path.basename(shell);
  if (name === 'bash' || name === 'sh' || name === 'dash') return undefined;
  if (name !== 'zsh') return `the host runs this command with ${name}, whose syntax is not bash's, and toolgate judges commands as bash reads them`;
  const { unquoted, expanded } = shellTextParts(command);
  const found = ZSH_CONSTRUCTS.find((construct) => construct.pattern.test(construct.inDoubleQuotes ? expanded : unquoted));
  return found === undefined ? undefined : `the host runs this command with zsh, and zsh reads ${found.what}; toolgate judges commands as bash reads them`;
}

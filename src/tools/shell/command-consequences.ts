/**
 * What a command does that a person cannot undo, in one plain line for the
 * card: the analysis says which files a command touches, but "writes into
 * the work tree" does not tell a person that `git reset --hard HEAD~1`
 * throws away the last commit and every uncommitted change. Only commands
 * whose consequence is certain from their words are described; the others
 * are judged as before and say nothing here. Descriptions only: nothing
 * here changes a decision.
 */
import type { AnalyzedCommand } from './analyze-command.ts';
import { commandModel } from './commands/command-models.ts';
import { gitSubcommand } from './git-subcommands.ts';

/** Programs that run the code they read from their input. */
const INTERPRETERS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'fish', 'python', 'python3', 'node', 'perl', 'ruby', 'php', 'pwsh']);
/** Programs that print what they download, besides the models that say so (`downloads`). */
const DOWNLOADERS = new Set(['fetch', 'http', 'https', 'aria2c']);

/**
 * The consequence of one analysed command, or undefined.
 *
 * @example
 * commandConsequence(analyzeCommand('git reset --hard HEAD~1').commands[0]!)
 * // 'git reset --hard HEAD~1 throws away every uncommitted change to tracked files and moves the branch to HEAD~1: commits after it are left only in the reflog'
 */
export function commandConsequence(command: AnalyzedCommand): string | undefined {
  const asRoot = command.via === 'run by sudo' ? ' as root (sudo)' : '';
  if (command.name !== undefined && INTERPRETERS.has(command.name) && command.pipedFrom !== undefined && (DOWNLOADERS.has(command.pipedFrom) || commandModel(command.pipedFrom)?.downloads === true)) {
    return `the script ${command.pipedFrom} downloads runs in ${command.name}${asRoot}: whatever the server sends runs on this machine`;
  }
  if (asRoot !== '') return `${command.text} runs${asRoot}`;
  if (command.name !== 'git') return undefined;
  const subcommand = gitSubcommand(command.words);
  const rest = command.words.slice(subcommand.index + 1).map((word) => word.value);
  const operand = rest.find((value) => !value.startsWith('-'));
  const has = (...flags: string[]) => rest.some((value) => flags.includes(value) || flags.some((flag) => flag.startsWith('--') && value.startsWith(`${flag}=`)));
  const shortHas = (letter: string) => rest.some((value) => /^-[a-zA-Z]+$/.test(value) && value.includes(letter));
  switch (subcommand.name) {
    case 'reset':
      if (has('--hard')) return `${command.text} throws away every uncommitted change to tracked files${operand === undefined ? '' : ` and moves the branch to ${operand}: commits after it are left only in the reflog`}`;
      return undefined;
    case 'clean':
      if (has('-n', '--dry-run') || shortHas('n')) return undefined;
      return `${command.text} deletes untracked files${shortHas('x') || has('-x') ? ', ignored ones too' : ''}, which git cannot bring back`;
    case 'checkout':
      return rest.includes('--') ? `${command.text} throws away the uncommitted changes to the files it names` : undefined;
    case 'restore':
      return has('--staged', '-S') && !has('--worktree', '-W') ? undefined : `${command.text} throws away the uncommitted changes to the files it names`;
    case 'push':
      return has('--force', '-f', '--force-with-lease', '--mirror') || shortHas('f') ? `${command.text} overwrites the remote's history` : undefined;
    case 'branch':
      return has('-D') || (has('-d', '--delete') && has('-f', '--force')) ? `${command.text} deletes a branch whether or not it was merged` : undefined;
    default:
      return undefined;
  }
}

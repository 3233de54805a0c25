/**
 * The commands known to use the network: clients (curl, wget, ssh, nc...),
 * the network subcommands of git and of package managers (`npm install`,
 * `pip install`, `git fetch`), and package runners that download what they
 * run (npx). When the policy turns the network off, the OS sandbox cuts it;
 * the shell tool blocks these commands so the policy layer is not weaker.
 */
import { gitSubcommand } from './git-subcommands.ts';
import { isRemotePath } from './path-argument.ts';
import type { ShellWord } from './shell-word.ts';
import { commandModel } from './commands/command-models.ts';
import { knownFlags, subcommandCandidates } from './subcommand-candidates.ts';

/** Programs whose whole purpose is talking to other machines (or that fetch what they run). */
const CLIENTS = new Set([
  'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp', 'lftp', 'tftp', 'ping', 'ping6', 'dig', 'nslookup', 'host',
  'whois', 'traceroute', 'tracepath', 'mtr', 'nmap', 'http', 'https', 'xh', 'aria2c', 'mosh', 'smbclient', 'rsh', 'rlogin', 'npx', 'bunx', 'pnpx', 'uvx',
]);

/** Subcommands (the first word after the program's options) that use the network. */
const SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['pnpm', new Set(['install', 'i', 'add', 'update', 'up', 'upgrade', 'publish', 'fetch', 'dlx', 'create', 'outdated', 'audit', 'install-test', 'it', 'login', 'view', 'info'])],
  ['yarn', new Set(['install', 'add', 'up', 'upgrade', 'upgrade-interactive', 'publish', 'npm', 'dlx', 'create', 'info', 'outdated', 'audit', 'login', 'import'])],
  ['bun', new Set(['install', 'i', 'add', 'a', 'update', 'upgrade', 'publish', 'create', 'x', 'outdated'])],
  ['pip', new Set(['install', 'download', 'wheel', 'index', 'search'])],
  ['pip3', new Set(['install', 'download', 'wheel', 'index', 'search'])],
  ['pipx', new Set(['install', 'upgrade', 'upgrade-all', 'reinstall', 'reinstall-all', 'run', 'inject'])],
  ['uv', new Set(['add', 'sync', 'lock', 'pip', 'tool', 'run', 'python', 'publish'])],
  ['poetry', new Set(['install', 'add', 'update', 'lock', 'publish', 'search'])],
  ['apt', new Set(['install', 'update', 'upgrade', 'dist-upgrade', 'full-upgrade', 'download', 'source', 'build-dep', 'reinstall'])],
  ['apt-get', new Set(['install', 'update', 'upgrade', 'dist-upgrade', 'full-upgrade', 'download', 'source', 'build-dep', 'reinstall'])],
  ['apk', new Set(['add', 'update', 'upgrade', 'fetch'])],
  ['dnf', new Set(['install', 'update', 'upgrade', 'makecache', 'download', 'reinstall'])],
  ['yum', new Set(['install', 'update', 'upgrade', 'makecache', 'download', 'reinstall'])],
  ['zypper', new Set(['install', 'in', 'refresh', 'ref', 'update', 'up', 'dist-upgrade', 'dup'])],
  ['brew', new Set(['install', 'reinstall', 'update', 'upgrade', 'fetch', 'tap', 'search'])],
  ['gem', new Set(['install', 'update', 'fetch', 'push', 'search', 'sources'])],
  ['bundle', new Set(['install', 'update', 'add', 'outdated'])],
  ['composer', new Set(['install', 'require', 'update', 'create-project', 'outdated'])],
  ['cargo', new Set(['install', 'fetch', 'update', 'search', 'publish', 'add', 'login', 'yank', 'owner'])],
  ['go', new Set(['get', 'install'])],
  ['docker', new Set(['pull', 'push', 'login', 'search'])],
  ['podman', new Set(['pull', 'push', 'login', 'search'])],
]);


/**
 * Why the command uses the network, or undefined when it is not known to.
 * A subcommand only known at run time counts as one that might.
 *
 * @example
 * networkUse({ name: 'npm', words: [npm, install] }) // 'npm install uses the network'
 * networkUse({ name: 'npm', words: [npm, test] })    // undefined
 */
export function networkUse(options: { name: string; words: readonly ShellWord[] }): string | undefined {
  const { name, words } = options;
  const connects = commandModel(name)?.connects;
  if (connects !== undefined) return connects(words);
  if (CLIENTS.has(name)) return `${name} uses the network`;
  if (name === 'git') return gitNetwork(words);
  if (/^python[0-9.]*$/.test(name) && words[1]?.value === '-m' && /^pip[0-9]*$/.test(words[2]?.value ?? '')) return subcommandNetwork('pip', words.slice(2));
  if (name === 'pytest' || name === 'py.test' || (/^python[0-9.]*$/.test(name) && words[1]?.value === '-m' && words[2]?.value === 'pytest')) {
    // `--pastebin=failed|all` uploads the test session's output to bpaste.net (argparse also takes a prefix such as `--paste`).
    // A word only known at run time is not counted: it already asks as a path the check cannot see, and blocking `pytest "$f"` helps nobody.
    const upload = words.find((word) => word.kind === 'static' && /^--pas(t(e(b(in?)?)?)?)?(=|$)/.test(word.value));
    if (upload !== undefined) return `pytest ${upload.value} uploads the test output to a pastebin over the network`;
  }
  if (name === 'yarn' && words.slice(1).every((word) => word.value.startsWith('-'))) return 'yarn (install) uses the network';
  if (name === 'pacman' && words.slice(1).some((word) => /^-[a-zA-Z]*[SU]/.test(word.value) || /^--(sync|upgrade)/.test(word.value))) return 'pacman -S/-U uses the network';
  return SUBCOMMANDS.has(name) || commandModel(name)?.network !== undefined ? subcommandNetwork(name, words) : undefined;
}


/** Whether the subcommand uses the network; an option before it may have taken a word as its value (`npm --editor ls install`), so each word that may be the subcommand counts. */
function subcommandNetwork(name: string, words: readonly ShellWord[]): string | undefined {
  for (const index of subcommandCandidates({ words, start: 1, flags: commandModel(name)?.flags ?? knownFlags(name) })) {
    const found = candidateNetwork(name, words, words[index]!);
    if (found !== undefined) return found;
  }
  return undefined;
}

function candidateNetwork(name: string, words: readonly ShellWord[], subcommand: ShellWord): string | undefined {
  if (subcommand.kind === 'dynamic') return `${name} ${subcommand.text}: the subcommand is only known at run time, and ${name} has subcommands that use the network`;
  const modelled = commandModel(name)?.network;
  if (modelled !== undefined) return modelled(words, words.indexOf(subcommand));
  if (name === 'go' && subcommand.value === 'mod') return ['download', 'tidy', 'graph', 'why', 'verify'].includes(words[words.indexOf(subcommand) + 1]?.value ?? '') ? 'go mod downloads modules over the network' : undefined;
  return SUBCOMMANDS.get(name)!.has(subcommand.value) ? `${name} ${subcommand.value} uses the network` : undefined;
}

function gitNetwork(words: readonly ShellWord[]): string | undefined {
  const subcommand = gitSubcommand(words);
  if (subcommand.name === undefined) return subcommand.effect === 'unknown' ? `git ${subcommand.because ?? ''}: the subcommand is only known at run time, and git has subcommands that use the network` : undefined;
  const rest = words.slice(subcommand.index + 1);
  const value = subcommand.name;
  if (subcommand.traits?.network === true) return `git ${value} uses the network`;
  if (value === 'clone') {
    const source = rest.find((word) => !word.value.startsWith('-'));
    return source === undefined || source.kind === 'dynamic' || isRemotePath(source.value) ? 'git clone of a remote repository uses the network' : undefined;
  }
  if (value === 'submodule' && rest.some((word) => ['update', 'add', 'sync'].includes(word.value))) return 'git submodule update/add uses the network';
  if (value === 'remote' && rest.some((word) => ['update', 'prune', 'show', 'set-head'].includes(word.value))) return `git remote ${rest.find((word) => !word.value.startsWith('-'))?.value ?? ''} uses the network`;
  if (value === 'archive' && rest.some((word) => word.value.startsWith('--remote'))) return 'git archive --remote uses the network';
  if ((value === 'svn' || value === 'lfs') && rest.some((word) => ['fetch', 'pull', 'push', 'clone', 'dcommit', 'rebase', 'init'].includes(word.value))) return `git ${value} uses the network`;
  return undefined;
}

/**
 * Makes sure the system packages the test suite uses for real (bubblewrap
 * for the OS sandbox, ...) are present. As root it installs the missing ones
 * with apt-get; otherwise it fails and says exactly what to install.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Debian puts PostgreSQL's server programs in /usr/lib/postgresql/<version>/bin, off PATH. */
function hasPostgresServer(): boolean {
  if (has('initdb') && has('postgres')) return true;
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((version) => existsSync(`${root}/${version}/bin/initdb`) && existsSync(`${root}/${version}/bin/postgres`));
}

const REQUIRED: { binary: string; aptPackage: string; why: string; present?: () => boolean }[] = [
  { binary: 'bwrap', aptPackage: 'bubblewrap', why: 'the OS sandbox tests run commands in a real bubblewrap sandbox' },
  { binary: 'tmux', aptPackage: 'tmux', why: 'the terminal approver is tested in a real terminal' },
  // The shell attack suites run these for real and check what they did to the filesystem.
  { binary: 'git', aptPackage: 'git', why: 'repository config, hooks and git writers are attacked with real git' },
  { binary: 'xxd', aptPackage: 'xxd', why: 'writers judged as readers (xxd IN OUT) are run for real' },
  { binary: 'zip', aptPackage: 'zip', why: 'archives that write and delete are run for real' },
  { binary: 'unzip', aptPackage: 'unzip', why: 'archives that extract through links are run for real' },
  { binary: 'patch', aptPackage: 'patch', why: 'patches that create links before a later path are run for real' },
  { binary: 'file', aptPackage: 'file', why: 'readers with writing options (file -C) are run for real' },
  { binary: 'chromium', aptPackage: 'chromium', why: 'the web inbox is tested in real headless Chromium (playwright-core drives /usr/bin/chromium)' },
  { binary: 'postgres', aptPackage: 'postgresql', why: 'the PostgreSQL store is tested against a real server the tests start', present: hasPostgresServer },
  // The agent CLIs run in a network namespace with only loopback, their connects traced.
  { binary: 'unshare', aptPackage: 'util-linux', why: 'the agent CLIs (Claude Code, Codex) run in a network namespace with only loopback' },
  { binary: 'ip', aptPackage: 'iproute2', why: "the agent CLIs' network namespace gets its loopback up with ip" },
  { binary: 'strace', aptPackage: 'strace', why: "every connection an agent CLI attempts is traced, so one to another machine is seen" },
  { binary: 'mkfifo', aptPackage: 'coreutils', why: 'a policy that would hang the hook is a named pipe' },
  { binary: 'zsh', aptPackage: 'zsh', why: "a command zsh reads otherwise than bash is run by the agent CLIs through a real zsh" },
];

function has(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

const present = (entry: (typeof REQUIRED)[number]) => (entry.present ?? (() => has(entry.binary)))();
const missing = REQUIRED.filter((entry) => !present(entry));
if (missing.length > 0) {
  const packages = missing.map((entry) => entry.aptPackage);
  const isRoot = process.getuid?.() === 0;
  const hasApt = has('apt-get');
  if (!isRoot || !hasApt) {
    process.stderr.write(
      `The tests need these system packages:\n${missing.map((entry) => `  ${entry.aptPackage} (${entry.binary}): ${entry.why}`).join('\n')}\n` +
        `Install them with: sudo apt-get install -y ${packages.join(' ')}\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`installing ${packages.join(' ')} for the tests...\n`);
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install().status !== 0) {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    if (install().status !== 0) {
      process.stderr.write(`apt-get could not install ${packages.join(' ')}\n`);
      process.exit(1);
    }
  }
  const still = missing.filter((entry) => !present(entry));
  if (still.length > 0) {
    process.stderr.write(`still missing after install: ${still.map((entry) => entry.binary).join(', ')}\n`);
    process.exit(1);
  }
}

// The agent CLIs the host tests run for real, pinned in their own lockfile (test/hosts/package-lock.json).
const hostsDirectory = new URL('../test/hosts/', import.meta.url).pathname;
const hostClis = ['node_modules/.bin/claude', 'node_modules/.bin/codex', 'node_modules/.bin/gemini', 'node_modules/.bin/copilot', 'node_modules/.bin/opencode'];
/** Each pinned CLI installed at the version test/hosts/package.json names (a pin moved since the last install installs again). */
function hostClisCurrent(): boolean {
  const pinned = (JSON.parse(readFileSync(`${hostsDirectory}package.json`, 'utf8')) as { dependencies: Record<string, string> }).dependencies;
  return Object.entries(pinned).every(([name, version]) => {
    try {
      return (JSON.parse(readFileSync(`${hostsDirectory}node_modules/${name}/package.json`, 'utf8')) as { version: string }).version === version;
    } catch {
      return false;
    }
  });
}
if (!hostClis.every((cli) => existsSync(`${hostsDirectory}${cli}`)) || !hostClisCurrent()) {
  process.stderr.write('installing the agent CLIs the host tests run (test/hosts: Claude Code, Codex, Gemini CLI, Copilot CLI, opencode; about 1.5 GB) from the npm registry...\n');
  const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: hostsDirectory, stdio: 'inherit' });
  if (installed.status !== 0 || !hostClis.every((cli) => existsSync(`${hostsDirectory}${cli}`)) || !hostClisCurrent()) {
    process.stderr.write(`could not install the agent CLIs: run \`npm ci\` in ${hostsDirectory} and see what it says\n`);
    process.exit(1);
  }
}
if (process.getuid?.() !== 0) {
  process.stderr.write('The host tests run each agent CLI in a network namespace of its own (unshare -n), which needs root: run the tests as root.\n');
  process.exit(1);
}

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A JavaScript package manager `toolgate init` can propose rules for. */
export type PackageManagerName = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** A build tool found by its file. */
export type BuildToolName = 'make' | 'cargo' | 'go' | 'pytest' | 'maven';

/** What `toolgate init` found in a project: the facts its proposed rules rest on. */
export interface ProjectFacts {
  /** The package manager, when there is a package.json. */
  packageManager?: {
    name: PackageManagerName;
    /** What said so: its lockfile, package.json's packageManager field, or package.json alone (npm). */
    evidence: string;
    /** The scripts toolgate proposes rules for (test, build, lint) that package.json defines, with their command lines as written there. */
    scripts: { name: ProposedScript; command: string }[];
  };
  /** Where the git repository's `.git` is (this directory or one above), when there is one. */
  git?: { directory: string };
  buildTools: { name: BuildToolName; file: string }[];
  /** What could not be read, said to the person (a package.json that is not JSON). */
  notes: string[];
}

/** The package.json scripts rules are proposed for, in this order; only these names ever reach a rule's match. */
export const PROPOSED_SCRIPTS = ['test', 'build', 'lint'] as const;
export type ProposedScript = (typeof PROPOSED_SCRIPTS)[number];

/** Lockfiles, most specific first: a project with two is usually migrating towards the first. */
const LOCKFILES: readonly { file: string; name: PackageManagerName }[] = [
  { file: 'pnpm-lock.yaml', name: 'pnpm' },
  { file: 'yarn.lock', name: 'yarn' },
  { file: 'bun.lock', name: 'bun' },
  { file: 'bun.lockb', name: 'bun' },
  { file: 'package-lock.json', name: 'npm' },
  { file: 'npm-shrinkwrap.json', name: 'npm' },
];

/** Build tools by the file that marks them; the first file found names the tool. */
const BUILD_FILES: readonly { files: readonly string[]; name: BuildToolName }[] = [
  { files: ['GNUmakefile', 'makefile', 'Makefile'], name: 'make' },
  { files: ['Cargo.toml'], name: 'cargo' },
  { files: ['go.mod'], name: 'go' },
  { files: ['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini'], name: 'pytest' },
  { files: ['pom.xml'], name: 'maven' },
];

/**
 * Looks at a project directory (reads a few files, runs nothing): its
 * package manager and the scripts package.json defines, whether it is in a
 * git repository, and the common build tools' files.
 *
 * @example
 * detectProject({ directory: '/work/app' })
 * // { packageManager: { name: 'npm', evidence: 'package-lock.json', scripts: [{ name: 'test', command: 'vitest run' }] },
 * //   git: { directory: '/work/app/.git' }, buildTools: [], notes: [] }
 */
export function detectProject(options: { directory: string }): ProjectFacts {
  const { directory } = options;
  const facts: ProjectFacts = { buildTools: [], notes: [] };
  const manifest = readPackageJson(directory, facts.notes);
  if (manifest !== undefined) facts.packageManager = { ...packageManagerOf(directory, manifest), scripts: scriptsOf(manifest) };
  const git = findGitDirectory(directory);
  if (git !== undefined) facts.git = { directory: git };
  for (const { files, name } of BUILD_FILES) {
    const file = files.find((candidate) => existsSync(path.join(directory, candidate)));
    if (file === undefined) continue;
    // pyproject.toml and setup.cfg also describe projects without tests: only a pytest section says pytest.
    if (name === 'pytest' && file !== 'pytest.ini' && !mentionsPytest(path.join(directory, file))) continue;
    facts.buildTools.push({ name, file });
  }
  return facts;
}

/** package.json as an object; undefined when absent. One that does not parse still says "a JavaScript project", with a note. */
function readPackageJson(directory: string, notes: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(directory, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    notes.push('package.json is not a JSON object: its scripts were not read');
  } catch {
    notes.push('package.json is not valid JSON: its scripts were not read');
  }
  return {};
}

function packageManagerOf(directory: string, manifest: Record<string, unknown>): { name: PackageManagerName; evidence: string } {
  // Corepack's field ("pnpm@9.1.0") is what the project says it uses.
  const declared = typeof manifest['packageManager'] === 'string' ? /^(npm|pnpm|yarn|bun)@/.exec(manifest['packageManager'])?.[1] : undefined;
  if (declared !== undefined) return { name: declared as PackageManagerName, evidence: 'package.json packageManager' };
  const lockfile = LOCKFILES.find(({ file }) => existsSync(path.join(directory, file)));
  if (lockfile !== undefined) return { name: lockfile.name, evidence: lockfile.file };
  return { name: 'npm', evidence: 'package.json' };
}

function scriptsOf(manifest: Record<string, unknown>): { name: ProposedScript; command: string }[] {
  const scripts = manifest['scripts'];
  if (typeof scripts !== 'object' || scripts === null) return [];
  const defined = scripts as Record<string, unknown>;
  return PROPOSED_SCRIPTS.flatMap((name) => {
    const command = Object.hasOwn(defined, name) ? defined[name] : undefined;
    return typeof command === 'string' ? [{ name, command }] : [];
  });
}

/** `.git` (a directory, or the file a worktree or submodule has) here or in a directory above. */
function findGitDirectory(start: string): string | undefined {
  for (let directory = path.resolve(start); ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, '.git');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(directory) === directory) return undefined;
  }
}

function mentionsPytest(file: string): boolean {
  try {
    return /^\[(tool:pytest|tool\.pytest[^\]]*|pytest)\]/m.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

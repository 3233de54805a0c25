import type { BuildToolName, PackageManagerName, ProjectFacts, ProposedScript } from './detect-project.ts';

/**
 * A shell rule `toolgate init` proposes for what it found. `runsCode` rules
 * are written commented out, with why: they run the project's own code
 * (scripts, build files, tests), which the agent can change before it runs
 * them, so allowing them by default would let the agent run anything.
 */
export interface ProposedShellRule {
  match: string;
  decision: 'allow';
  /** What the command runs, said beside the rule. */
  note: string;
  runsCode: boolean;
}

/** A group of rules under one heading comment: what was found and why they are active or not. */
export interface ProposedRuleGroup {
  heading: string;
  rules: ProposedShellRule[];
}

/** How each package manager runs a package.json script. */
const SCRIPT_COMMANDS: Record<PackageManagerName, Record<ProposedScript, string>> = {
  npm: { test: 'npm test', build: 'npm run build', lint: 'npm run lint' },
  pnpm: { test: 'pnpm test', build: 'pnpm run build', lint: 'pnpm run lint' },
  yarn: { test: 'yarn test', build: 'yarn run build', lint: 'yarn run lint' },
  // `bun test` is bun's own test runner, not the script: `bun run test` is.
  bun: { test: 'bun run test', build: 'bun run build', lint: 'bun run lint' },
};

/** The build tools' commands, each running code the project's files define. */
const BUILD_RULES: Record<BuildToolName, readonly { match: string; note: string }[]> = {
  make: [{ match: 'make', note: 'runs the recipes in the Makefile' }],
  cargo: [
    { match: 'cargo build', note: 'runs build.rs and procedural macros' },
    { match: 'cargo test', note: 'builds and runs the tests' },
  ],
  go: [{ match: 'go test', note: 'builds and runs the tests' }],
  pytest: [{ match: 'pytest', note: 'runs the tests and conftest.py' }],
  maven: [{ match: 'mvn test', note: 'runs the build plugins and the tests' }],
};

/**
 * Git commands that only read the repository. The shell tool already judges
 * what could make them run code (a repository's fsmonitor, external diff,
 * pager or hooks settings) and asks then, so they can be allowed.
 */
const GIT_READ_RULES: readonly ProposedShellRule[] = [
  { match: 'git status', decision: 'allow', note: 'reads the working tree', runsCode: false },
  { match: 'git diff', decision: 'allow', note: 'reads changes', runsCode: false },
  { match: 'git log', decision: 'allow', note: 'reads history', runsCode: false },
];

/**
 * The rule groups `toolgate init` proposes for a project, in the order they
 * are written: git's reading commands (active), then the package manager's
 * scripts and the build tools (commented: they run the project's code).
 *
 * @example
 * proposeShellRules({ packageManager: { name: 'npm', evidence: 'package-lock.json', scripts: [{ name: 'test', command: 'vitest' }] }, buildTools: [], notes: [] })
 * // [{ heading: 'npm (package-lock.json) ...', rules: [{ match: 'npm test', decision: 'allow', note: 'runs scripts.test (vitest) and its pre/post scripts', runsCode: true }] }]
 */
export function proposeShellRules(facts: ProjectFacts): ProposedRuleGroup[] {
  const groups: ProposedRuleGroup[] = [];
  if (facts.git !== undefined) {
    groups.push({ heading: 'git: a repository is here. These only read it (the shell tool asks instead when the repository\'s settings would make git run programs)', rules: [...GIT_READ_RULES] });
  }
  const manager = facts.packageManager;
  if (manager !== undefined && manager.scripts.length > 0) {
    groups.push({
      heading: `${manager.name} (${manager.evidence}): each script runs the project's own code, which the agent can change first`,
      rules: manager.scripts.map(({ name, command }) => ({
        match: SCRIPT_COMMANDS[manager.name][name],
        decision: 'allow',
        note: `runs scripts.${name} (${command}) and its pre/post scripts`,
        runsCode: true,
      })),
    });
  }
  for (const tool of facts.buildTools) {
    groups.push({
      heading: `${tool.name} (${tool.file}): runs code the project's files define, which the agent can change first`,
      rules: BUILD_RULES[tool.name].map(({ match, note }) => ({ match, decision: 'allow', note, runsCode: true })),
    });
  }
  return groups;
}

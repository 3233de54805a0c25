import { closeSync, lstatSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { findPolicyFile } from '../../config/load-policy-file.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { parsePolicy } from '../../core/policy/parse-policy.ts';
import { detectSandbox, type SandboxDetection } from '../../sandbox/detect-sandbox.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { starterPolicy } from '../starter-policy.ts';

export const INIT_HELP = `Usage: toolgate init [--policy FILE] [--force]

Writes a starter policy for this project: ./toolgate.yaml, the built-in
default policy of \`toolgate run\` spelled out and commented (zones, shell
rules, sandbox, mode), ready to change. The sandbox line is chosen for this
machine: os: required where an OS sandbox works, else os: preferred.

Options:
  --policy FILE   where to write it (default: ./toolgate.yaml)
  --force         replace an existing file
  -h, --help      this help

Exit codes:
  0  written
  1  a policy file is already there (nothing written; --force replaces it)
  2  usage error
`;

export interface InitDependencies {
  /** How the sandbox is found (tests inject one). Default `detectSandbox`. */
  detectSandbox?: () => Promise<SandboxDetection>;
}

/**
 * `toolgate init`: writes a commented starter `toolgate.yaml`.
 *
 * @example
 * process.exitCode = await runInitCommand([], processIo());
 */
export async function runInitCommand(argv: string[], io: CliIo, dependencies: InitDependencies = {}): Promise<number> {
  const { values } = parseCommandLine({ argv, options: { policy: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) {
    io.stdout.write(INIT_HELP);
    return EXIT.ok;
  }
  const file = path.resolve(io.cwd, values.policy ?? 'toolgate.yaml');
  if (!/\.ya?ml$/.test(file)) throw new UsageError(`--policy must name a .yaml or .yml file, not ${JSON.stringify(values.policy)}`);
  // Another policy file beside it would be found first, or instead: say so rather than write a second one.
  const existing = entryExists(file) ? file : values.policy === undefined ? findPolicyFile(io.cwd) : undefined;
  if (existing !== undefined && values.force !== true) {
    io.stderr.write(`toolgate init: ${sanitizeTerminalText(existing)} is already there: nothing written (--force replaces it)\n`);
    return EXIT.blockedOrDenied;
  }
  const detection = await (dependencies.detectSandbox ?? (() => detectSandbox({ environment: { PATH: io.env.PATH ?? process.env.PATH } })))();
  const text = starterPolicy({ sandboxAvailable: detection.available });
  // The starter must load: a broken template would fail the person's first run.
  parsePolicy({ text, source: file });
  if (values.force === true) {
    // Replace the entry itself, never write through a symlink to wherever it points.
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text, { mode: 0o644, flag: 'wx' });
    renameSync(temporary, file);
  } else {
    // wx: never follows a symlink or replaces a file that appeared meanwhile.
    const descriptor = openSync(file, 'wx', 0o644);
    try {
      writeSync(descriptor, text);
    } finally {
      closeSync(descriptor);
    }
  }
  const safe = (value: string) => sanitizeTerminalText(value);
  io.stdout.write(`wrote ${safe(file)}\n`);
  io.stdout.write(
    detection.available
      ? `  sandbox: { os: required, fallback: refuse_tools }: an OS sandbox (${detection.kind}) works here\n`
      : `  sandbox: { os: preferred }: no OS sandbox here (${safe(detection.reason ?? 'unknown reason')})\n`,
  );
  io.stdout.write(`  edit it, try it with \`toolgate check --tool NAME --args JSON\`, and add .toolgate/ to .gitignore\n`);
  return EXIT.ok;
}

/** Whether anything is at `file`, a dangling symlink included (existsSync follows links). */
function entryExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * A change to a host's hook configuration, as install and uninstall make
 * it: the planned text shown as a diff (--dry-run stops there), the hook
 * probed before it is written (a hook that would block or pass every call
 * is not written), the file written whole or not at all, the hook's options
 * kept in toolgate's configuration, and what install created recorded, so
 * that uninstall removes exactly that.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import type { HostName } from '../../hooks/host-call.ts';
import { type HostHookCheck } from '../../hooks/host-hook-check.ts';
import { HostConfigError, hostConfigFile, planInstall, toolgateHandlerPositions, withoutCodexTrust, type InstallScope } from '../../hooks/host-install.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { hookArgs, hookSettingsFile, setHookArgs } from '../../hooks/hook-settings.ts';
import { createdByInstall, forgetCreated, recordCreated } from '../../hooks/install-records.ts';


/**
 * Applies one planned change to a host's configuration; the exit code.
 *
 * @example
 * return change({ io, host, scope, dryRun, plan: (file, text) => planInstall({ file, text, host, handler }), install: true });
 */
export async function change(options: {
  io: CliIo;
  host: HostName;
  scope: InstallScope;
  dryRun: boolean;
  plan: (file: string, text: string | undefined) => { text: string; changed: boolean; replaced: number };
  probe?: (file: string) => Promise<HostHookCheck>;
  /** The hook's options kept in toolgate's configuration (Codex): in place while the probe runs, and put back unless the hook is written; undefined args removes them. */
  options?: { host: HostName; args: readonly string[] | undefined };
  install: boolean;
}): Promise<number> {
  const { io, host } = options;
  const safe = (text: string) => sanitizeTerminalText(text, { keepNewlines: true, collapse: true });
  let file: string;
  try {
    file = hostConfigFile({ host, scope: options.scope, cwd: io.cwd, env: io.env });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  let planned;
  try {
    planned = options.plan(file, before);
  } catch (error) {
    if (!(error instanceof HostConfigError)) throw error;
    io.stderr.write(`toolgate ${options.install ? 'install' : 'uninstall'}: ${safe(error.message)}\n`);
    return 1;
  }
  let kept: { before: string[] | undefined; changed: boolean } | undefined;
  if (options.options !== undefined) {
    try {
      const before = hookArgs({ host, env: io.env });
      kept = { before, changed: JSON.stringify(before) !== JSON.stringify(options.options.args) };
      if (kept.changed) setHookArgs({ host, env: io.env, args: options.options.args });
    } catch (error) {
      io.stderr.write(`toolgate ${options.install ? 'install' : 'uninstall'}: ${safe((error as Error).message)}\n`);
      return 1;
    }
  }
  const putBack = () => {
    if (kept?.changed === true) setHookArgs({ host, env: io.env, args: kept.before });
  };
  const probe = await options.probe?.(file);
  if (probe !== undefined && probe.state !== 'live') {
    putBack();
    io.stderr.write(`toolgate install: the hook does not work, so ${planned.changed || kept?.changed === true ? 'nothing was written' : `the one in ${file} does not either`}: ${safe(probe.detail)}\n\thook: ${safe(probe.command ?? '')}\n`);
    return 1;
  }
  const newArgs = options.options?.args;
  const settingsLine = kept?.changed !== true ? undefined : newArgs === undefined ? `removed the hook's options from ${hookSettingsFile(io.env)}` : `the hook's options in ${hookSettingsFile(io.env)}: ${newArgs.length > 0 ? newArgs.join(' ') : '(none: the defaults)'}`;
  if (options.dryRun && settingsLine !== undefined) {
    putBack();
    io.stdout.write(`--dry-run: ${settingsLine} (not written)\n`);
    if (!planned.changed) return EXIT.ok;
  }
  if (!planned.changed) {
    if (settingsLine !== undefined) {
      // The entry is as it was (Codex's trust of it holds): only the options changed.
      io.stdout.write(
        options.install
          ? `${file} already has this hook${host === 'codex' ? ', so Codex\'s trust of it holds' : ''}; ${settingsLine}${probe === undefined ? '' : `; ${probe.detail}`}\n`
          : `${file}: ${before === undefined ? 'no such file' : 'no toolgate hook in it'}; ${settingsLine}\n`,
      );
      return EXIT.ok;
    }
    io.stdout.write(options.install ? `${file} already has this hook: nothing to change\n` : `${file}: ${before === undefined ? 'no such file' : 'no toolgate hook in it'}: nothing to change\n`);
    return EXIT.ok;
  }
  io.stdout.write(safe(createTwoFilesPatch(file, file, before ?? '', planned.text, before === undefined ? '(new file)' : 'before', 'after')));
  if (options.dryRun) {
    io.stdout.write('--dry-run: nothing written\n');
    return EXIT.ok;
  }
  const created = createdByInstall({ file, env: io.env });
  // Uninstall leaves nothing of install's: a file it created that now holds only {} goes, with the folders it made for it; so
  // does toolgate's opencode plugin, a file of toolgate's own (its plan is the empty text).
  if (!options.install && ((created !== undefined && planned.text.trim() === '{}') || (host === 'opencode' && planned.text === ''))) {
    try {
      rmSync(file);
      const removedDirectories = removeEmptyDirectories(created?.directories ?? []);
      forgetCreated({ file, env: io.env });
      io.stdout.write(`removed ${file}${removedDirectories.length > 0 ? ` and ${removedDirectories.join(', ')}` : ''}, which toolgate install had ${created === undefined ? 'written' : 'created'}\n`);
    } catch (error) {
      putBack();
      io.stderr.write(`toolgate uninstall: could not remove ${file}: ${safe((error as Error).message)}\n`);
      return 1;
    }
    afterUninstall({ io, host, file, before });
    if (settingsLine !== undefined) io.stdout.write(`${settingsLine}\n`);
    return EXIT.ok;
  }
  let madeDirectories: string[];
  try {
    madeDirectories = writeAtomically(file, planned.text);
  } catch (error) {
    putBack();
    const asRoot = options.scope === 'managed' && ['EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '') ? ' (managed settings are written as root: run it with sudo)' : '';
    io.stderr.write(`toolgate ${options.install ? 'install' : 'uninstall'}: could not write ${file}: ${safe((error as Error).message)}${asRoot}\n`);
    return 1;
  }
  io.stdout.write(`${options.install ? 'wrote' : 'removed toolgate\'s hook from'} ${file}${planned.replaced > 0 && options.install ? ` (replacing toolgate's earlier hook)` : ''}${probe === undefined ? '' : `; ${probe.detail}`}\n`);
  if (settingsLine !== undefined) io.stdout.write(`${settingsLine}\n`);
  // What install created is recorded, for uninstall; a file that holds more than the hook now is the user's.
  try {
    if (options.install && before === undefined) recordCreated({ file, directories: madeDirectories, env: io.env });
    else if (!options.install && created !== undefined) forgetCreated({ file, env: io.env });
  } catch (error) {
    io.stderr.write(`toolgate ${options.install ? 'install' : 'uninstall'}: note: could not record what was created (${safe((error as Error).message)}): uninstall will leave ${file} in place\n`);
  }
  if (!options.install) afterUninstall({ io, host, file, before });
  if (options.install && host === 'codex') {
    io.stdout.write(
      planned.replaced > 0
        ? 'WARNING: Codex\'s hook entry changed, and Codex trusts a hook by a hash of its entry: until you trust it again (Codex\'s hook review, or codex exec --dangerously-bypass-hook-trust), Codex runs every call WITHOUT toolgate, saying nothing. `toolgate doctor` says when Codex trusts it.\n'
        : 'Codex runs a hook only once it is trusted: review it in Codex (its hooks review), or run codex exec --dangerously-bypass-hook-trust. `toolgate doctor` checks the hook answers and Codex trusts it.\n',
    );
  }
  return EXIT.ok;
}

/**
 * After toolgate's hook is out of `file`: Codex's trust entries for it go
 * from its config.toml (they would otherwise trust whatever hook takes its
 * place there with the same hash), and what uninstall leaves is said.
 */
function afterUninstall(options: { io: CliIo; host: HostName; file: string; before: string | undefined }): void {
  const { io } = options;
  const safe = (text: string) => sanitizeTerminalText(text, { collapse: true });
  if (options.host === 'codex') {
    const config = path.join(path.dirname(options.file), 'config.toml');
    const positions = toolgateHandlerPositions({ file: options.file, text: options.before, host: options.host });
    try {
      const text = existsSync(config) ? readFileSync(config, 'utf8') : undefined;
      const edited = text === undefined ? undefined : withoutCodexTrust({ text, hooksFile: options.file, positions });
      if (edited !== undefined && edited.removed > 0) {
        writeAtomically(config, edited.text);
        io.stdout.write(`removed Codex's trust of the hook from ${config}\n`);
      }
    } catch (error) {
      io.stderr.write(`toolgate uninstall: could not remove Codex's trust of the hook from ${config}: ${safe((error as Error).message)}\n`);
    }
  }
  io.stdout.write('left as they are: your policies and their trust (toolgate trust --list), TOOLGATE_TOKEN wherever you set it, and any token on a toolgate server (toolgate token list / revoke NAME)\n');
}

/** Removes `directories` (outermost first, as recorded) from the innermost out, while each is empty; the ones removed. */
function removeEmptyDirectories(directories: readonly string[]): string[] {
  const removed: string[] = [];
  for (const directory of [...directories].reverse()) {
    try {
      rmdirSync(directory);
      removed.push(directory);
    } catch {
      // Not empty (the user keeps something there), or gone: left, and so is every folder above it.
      break;
    }
  }
  return removed;
}

/**
 * Written to a file beside it, synced, then renamed over it: the host never
 * reads half a file. The old file's mode is kept. Returns the folders it had
 * to create, outermost first.
 */
function writeAtomically(file: string, text: string): string[] {
  const first = mkdirSync(path.dirname(file), { recursive: true });
  const made: string[] = [];
  for (let directory = path.dirname(file); first !== undefined && directory.length >= first.length; directory = path.dirname(directory)) made.unshift(directory);
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const temporary = `${file}.toolgate-${process.pid}.tmp`;
  const descriptor = openSync(temporary, 'wx', mode);
  try {
    writeSync(descriptor, text);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, file);
  return made;
}

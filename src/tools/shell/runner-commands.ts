/**
 * Runners the wrapper grammar does not unwrap: package runners (`npx`,
 * `npm exec`, `pnpm dlx`, `uv run`, `yarn <bin>`, `poetry run`, `bundle
 * exec`...) and programs that set up an environment and run a command
 * (`cross-env`, `dotenv`, `op run`, `aws-vault exec`...): which command each
 * one runs from its arguments, so that a block or ask rule reaches it.
 */
import { isOptionLike, type CommandReading } from './command-reading.ts';
import { runner, type RunnerForm } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import { NPX_VALUED } from './commands/npm.ts';
import type { ShellWord } from './shell-word.ts';

const RUNNERS: ReadonlyMap<string, readonly RunnerForm[]> = new Map([
  // Package runners.
  ['npx', [runner('', NPX_VALUED, { code: '-c --call' })]],
  ['pnpx', [runner('', NPX_VALUED, { code: '-c --call' })]],
  ['bunx', [runner('', '-p --package --cwd')]],
  ['uvx', [runner('', '--from --with --with-requirements --python -p --index-url --extra-index-url --index --default-index')]],
  ['pnpm', [runner('exec', '-C --dir -F --filter'), runner('dlx', '--package -p'), runner('*', '-C --dir -F --filter')]],
  ['yarn', [runner('exec', '--cwd'), runner('dlx', '-p --package'), runner('run', '--cwd'), runner('*', '--cwd')]],
  ['bun', [runner('x', '-p --package --cwd'), runner('run', '--cwd -F --filter --env-file -r --preload'), runner('*', '--cwd --env-file -r --preload'), runner('exec', '', { codeArgument: true })]],
  ['uv', [runner('run', '--with --with-requirements --python -p --directory --project --package --env-file --index-url --extra-index-url --index --default-index'), runner('tool run', '--from --with --python -p')]],
  ['pipx', [runner('run', '--spec --python --pip-args')]],
  ['poetry', [runner('run', '-C --directory -P --project')]],
  ['pipenv', [runner('run', '')]],
  ['pdm', [runner('run', '-p --project')]],
  ['rye', [runner('run', '--pyproject')]],
  ['hatch', [runner('run', '-e --env')]],
  ['conda', [runner('run', '-n --name -p --prefix --cwd')]],
  ['mamba', [runner('run', '-n --name -p --prefix --cwd')]],
  ['bundle', [runner('exec', '--gemfile')]],
  ['mise', [runner('exec', '-C --cd -j --jobs'), runner('x', '-C --cd -j --jobs')]],
  ['asdf', [runner('exec', '')]],
  ['devbox', [runner('run', '-c --config -e --env --env-file')]],
  // Programs that set up the environment and run a command.
  ['cross-env', [runner('', '', { assignments: true })]],
  ['cross-env-shell', [runner('', '', { assignments: true, codeArgument: true })]],
  ['dotenv', [runner('', '-e -c -v -p')]],
  ['env-cmd', [runner('', '-f --file -e --environments -r --rc-file')]],
  ['concurrently', [runner('', '-n --names -c --prefix-colors -p --prefix -k --kill-others -s --success', { codeArgument: true })]],
  ['op', [runner('run', '--env-file')]],
  ['doppler', [runner('run', '-p --project -c --config --token', { code: '--command' })]],
  ['infisical', [runner('run', '--env --path --projectId --token', { code: '--command' })]],
  ['aws-vault', [runner('exec', '-d --duration --region', { operands: 1 })]],
  ['nix-shell', [runner('', '-p --packages -I -A --attr', { code: '--run --command' })]],
  // `python -m pip install x` is pip; a script it runs may run anything named after it.
  ['python', [runner('', '-W -X --check-hash-based-pycs', { module: '-m' })]],
]);

/**
 * The ways a program runs a command named in its arguments, for the
 * package runners the wrapper grammar does not unwrap.
 *
 * @example
 * runnerForms('npm')[0]?.path // ['exec']
 */
export function runnerForms(name: string): readonly RunnerForm[] {
  return commandModel(name)?.runners ?? RUNNERS.get(/^python[0-9.]*$/.test(name) ? 'python' : name) ?? [];
}

/** A command a package runner runs: where its words start, or unknown (code in a string, a word computed at run time). */
export type RunnerCommand = { start: number; via: string } | { start: undefined; via: string };

/**
 * The commands a package runner (`npx`, `npm exec`, `pnpm dlx`, `uv run`,
 * `yarn <bin>`...) runs from its arguments, under any reading: the wrapper
 * grammar does not unwrap these, so rules look inside them here.
 *
 * @example
 * runnerCommands({ name: 'npx', words, readings: undefined }) // npx git push → [{ start: 1, via: 'run by npx' }]
 */
export function runnerCommands(options: { name: string; words: readonly ShellWord[]; readings: readonly CommandReading[] | undefined }): RunnerCommand[] {
  const { name, words } = options;
  const found: RunnerCommand[] = [];
  for (const form of runnerForms(name)) {
    const via = `run by ${[name, ...form.path].join(' ')}`;
    const starts: number[] = [];
    if (form.path.length === 0) starts.push(1);
    else if (form.path[0] === '*') {
      for (const reading of options.readings ?? []) if (reading.open && words[reading.stop]?.kind === 'static') starts.push(reading.stop);
    } else if (options.readings !== undefined) {
      for (const reading of options.readings) if (reading.path.join(' ') === form.path.join(' ')) starts.push(reading.rest);
    } else {
      // No grammar for it (uv, pipx): its subcommand words right after the name.
      if (form.path.every((word, at) => words[at + 1]?.kind === 'static' && words[at + 1]!.value === word)) starts.push(form.path.length + 1);
    }
    for (const start of new Set(starts)) {
      if (form.path[0] === '*') {
        found.push({ start, via: `run by ${name} (${words[start]!.value} may be a package's program)` });
        continue;
      }
      found.push(innerStart({ words, start, form, via }));
    }
  }
  return found;
}

function innerStart(options: { words: readonly ShellWord[]; start: number; form: RunnerForm; via: string }): RunnerCommand {
  const { words, form, via } = options;
  let operands = form.operands;
  for (let index = options.start; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'static') return { start: undefined, via: `${via}: ${word.text} is only known at run time` };
    const value = word.value;
    if (value === '--') return index + 1 < words.length ? checked(index + 1) : { start: words.length, via };
    if (!isOptionLike(value)) {
      if (operands > 0) {
        operands--;
        continue;
      }
      if (form.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) continue;
      return checked(index);
    }
    const option = value.split('=')[0]!;
    if (form.code.has(option)) return { start: undefined, via: `${via} ${option}: it runs shell code given as a string` };
    if (form.module !== undefined && option.startsWith(form.module)) {
      // `-m pip` runs the module pip; `-mpip` (attached) is not followed.
      return option === form.module && index + 1 < words.length ? checked(index + 1) : { start: undefined, via: `${via} ${value}: it runs a module` };
    }
    if (form.module !== undefined && /^-[A-Za-z]+$/.test(value)) {
      // Python code (`-c`) is the interpreter's, not a command; a module in a cluster (`-Im pip`) is not followed.
      if (value.includes('c')) return { start: words.length, via };
      if (value.includes('m')) return { start: undefined, via: `${via} ${value}: it runs a module` };
    }
    if (form.valued.has(option) && !value.includes('=')) index++;
  }
  return { start: words.length, via };

  function checked(index: number): RunnerCommand {
    return form.codeArgument ? { start: undefined, via: `${via}: it runs shell code given as a string` } : { start: index, via };
  }
}

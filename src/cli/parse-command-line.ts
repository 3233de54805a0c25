import type { ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from './usage-error.ts';

/**
 * `node:util` parseArgs with answers a person can act on: an unknown flag is
 * answered with the nearest known one ("did you mean --mode?"), a flag
 * without its value and a stray argument say so in plain words, instead of
 * Node's parser message. Throws `UsageError` (exit code 2).
 *
 * @example
 * const { values } = parseCommandLine({ argv: ['--mdoe', 'strict'], options: { mode: { type: 'string' } } });
 * // throws UsageError: unknown option --mdoe: did you mean --mode?
 */
export function parseCommandLine<Options extends ParseArgsOptionsConfig>(input: { argv: string[]; options: Options; allowPositionals?: boolean; allowNegative?: boolean }) {
  // From the module object, not an ESM import: the import's facade reads every export of node:util (2 ms of each command's start, a hook's per tool call).
  const { parseArgs } = process.getBuiltinModule('node:util');
  try {
    return parseArgs({
      args: input.argv,
      strict: true,
      allowPositionals: input.allowPositionals ?? false,
      ...(input.allowNegative === true ? { allowNegative: true } : {}),
      options: input.options,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !code.startsWith('ERR_PARSE_ARGS')) throw error;
    throw new UsageError(explainParseError({ message: (error as Error).message, code, argv: input.argv, options: input.options }), { code });
  }
}

function explainParseError(options: { message: string; code: string; argv: readonly string[]; options: ParseArgsOptionsConfig }): string {
  const known = Object.entries(options.options).flatMap(([name, config]) => [`--${name}`, ...(config.short === undefined ? [] : [`-${config.short}`])]);
  if (options.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    // Node quotes the flag as it was typed: 'Unknown option '--mdoe'.'
    const typed = /'(-[^']*)'/.exec(options.message)?.[1] ?? '?';
    const flag = typed.split('=')[0]!;
    const suggestion = nearestFlag(flag, known);
    return `unknown option ${flag}${suggestion === undefined ? '' : `: did you mean ${suggestion}?`}`;
  }
  if (options.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const typed = /'(-[^' ]*)/.exec(options.message)?.[1];
    const name = typed?.replace(/^-+/, '');
    const config = name === undefined ? undefined : (options.options[name] ?? Object.values(options.options).find((entry) => entry.short === name));
    if (typed !== undefined && config?.type === 'string') return `${typed} needs a value: ${typed} VALUE`;
    if (typed !== undefined) return `${typed} takes no value`;
  }
  if (options.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const stray = /'([^']*)'/.exec(options.message)?.[1];
    return `unexpected argument ${JSON.stringify(stray ?? '?')}: this command takes only options`;
  }
  return options.message;
}

/**
 * The known flag nearest to `flag`, when near enough to be a typo (a few
 * edits, or a prefix: --approve for --approve-all).
 *
 * @example
 * nearestFlag('--mdoe', ['--mode', '--model']) // '--mode'
 */
export function nearestFlag(flag: string, known: readonly string[]): string | undefined {
  const name = nearestName(flag.replace(/^-+/, ''), known.filter((candidate) => candidate.startsWith('--')).map((candidate) => candidate.slice(2)));
  return name === undefined ? undefined : `--${name}`;
}

/**
 * The candidate nearest to `word`, when near enough to be a typo.
 *
 * @example
 * nearestName('rnu', ['run', 'check']) // 'run'
 */
export function nearestName(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  if (best !== undefined && best.distance <= Math.max(1, Math.min(2, Math.floor(word.length / 3)))) return best.name;
  return word.length >= 3 ? candidates.find((candidate) => candidate.startsWith(word)) : undefined;
}

/** Edit distance where a swapped pair of neighbours counts as one edit (--mdoe). */
function editDistance(a: string, b: string): number {
  const table = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = table[i]!;
      row[j] = Math.min(table[i - 1]![j]! + 1, row[j - 1]! + 1, table[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, table[i - 2]![j - 2]! + 1);
    }
  }
  return table[a.length]![b.length]!;
}

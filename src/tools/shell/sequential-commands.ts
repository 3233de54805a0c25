/**
 * The order in which the simple commands of a plain command line run, when
 * it is certain: a list of statements (`;`, newlines, `&&`, `||`) each of
 * which is one simple command, run one after the other in the order they
 * are written. Pipelines and background jobs run at the same time, loops
 * run their bodies again, functions run later, and a command inside a
 * substitution runs in the middle of another: with any of these in the
 * line, no order is claimed at all.
 */
import { parse, type Command, type PipelineNode, type AndOr } from 'unbash';

/**
 * Each top-level simple command's text (as the analysis shows it) mapped to
 * its place in the line; undefined when the line is not such a plain list,
 * or when two commands have the same text (they could not be told apart).
 *
 * @example
 * sequentialOrder('cd src && npm test; ls') // Map { 'cd src' => 0, 'npm test' => 1, 'ls' => 2 }
 * sequentialOrder('ln -s x y | cat y')       // undefined: a pipeline runs its parts at once
 */
export function sequentialOrder(source: string): Map<string, number> | undefined {
  let script;
  try {
    script = parse(source);
  } catch {
    return undefined;
  }
  if ((script.errors?.length ?? 0) > 0 || script.source !== undefined) return undefined;
  const order = new Map<string, number>();
  for (const statement of script.commands) {
    if (statement.background === true) return undefined;
    const node: PipelineNode | AndOr = statement.command;
    const commands: readonly PipelineNode[] = node.type === 'AndOr' ? node.commands : [node];
    for (const command of commands) {
      if (command.type !== 'Command' || hasSubstitution(source, command)) return undefined;
      const text = source.slice(command.pos, command.end);
      if (order.has(text)) return undefined;
      order.set(text, order.size);
    }
  }
  return order;
}

/** Substitutions (`$(…)`, backquotes, `<(…)`) run commands in the middle of this one. */
function hasSubstitution(source: string, command: Command): boolean {
  return /\$\(|`|<\(|>\(/.test(source.slice(command.pos, command.end));
}

/**
 * The pure half of the shell tool: a command line in, every simple command
 * it can run out (with normalised names, words, hazards and where each one
 * sits), plus every redirection and every construct that needs a person
 * whatever the rules say. Lists, pipelines, subshells, groups, if/while/for/
 * case bodies, functions, command and process substitutions, heredocs,
 * `bash -c`/`eval`/`trap`/`alias` payloads (parsed again, depth-limited) and
 * the commands wrappers run are all walked. No filesystem, no policy.
 */
import path from 'node:path';
import { forEachChild, parse, type Assignment, type Command, type ParsedScript, type Redirection, type SyntaxNode } from 'unbash';
import { commandSemantics } from './command-semantics.ts';
import type { AppendedNames } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import { hazardAt } from './hazard.ts';
import { hasOptionHazards } from './option-hazards.ts';
import { isSensitiveVariable } from './sensitive-variables.ts';
import { shellWord, type ShellWord } from './shell-word.ts';
import { isWrapper } from './wrapper-commands.ts';

import type { AnalysisConcern, AnalyzedCommand, AnalyzedRedirection, CommandAnalysis, CwdState } from './command-analysis.ts';

export type { AnalysisConcern, AnalyzedCommand, AnalyzedRedirection, CommandAnalysis, CwdState } from './command-analysis.ts';

export const MAX_PAYLOAD_DEPTH = 4;
/** Beyond this many simple commands the analysis stops and asks. */
export const MAX_COMMANDS = 2000;

interface Frame {
  source: string;
  via: string | undefined;
  explicitOnly: boolean;
  depth: number;
  /** Set for the commands a wrapper runs in another directory. */
  cwdOverride?: CwdState;
  /**
   * This part's standard input: the simple command piped into it, `unknown`
   * (a compound stage, a redirected loop), or, when absent, the tool's own
   * standard input, which is empty (`/dev/null`).
   */
  stdinFrom?: AnalyzedCommand | 'unknown';
}

const INTEGER = /^(0[xX][0-9a-fA-F]+|[0-9]+|[0-9]+#[0-9A-Za-z@_]+)$/;
const ARITHMETIC_TEST = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const LOOPS = new Set(['For', 'Select', 'While', 'ArithmeticFor', 'Function']);
const CHANGES_DIRECTORY = /\b(cd|pushd|popd)\b/;

/**
 * Analyses a command line. Never throws for any input: what cannot be
 * parsed or followed becomes a concern (which asks).
 *
 * @example
 * const { commands } = analyzeCommand('git status && /bin/rm -rf x');
 * commands.map((command) => command.name) // ['git', 'rm']
 */
export function analyzeCommand(source: string): CommandAnalysis {
  const analyzer = new Analyzer();
  try {
    const script = parse(source);
    analyzer.statements = script.commands.length;
    analyzer.script(script, { source, via: undefined, explicitOnly: false, depth: 0 });
  } catch (error) {
    analyzer.concern({ subject: source, reason: `the command line could not be analysed (${error instanceof Error ? error.message : String(error)})`, via: undefined });
  }
  return analyzer.finish();
}

class Analyzer {
  readonly commands: AnalyzedCommand[] = [];
  readonly redirections: AnalyzedRedirection[] = [];
  readonly concerns: AnalysisConcern[] = [];
  readonly defined = new Set<string>();
  cwd: CwdState = { kind: 'initial' };
  stopped = false;
  statements = 0;

  finish(): CommandAnalysis {
    for (const command of this.commands) {
      if (command.name !== undefined && this.defined.has(command.name)) {
        command.hazards.push(hazardAt({ index: undefined, kind: 'exec', reason: `${command.name} is redefined (as a function or alias) in this command line, so it is not the ${command.name} the rules mean` }));
      }
    }
    return { statements: this.statements, commands: this.commands, redirections: this.redirections, concerns: this.concerns };
  }

  concern(concern: AnalysisConcern): void {
    this.concerns.push(concern);
  }

  script(script: ParsedScript, frame: Frame): void {
    // Backtick scripts own a decoded source that their positions index.
    const inner = script.source === undefined ? frame : { ...frame, source: script.source };
    for (const error of script.errors ?? []) {
      this.concern({ subject: inner.source, reason: `the command line does not parse: ${error.message} (at ${error.pos})`, via: frame.via });
    }
    for (const statement of script.commands) this.walk(statement, inner);
  }

  walk(node: SyntaxNode, frame: Frame): void {
    if (this.stopped) return;
    switch (node.type) {
      case 'Command':
        this.simpleCommand(node, frame);
        return;
      case 'Pipeline': {
        // Each stage reads the one before it; the first reads whatever the pipeline reads.
        let producer = frame.stdinFrom;
        for (const stage of node.commands) {
          const start = this.commands.length;
          this.walk(stage, producer === frame.stdinFrom ? frame : { ...frame, stdinFrom: producer });
          const text = slice(frame, stage);
          producer = (stage.type === 'Command' ? this.commands.slice(start).find((command) => command.text === text && command.via === frame.via) : undefined) ?? 'unknown';
        }
        return;
      }
      case 'Redirected':
        // `while read f; do xargs cat; done < list`: the body reads the file.
        this.walk(node.command, node.redirects.some(readsStandardInput) ? { ...frame, stdinFrom: 'unknown' } : frame);
        for (const redirect of node.redirects) this.redirection(redirect, frame, slice(frame, node), []);
        return;
      case 'Function':
        this.defined.add(node.name.value);
        this.concern({ subject: `${node.name.text}() { … }`, reason: `defines the function ${node.name.text}, which can replace any command of that name`, via: frame.via });
        this.loop(node, frame);
        return;
      case 'For':
      case 'Select':
      case 'While':
      case 'ArithmeticFor':
        this.loop(node, frame);
        return;
      case 'CommandExpansion':
      case 'ProcessSubstitution':
      case 'ArithmeticCommandExpansion': {
        const via = node.type === 'ProcessSubstitution' ? `inside ${node.operator}(…)` : 'inside $(…)';
        const nested = { ...frame, via: chain(via, frame.via), explicitOnly: true };
        if (node.script === undefined) this.concern({ subject: node.text, reason: 'the substitution could not be parsed', via: frame.via });
        else this.script(node.script, nested);
        return;
      }
      case 'ArithmeticCommand':
      case 'ArithmeticExpansion':
        if (node.expression === undefined) this.concern({ subject: slice(frame, node), reason: 'the arithmetic could not be parsed', via: frame.via });
        break;
      case 'ArithmeticWord':
        if (node.parts !== undefined || !INTEGER.test(node.value)) {
          this.concern({ subject: node.value, reason: 'arithmetic on a variable evaluates the variable\'s value as an expression, and array subscripts in it run command substitutions', via: frame.via });
        }
        break;
      case 'ParameterExpansion':
        this.parameterExpansion(node, frame);
        break;
      case 'TestBinary':
        if (ARITHMETIC_TEST.has(node.operator) && ![node.left, node.right].every((word) => word.parts === undefined && INTEGER.test(word.value))) {
          this.concern({ subject: `${node.left.text} ${node.operator} ${node.right.text}`, reason: `[[ ${node.operator} ]] evaluates its operands as arithmetic, which can run command substitutions hidden in variables`, via: frame.via });
        }
        break;
      case 'TestUnary':
        if (node.operator === '-v' && (node.operand.parts !== undefined || node.operand.value.includes('['))) {
          this.concern({ subject: `-v ${node.operand.text}`, reason: '[[ -v ]] evaluates array subscripts, which can run command substitutions', via: frame.via });
        }
        break;
    }
    forEachChild(node, (child) => this.walk(child, frame));
  }

  /** A loop body (or a function body) can run many times: a `cd` in it makes every directory after it unknown. */
  loop(node: SyntaxNode, frame: Frame): void {
    if (LOOPS.has(node.type) && CHANGES_DIRECTORY.test(slice(frame, node))) this.cwd = { kind: 'unknown' };
    forEachChild(node, (child) => this.walk(child, frame));
  }

  parameterExpansion(node: Extract<SyntaxNode, { type: 'ParameterExpansion' }>, frame: Frame): void {
    const indirect = node.prefix === '!' && node.operation?.type !== 'Names' && node.index === undefined;
    if (indirect) this.concern({ subject: node.text, reason: 'indirect expansion evaluates the array subscript a variable may hold, running command substitutions in it', via: frame.via });
    const index = node.index;
    if (index !== undefined && !(index.parts === undefined && (INTEGER.test(index.value) || index.value === '@' || index.value === '*'))) {
      this.concern({ subject: node.text, reason: 'an array subscript is evaluated as arithmetic, which can run command substitutions hidden in variables', via: frame.via });
    }
    const operation = node.operation;
    if (operation?.type === 'Transform' && (operation.operand.parts !== undefined || operation.operand.value.includes('P'))) {
      this.concern({ subject: node.text, reason: '${…@P} expands the value like a prompt, running any command substitution in it', via: frame.via });
    }
    if (operation?.type === 'Slice' && ![operation.offset, operation.length].every((word) => word === undefined || (word.parts === undefined && /^\s*-?\s*[0-9]+\s*$/.test(word.value)))) {
      this.concern({ subject: node.text, reason: 'a substring offset is evaluated as arithmetic, which can run command substitutions hidden in variables', via: frame.via });
    }
  }

  simpleCommand(node: Command, outer: Frame): void {
    const text = slice(outer, node);
    const inputs: ShellWord[] = [];
    // `xargs cat <<< /etc/shadow`: its input is the here-string, not the pipe.
    const frame = node.redirects.some(readsStandardInput) ? { ...outer, stdinFrom: 'unknown' as const } : outer;
    for (const item of node.prefix) {
      if (item.type === 'Assignment') this.assignment(item, frame, text);
      else this.redirection(item, frame, text, inputs);
    }
    const words: ShellWord[] = [];
    if (node.name !== undefined) {
      words.push(shellWord(node.name));
      this.walk(node.name, frame);
    }
    for (const item of node.suffix) {
      if (item.type === 'Word') {
        words.push(shellWord(item));
        this.walk(item, frame);
      } else if (item.type === 'Assignment') {
        words.push(assignmentWord(item));
        forEachChild(item, (child) => this.walk(child, frame));
      } else {
        this.redirection(item, frame, text, inputs);
      }
    }
    if (words.length > 0) this.command({ text, words, frame, inputs, appendsArguments: false, appendedFrom: undefined, appendedNames: undefined });
  }

  assignment(item: Assignment, frame: Frame, command: string): void {
    forEachChild(item, (child) => this.walk(child, frame));
    if (isSensitiveVariable(item.name)) {
      this.concern({ subject: command, reason: `sets ${item.name}, which can change what commands run or load`, via: frame.via });
    }
    if (item.index !== undefined && !(item.index.parts === undefined && INTEGER.test(item.index.value))) {
      this.concern({ subject: item.text, reason: 'an array subscript is evaluated as arithmetic, which can run command substitutions hidden in variables', via: frame.via });
    }
  }

  redirection(item: Redirection, frame: Frame, command: string, inputs: ShellWord[]): void {
    forEachChild(item, (child) => this.walk(child, frame));
    if (item.type !== 'Redirect') return;
    if (item.target === undefined) {
      this.concern({ subject: slice(frame, item), reason: 'a redirection without a target', via: frame.via });
      return;
    }
    const target = shellWord(item.target);
    const duplicate = target.kind === 'static' && /^([0-9]+-?|-)$/.test(target.value);
    let operation: 'read' | 'write' | undefined;
    switch (item.operator) {
      case '<':
        operation = 'read';
        inputs.push(target);
        break;
      case '<&':
        operation = duplicate ? undefined : 'read';
        break;
      case '>&':
        operation = duplicate ? undefined : 'write';
        break;
      default:
        operation = 'write';
    }
    if (operation === undefined) return;
    this.redirections.push({ text: slice(frame, item), command, operation, target, cwd: frame.cwdOverride ?? this.cwd, via: frame.via });
  }

  command(options: {
    text: string;
    words: ShellWord[];
    frame: Frame;
    inputs: ShellWord[];
    appendsArguments: boolean;
    appendedFrom: AnalyzedCommand | 'empty-input' | undefined;
    appendedNames: AppendedNames | undefined;
  }): void {
    const { words, frame } = options;
    if (this.commands.length >= MAX_COMMANDS) {
      this.stopped = true;
      this.concern({ subject: options.text, reason: `the command line has more than ${MAX_COMMANDS} commands; not analysed further`, via: frame.via });
      return;
    }
    const base = { text: options.text, words, via: frame.via, explicitOnly: frame.explicitOnly, appendsArguments: options.appendsArguments, appendedFrom: options.appendedFrom, appendedNames: options.appendedNames, inputs: options.inputs, piped: typeof frame.stdinFrom === 'object', pipedFrom: typeof frame.stdinFrom === 'object' ? frame.stdinFrom.name : undefined, cwd: frame.cwdOverride ?? this.cwd };
    const nameWord = words[0]!;
    if (nameWord.kind !== 'static') {
      const reason = `the command name ${nameWord.text} is only known at run time`;
      this.commands.push({ ...base, name: undefined, written: undefined, role: 'plain', roleReason: undefined, hazards: [hazardAt({ index: undefined, kind: 'unknown', reason })] });
      return;
    }
    const written = nameWord.value;
    const name = written.includes('/') ? path.posix.basename(path.posix.normalize(written)) : written;
    const semantics = commandSemantics({ name, words });
    const hazards = [...semantics.hazards];
    if (options.appendsArguments && (semantics.role !== 'plain' || isWrapper(name) || hasOptionHazards(name))) {
      // `echo 'rm x' | xargs env`, `xargs git` fed `-c core.pager=sh`: the input picks what runs.
      hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${name} receives arguments from its input, which can be options or a command to run` }));
    }
    if (!/^[\x21-\x7e]+$/.test(written)) {
      hazards.unshift(hazardAt({ index: undefined, kind: 'unknown', reason: `the command name ${JSON.stringify(written)} has characters outside printable ASCII (look-alike or invisible characters)` }));
    }
    const analyzed: AnalyzedCommand = { ...base, name, written, role: semantics.role, roleReason: semantics.roleReason, hazards };
    this.commands.push(analyzed);
    // find -exec appends find's matches; xargs appends its input, which is the piped command unless it reads a file (`< file`, `-a file`).
    const own = semantics.inner.length === 0 ? words : words.slice(0, words.length - semantics.inner[0]!.words.length);
    const readsFile = options.inputs.length > 0 || own.some((word) => /^-[^-]*a/.test(word.value) || word.value.startsWith('--a'));
    const stdin = frame.stdinFrom ?? 'empty-input';
    const source = commandModel(name)?.lists !== undefined ? analyzed : name === 'xargs' && !readsFile && stdin !== 'unknown' ? stdin : undefined;
    for (const defined of semantics.defines) this.defined.add(defined);
    if (semantics.cwd !== undefined && frame.cwdOverride === undefined) this.cwd = nextCwd(this.cwd, semantics.cwd);
    for (const inner of semantics.inner) {
      const innerFrame: Frame = { ...frame, via: chain(inner.via, frame.via) };
      if (inner.changesDirectory) innerFrame.cwdOverride = { kind: 'unknown' };
      this.command({
        text: inner.words.map((word) => word.text).join(' '),
        words: inner.words,
        frame: innerFrame,
        inputs: [],
        appendsArguments: inner.appendsArguments || options.appendsArguments,
        appendedFrom: inner.appendsArguments ? source : options.appendedFrom,
        appendedNames: inner.appendsArguments ? inner.appendedNames : options.appendedNames,
      });
    }
    for (const payload of semantics.payloads) this.payload(payload.source, { ...frame, via: chain(`in ${payload.via}`, frame.via), depth: frame.depth + 1 });
  }

  payload(source: string, frame: Frame): void {
    if (frame.depth > MAX_PAYLOAD_DEPTH) {
      this.concern({ subject: source, reason: `shell code nested more than ${MAX_PAYLOAD_DEPTH} levels deep is not analysed`, via: frame.via });
      return;
    }
    this.script(parse(source), { ...frame, source });
  }
}

/** Any redirection that can feed standard input (conservatively, on any descriptor). */
function readsStandardInput(redirection: Redirection): boolean {
  if (redirection.type !== 'Redirect' || redirection.operator === '<' || redirection.operator === '<>' || redirection.operator === '<&') return true;
  // `0>&-`, `0>/dev/null`, `{fd}>…`: standard input replaced or closed all the same (rg then searches the directory).
  return redirection.descriptor !== undefined && (redirection.descriptor.type !== 'FileDescriptor' || redirection.descriptor.value === 0);
}

function nextCwd(current: CwdState, change: { kind: 'changed'; path: string } | { kind: 'unknown' }): CwdState {
  if (change.kind === 'unknown' || current.kind === 'unknown') return { kind: 'unknown' };
  if (path.posix.isAbsolute(change.path) || current.kind === 'initial') return { kind: 'changed', path: change.path };
  return { kind: 'changed', path: path.posix.join(current.path, change.path) };
}

function assignmentWord(item: Assignment): ShellWord {
  if (item.value.type !== 'Word') return { text: item.text, value: item.text, kind: 'pattern', tilde: false };
  const value = shellWord(item.value);
  return { text: item.text, value: value.kind === 'dynamic' ? item.text : `${item.name}=${value.value}`, kind: value.kind, tilde: false };
}

function slice(frame: Frame, node: { pos: number; end: number }): string {
  return frame.source.slice(node.pos, node.end);
}

function chain(via: string, outer: string | undefined): string {
  return outer === undefined ? via : `${via}, ${outer}`;
}

/**
 * What analysing a command line finds (analyze-command.ts): every simple
 * command it can run, with its words, hazards, working directory and
 * inputs; every redirection; every construct that needs a person.
 */
import type { CommandRole } from './command-semantics.ts';
import type { AppendedNames } from './commands/command-model.ts';
import type { Hazard } from './hazard.ts';
import type { ShellWord } from './shell-word.ts';

/** The working directory a command runs in, relative to where the command line starts. */
export type CwdState = { kind: 'initial' } | { kind: 'changed'; path: string } | { kind: 'unknown' };

export interface AnalyzedCommand {
  /** As written, or the words a wrapper runs. */
  text: string;
  /** The basename of the name after quote removal (`/usr/bin/../bin/rm`, `\rm`, `r''m` → `rm`); undefined when computed at run time. */
  name: string | undefined;
  /** The name after quote removal, path kept; undefined when computed at run time. */
  written: string | undefined;
  /** All words, the name first. */
  words: ShellWord[];
  role: CommandRole;
  roleReason: string | undefined;
  hazards: Hazard[];
  /** Where it sits, when not at the top level: `inside $(…)`, `run by sudo`, `in the bash -c code`. */
  via: string | undefined;
  /** Inside a substitution: the default decision does not apply, only a rule can allow it. */
  explicitOnly: boolean;
  /** It receives arguments not written in the command line (xargs, find -exec). */
  appendsArguments: boolean;
  /**
   * Where those arguments come from, when the analysis can tell: the `find`
   * whose matches `-exec` appends, the simple command piped into `xargs`, or
   * `empty-input` for an `xargs` reading the tool's own (empty) standard input.
   */
  appendedFrom: AnalyzedCommand | 'empty-input' | undefined;
  /** How those arguments arrive: whole, cut at NUL bytes, or split, and whether after the written words. */
  appendedNames: AppendedNames | undefined;
  /** Targets of its `<` redirections, which count as its paths for `paths_in`. */
  inputs: ShellWord[];
  /**
   * Its standard input is the pipe from a simple command (`git log | rg x`),
   * not the tool's own (empty) input and not replaced by a redirection: `rg x`
   * then searches it, not the directory.
   */
  piped: boolean;
  /** The name of the simple command piped into it (`curl` in `curl … | sh`), when there is one. */
  pipedFrom: string | undefined;
  cwd: CwdState;
}

export interface AnalyzedRedirection {
  /** The redirection as written: `> /etc/passwd`. */
  text: string;
  /** The command it belongs to. */
  command: string;
  operation: 'read' | 'write';
  target: ShellWord;
  cwd: CwdState;
  via: string | undefined;
}

/** Something that asks whatever the rules say: a parse error, a function definition, arithmetic on variables. */
export interface AnalysisConcern {
  subject: string;
  reason: string;
  via: string | undefined;
}

export interface CommandAnalysis {
  /** Top-level statements: zero for a blank or comment-only line. */
  statements: number;
  commands: AnalyzedCommand[];
  redirections: AnalyzedRedirection[];
  concerns: AnalysisConcern[];
}

/** How deep `bash -c "bash -c '...'"` payloads are followed. */

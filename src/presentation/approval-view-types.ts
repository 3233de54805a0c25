/**
 * The shape of what a person is shown for one approval request, whatever
 * shows it: the terminal's box, an MCP client's dialog, the web inbox. Plain
 * JSON (it travels in `checkpoint_required` events); every string in it has
 * already been made inert by `sanitizeTerminalText`, so a renderer inserts
 * text as it is and never interprets it. This file has no behaviour.
 */

/** `text` as it reads; `escape` a visible stand-in for one hidden character; `marker` stands for collapsed padding. */
export interface ViewSpan {
  text: string;
  kind: 'text' | 'escape' | 'marker';
}

/**
 * One line of inert text. `spans` is there only when the line holds escapes
 * or markers, so a renderer can make them stand out; its texts join to `text`.
 */
export interface ViewLine {
  text: string;
  spans?: ViewSpan[];
  /** Set on a marker line standing for this many blank lines (`⟨… 7 blank lines⟩`). */
  blank_run?: number;
}

/** How a diff line reads: added, removed, context, a hunk header, a file header, a note (`\ No newline`), anything else. */
export type DiffOp = '+' | '-' | ' ' | '@' | 'header' | 'note' | 'other';

export interface CommandBlock {
  kind: 'command';
  /** The command's lines (a newline in a command is a separator the person must see). */
  command: ViewLine[];
  cwd: ViewLine | null;
}

export interface DiffBlock {
  kind: 'diff';
  path: ViewLine | null;
  /** Each line as written, its sign included; empty when nothing changes. */
  lines: Array<ViewLine & { op: DiffOp }>;
}

export interface FileBlock {
  kind: 'file';
  path: ViewLine | null;
  language: string | null;
  /** Whole-line comments for the language start with this (`#`, `//`, `--`), for dimming; null when unknown. */
  comment: string | null;
  /** Every line, numbered from 1; a blank-run marker carries the number of its first blank line. Empty for an empty file. */
  lines: Array<ViewLine & { number: number }>;
  /** True when the tool kept only the start of the content and the view shows that start. */
  truncated: boolean;
}

/** A JSON object, one member each, short fields first; values as sent (re-indented, never re-serialised). */
export interface FieldsBlock {
  kind: 'fields';
  fields: Array<{ key: ViewLine; value: ViewLine[] }>;
}

export interface TextBlock {
  kind: 'text';
  lines: ViewLine[];
  /** Data or code (keep lines as they are) rather than prose (wrap at spaces). */
  preformatted: boolean;
}

export interface BinaryBlock {
  kind: 'binary';
  path: ViewLine | null;
  language: string | null;
  /** What it is: the tool's own description, or its size and type. */
  description: ViewLine;
  /** Its first characters, escaped. */
  preview: ViewLine;
  /** Whether the preview is only the start. */
  cut: boolean;
}

export type ViewBlock = CommandBlock | DiffBlock | FileBlock | FieldsBlock | TextBlock | BinaryBlock;

export interface ApprovalView {
  version: 1;
  tool: string;
  /** The tool's description of this call, lines kept. */
  description: string;
  /** The description as one paragraph (line breaks and runs of blanks folded into one space), for a summary. */
  summary: string;
  /** Why the gate asks (the rule's reason), when the caller knows it. */
  reason: string | null;
  /** The question put to the person, when the caller knows it. */
  prompt: string | null;
  /** The rule that asked and where it is written (`shell.default (ask) — toolgate.yaml:6`), when the gate knows it. */
  asked_by: string | null;
  /**
   * What will happen, in one line, when the tool says it (`Run git reset
   * --hard HEAD~1 in ~/myapp`): a view's heading, before the tool's name.
   */
  headline: string | null;
  /** What cannot be undone, one plain sentence each (`It throws away every uncommitted change…`). */
  consequences: string[];
  /** Why it asks, one reason each, when the tool gives them apart (then `reason` repeats what these say). */
  reasons: string[];
  /** Who asks, one line each: the agent host, its session and directory, what the person last asked it, how long it waits. */
  asker: string[];
  /**
   * How much is at stake, in a word a view shows with its colour (never the
   * colour alone): `dangerous` when the call does what cannot be undone (a
   * consequence above, or the tool says so), `routine` when the tool says it
   * only reads, else `notable`.
   */
  risk: 'routine' | 'notable' | 'dangerous';
  /** What "Always" covers, one sentence: the calls it lets run unasked from now on, and how to take it back. */
  always_scope: string;
  /**
   * Other choices of what "always" covers (issue 38): the exact call, or the
   * tool's wider scope, each with the rule it amounts to. `id` is what an
   * approval's `always_scope` names.
   */
  always_choices: Array<{ id: string; text: string; rule: string }>;
  /** False for a soft ask that strict mode approves. */
  required: boolean;
  group_id: string | null;
  /** What "for the rest of this session" covers, one sentence. */
  session_scope: string;
  /** How many secret values the presentation shows masked (kind and size only). */
  masked_secrets: number;
  /** How many secret values `arguments` shows masked. */
  arguments_masked_secrets: number;
  /** How many hidden or control characters the top-level texts and the blocks show escaped. */
  hidden_characters: number;
  /** Things the person must notice first (a request naming one tool for a call to another). */
  warnings: string[];
  /** The presentation: what the call will do. */
  blocks: ViewBlock[];
  /** The call's arguments, short fields first, secrets masked (a fields block when they are an object). */
  arguments: FieldsBlock | TextBlock;
}

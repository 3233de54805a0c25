/**
 * The sanitiser moved below every approver, to `src/core/sanitize-terminal-text.ts`
 * (one sanitiser for every line a person reads: CLI output, audit, prompts,
 * MCP elicitation). This path stays only for imports not yet moved; import
 * from core.
 */
export {
  codePointWidth,
  collapsePadding,
  displayWidth,
  escapeCodePoint,
  sanitizeTerminalSegments,
  sanitizeTerminalText,
} from '../../core/sanitize-terminal-text.ts';
export type { CollapseOptions, SanitizeTerminalTextOptions, TerminalSegment, TerminalSegmentKind } from '../../core/sanitize-terminal-text.ts';

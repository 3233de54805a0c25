/** Every agent host `toolgate hook` answers, by the name the command line and `POST /hooks/:host` take. */
import type { HostDialect } from '../host-dialect.ts';
import { claudeCode } from './claude-code.ts';
import { codex } from './codex.ts';
import { copilot } from './copilot.ts';
import { cursor } from './cursor.ts';
import { gemini } from './gemini.ts';
import { opencode } from './opencode.ts';

export const HOST_DIALECTS: Readonly<Record<string, HostDialect>> = { 'claude-code': claudeCode, codex, gemini, copilot, cursor, opencode };

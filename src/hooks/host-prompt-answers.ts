/**
 * What a person answered in an agent host's own prompt (issue 53, point
 * 13). A hook that answers "ask" leaves the decision to the host (Claude
 * Code's permission prompt), and learns nothing more from it; the host's
 * transcript does: the call's `tool_result` says whether it ran or was
 * rejected. So the hook remembers each call it left to the host (one line,
 * in toolgate's state home, which no agent may write), and the next hook
 * call of the same session reads the transcript and records the answers it
 * finds in the audit log, as the person's decisions. No process per call
 * beyond the hook's own; the last ask of a session is recorded only if
 * another call follows it, and one never answered is dropped after a week.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { toolgateStateHome } from '../config/user-toolgate-paths.ts';
import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';
import { claimName } from '../filesystem/claim-name.ts';
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import type { HostInput } from './host-dialect.ts';
import { readRegularFileTail } from './host-transcript.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/** How much of the transcript is read for the answers: they follow the calls closely. */
const TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024;
/** An ask whose answer is not found in this long is dropped, unrecorded. */
const FORGET_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
/** What a reason quoted from the transcript keeps. */
const MAX_REASON_CHARACTERS = 500;

/** Claude Code's words for a call its user rejected at the prompt (read from its binary, 2.1.332), or interrupted. */
const REJECTED = [/^The user doesn't want to proceed with this tool use\./, /^The user doesn't want to take this action right now\./, /^\[Request interrupted by user/];
/** Claude Code's words when nobody could answer its prompt (`claude -p`): it denied the call itself. */
const NOBODY_ASKED = /^Claude requested permissions to /;

interface AskedInHost {
  /** When the hook answered "ask". */
  asked_at: string;
  transcript: string;
  /** The audit entry of the ask (`ask→ask`), whose call the answer completes. */
  entry: AuditEntry;
}

function pendingFile(env: Environment, input: Pick<HostInput, 'host' | 'sessionId'>): string {
  const key = createHash('sha256').update(`${input.host}\u0000${input.sessionId}`).digest('hex').slice(0, 32);
  return path.join(toolgateStateHome(env), 'host-asks', `${key}.jsonl`);
}

/**
 * Remembers a call left to the host's prompt, by its audit entry. Never
 * throws: at worst the answer is not recorded.
 *
 * @example
 * rememberHostAsk({ env, input, entry }); // after answering "ask" to Claude Code
 */
export function rememberHostAsk(options: { env: Environment; input: HostInput; entry: AuditEntry }): void {
  const { input } = options;
  if (input.toolUseId === undefined || input.transcriptPath === undefined) return;
  const asked: AskedInHost = { asked_at: new Date().toISOString(), transcript: input.transcriptPath, entry: { ...options.entry, call_id: input.toolUseId } };
  try {
    const file = pendingFile(options.env, input);
    makeDirectoriesSync(path.dirname(file), 0o700);
    appendFileSync(file, `${JSON.stringify(asked)}\n`, { mode: 0o600 });
  } catch {
    // Not remembered: the ask is in the audit log, its answer will not be.
  }
}

/**
 * Records in `audit` the answers the host's transcript holds for the calls
 * this session left to its prompt, and keeps the others for a later call.
 * Two hooks of one session at once: one takes the list, the other finds
 * none. Returns how many answers were recorded.
 *
 * @example
 * await recordHostAnswers({ env, input, audit }); // before judging the next call of the session
 */
export async function recordHostAnswers(options: { env: Environment; input: HostInput; audit: AuditSink; now?: Date }): Promise<number> {
  const file = pendingFile(options.env, options.input);
  const taking = claimName(file, 'reading');
  try {
    renameSync(file, taking);
  } catch {
    return 0;
  }
  let recorded = 0;
  const kept: string[] = [];
  try {
    const lines = readFileSync(taking, 'utf8').split('\n').filter((line) => line.trim() !== '');
    const now = options.now ?? new Date();
    const answersByTranscript = new Map<string, Map<string, TranscriptAnswer>>();
    for (const line of lines) {
      let asked: AskedInHost;
      try {
        asked = JSON.parse(line) as AskedInHost;
      } catch {
        continue;
      }
      let answers = answersByTranscript.get(asked.transcript);
      if (answers === undefined) {
        answers = answersIn(asked.transcript);
        answersByTranscript.set(asked.transcript, answers);
      }
      const answer = answers.get(asked.entry.call_id);
      if (answer === undefined) {
        if (now.getTime() - Date.parse(asked.asked_at) < FORGET_AFTER_MS) kept.push(line);
        continue;
      }
      await options.audit.record(answerEntry({ asked, answer, now }));
      recorded += 1;
    }
  } finally {
    try {
      if (kept.length > 0) appendFileSync(file, `${kept.join('\n')}\n`, { mode: 0o600 });
      rmSync(taking, { force: true });
    } catch {
      // Left in the .reading file: those answers are not recorded.
    }
  }
  return recorded;
}

interface TranscriptAnswer {
  outcome: 'ran' | 'rejected' | 'nobody';
  text: string;
  time: string | undefined;
}

/** The `tool_result` of each call in the transcript's tail, by the call's id. */
function answersIn(transcript: string): Map<string, TranscriptAnswer> {
  const answers = new Map<string, TranscriptAnswer>();
  const text = readRegularFileTail(transcript, TRANSCRIPT_TAIL_BYTES);
  if (text === undefined) return answers;
  for (const line of text.split('\n')) {
    if (!line.includes('"tool_result"')) continue;
    let entry: { type?: unknown; timestamp?: unknown; message?: { content?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.type !== 'user' || !Array.isArray(entry.message?.content)) continue;
    for (const part of entry.message.content as Array<Record<string, unknown>>) {
      if (part?.type !== 'tool_result' || typeof part.tool_use_id !== 'string') continue;
      const said = resultText(part.content);
      // Only an error result can be a refusal: a command that ran may print Claude Code's words itself (`echo "The user
      // doesn't want to proceed…"`), and must not be recorded as refused, which would hide that it ran.
      const refused = part.is_error === true;
      const outcome = refused && REJECTED.some((pattern) => pattern.test(said)) ? 'rejected' : refused && NOBODY_ASKED.test(said) ? 'nobody' : 'ran';
      answers.set(part.tool_use_id, { outcome, text: said, time: typeof entry.timestamp === 'string' ? entry.timestamp : undefined });
    }
  }
  return answers;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
}

/** The decision entry an answer makes of the ask's entry. */
function answerEntry(options: { asked: AskedInHost; answer: TranscriptAnswer; now: Date }): AuditEntry {
  const { asked, answer } = options;
  const answeredAt = answer.time !== undefined && !Number.isNaN(Date.parse(answer.time)) ? Date.parse(answer.time) : options.now.getTime();
  const latency = Math.max(0, answeredAt - Date.parse(asked.asked_at));
  const base: AuditEntry = { ...asked.entry, kind: 'decision', time: new Date(answeredAt).toISOString(), latency_ms: Number.isFinite(latency) ? latency : 0 };
  const host = asked.entry.caller === 'claude-code' ? 'Claude Code' : (asked.entry.caller ?? 'the host');
  if (answer.outcome === 'ran') {
    return { ...base, decision: 'approved', source: 'person', approver: `the person at ${host}'s prompt`, reason: `approved in ${host}'s own prompt: the call ran (or ${host}'s own permission settings let it run)` };
  }
  if (answer.outcome === 'nobody') {
    return { ...base, decision: 'denied', source: 'mode', reason: `${host} denied it itself: nobody could answer its prompt (${cut(answer.text)})` };
  }
  const said = /the user said:\s*([\s\S]*)$/.exec(answer.text)?.[1]?.trim();
  return { ...base, decision: 'denied', source: 'person', approver: `the person at ${host}'s prompt`, reason: `denied in ${host}'s own prompt${said === undefined || said === '' ? '' : `: ${cut(said)}`}` };
}

function cut(text: string): string {
  return text.length > MAX_REASON_CHARACTERS ? `${text.slice(0, MAX_REASON_CHARACTERS)}…` : text;
}

/**
 * `POST /hooks/:host`: the PreToolUse hook of an agent host, answered by
 * the server (Claude Code's `http` hook posts here itself; `toolgate hook
 * <host> --approver server` forwards its input here). Every answer is a 200
 * with the host's JSON, a denial when anything is wrong: Claude Code lets a
 * call go on after any other answer.
 */
import type { Hono } from 'hono';
import { preToolUseAnswer, type HostDialect } from '../../hooks/host-dialect.ts';
import { HOST_DIALECTS } from '../../hooks/hosts/host-dialects.ts';
import type { Logger } from '../log.ts';
import type { RunService } from '../run-service.ts';
import { readJsonBody } from './read-json-body.ts';
import { principalOf } from './run-routes.ts';
import type { ServerEnv } from './server-env.ts';

export const HOOK_HOSTS: Readonly<Record<string, HostDialect>> = HOST_DIALECTS;

/** The largest host input read: a Write of a big file is large, but not this large. */
const MAX_HOOK_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The denial a host reads for a request the server refuses, in its own
 * dialect (Gemini CLI and Cursor run the call on an answer of another
 * shape); PreToolUse's where no host is known.
 */
export function hookRefusal(reason: string, dialect?: HostDialect): unknown {
  const said = `toolgate serve: ${reason}; the call is blocked`;
  return JSON.parse(dialect === undefined ? preToolUseAnswer('deny', said).stdout : dialect.answer({ decision: 'deny', reason: said }).stdout);
}

/**
 * @example
 * registerHookRoutes({ app, service, logger });
 */
export function registerHookRoutes(options: { app: Hono<ServerEnv>; service: RunService; logger: Logger }): void {
  const { app, service, logger } = options;
  app.post('/hooks/:host', async (c) => {
    const name = c.req.param('host');
    const dialect = Object.hasOwn(HOOK_HOSTS, name) ? HOOK_HOSTS[name]! : undefined;
    if (dialect === undefined) return c.json(hookRefusal(`unknown host ${JSON.stringify(name)} (hosts: ${Object.keys(HOOK_HOSTS).join(', ')})`), 200);
    try {
      const timeout = c.req.query('timeout');
      const seconds = timeout === undefined ? dialect.defaultBudgetMs / 1000 : Number(timeout);
      const refuse = (reason: string) => c.json(hookRefusal(reason, dialect), 200);
      if (!Number.isFinite(seconds) || seconds < 1 || seconds > 86_400) return refuse(`?timeout must be the hook's timeout in seconds (1 to 86400), not ${JSON.stringify(timeout)}`);
      if (service.answerHostCall === undefined) return refuse('this server does not answer agent hosts');
      const body = await readJsonBody({ context: c, maxBytes: MAX_HOOK_BODY_BYTES });
      // Claude Code's http hook does not say which shell runs a command: its URL can (`?shell=`, written by toolgate install --http).
      // What the command hook forwards (toolgate_shell, from the host's environment) comes first.
      const shell = c.req.query('shell');
      if (shell !== undefined && typeof body === 'object' && body !== null && !Array.isArray(body) && !Object.hasOwn(body, 'toolgate_shell')) (body as Record<string, unknown>).toolgate_shell = shell;
      // What the hook decided on its own since its last request: into the audit trail first, said back in a header (the hook keeps what was not).
      if (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.hasOwn(body, 'toolgate_local_decisions')) {
        const { toolgate_local_decisions: reported } = body as Record<string, unknown>;
        delete (body as Record<string, unknown>).toolgate_local_decisions;
        c.header('x-toolgate-recorded', String((await service.recordHostDecisions?.(principalOf(c), reported)) ?? 0));
      }
      const answer = await service.answerHostCall(principalOf(c), dialect, body, seconds * 1000);
      return c.json(JSON.parse(answer.stdout) as unknown, 200);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.error('a host call was refused', { host: name, error: message });
      return c.json(hookRefusal(message, dialect), 200);
    }
  });
}

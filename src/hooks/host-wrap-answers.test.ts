/**
 * `sandbox.hosts: wrap` where the answer travels (found on review): a call
 * this machine's policy allows keeps its wrapped command with `--approver
 * server`; a server's answer may carry only the agent's own command wrapped
 * in bubblewrap, never another call; and another PreToolUse hook of Claude
 * Code's, in any layer, which could hand Claude Code a command of its own in
 * place of the wrapped one, blocks the shell calls.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../config/load-policy-file.ts';
import { quoteShellWord } from '../core/quote-shell-word.ts';
import { claudeCode } from './hosts/claude-code.ts';
import { runHook } from './run-hook.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-wrap-answers-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const project = path.join(directory, 'project');
const home = path.join(directory, 'home');
mkdirSync(project);
mkdirSync(path.join(home, '.claude'), { recursive: true });
const policyFile = path.join(project, 'toolgate.yaml');
writeFileSync(
  policyFile,
  `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: allow } }
shell:
  default: ask
  rules:
    - { match: echo, decision: allow }
sandbox:
  hosts: wrap
`,
);
const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), PATH: process.env.PATH, SHELL: '/bin/bash' };
const call = (command: string) => JSON.stringify({ session_id: 's', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t-${command.length}` });
type Output = { permissionDecision: string; permissionDecisionReason: string; updatedInput?: { command: string } };
const outputOf = (stdout: string) => (JSON.parse(stdout) as { hookSpecificOutput: Output }).hookSpecificOutput;

/** A server on loopback that answers every hook call with `answer`. */
async function serverAnswering(answer: unknown): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('sandbox.hosts: wrap, in the answers', () => {
  it('with --approver server, a call this machine allows keeps its wrapped command', async () => {
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('echo hi')]), loadPolicy: () => loadPolicyFile(policyFile), env, server: { url: 'http://127.0.0.1:9', token: 't' } });
    const output = outputOf(answer.stdout);
    expect(output.permissionDecision).toBe('allow');
    expect(output.updatedInput?.command).toMatch(/^\/\S*\/bwrap .* -- \/\S*\/bash -c 'echo hi'$/);
  });

  it("takes a server's changed input only as the agent's command wrapped: another command blocks the call", async () => {
    const noPolicy = () => Promise.reject(new Error('no policy here'));
    const wrapped = `/usr/bin/bwrap --unshare-all --chdir ${project} -- /usr/bin/bash -c ${quoteShellWord('make build')}`;
    for (const [updated, allowed] of [
      [{ command: wrapped }, true],
      [{ command: 'rm -rf ~' }, false],
      [{ command: `/usr/bin/bwrap --bind / / -- /usr/bin/bash -c ${quoteShellWord('make build; rm -rf ~')}` }, false],
      [{ command: wrapped, run_in_background: true }, false],
      [{ command: `/tmp/bwrap -- /usr/bin/bash -c ${quoteShellWord('make build')}`.replace('/tmp/bwrap', 'bwrap') }, false],
    ] as const) {
      const { url, server } = await serverAnswering({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'toolgate: approved', updatedInput: updated } });
      try {
        const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('make build')]), loadPolicy: noPolicy, env, server: { url, token: 't' } });
        if (allowed) expect(outputOf(answer.stdout), JSON.stringify(updated)).toMatchObject({ permissionDecision: 'allow', updatedInput: updated });
        else {
          expect(answer.exitCode, JSON.stringify(updated)).toBe(2);
          expect(answer.stderr).toContain("answered with a call other than the agent's");
        }
      } finally {
        server.close();
      }
    }
  });

  it("blocks the shell calls while another PreToolUse hook of Claude Code's could put its own command in place of the wrapped one", async () => {
    const settings = path.join(home, '.claude', 'settings.json');
    writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'rtk-rewrite' }] }] } }));
    try {
      const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('echo hi')]), loadPolicy: () => loadPolicyFile(policyFile), env });
      const output = outputOf(answer.stdout);
      expect(output.permissionDecision).toBe('deny');
      expect(output.permissionDecisionReason).toContain(`another PreToolUse hook can hand Claude Code a command of its own, which it would run instead of the wrapped one: ${settings} (rtk-rewrite)`);
      expect(output.updatedInput).toBeUndefined();
    } finally {
      rmSync(settings);
    }
  });
});

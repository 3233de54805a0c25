/**
 * `toolgate hook copilot` in front of the real GitHub Copilot CLI (pinned in
 * test/hosts), headless in a loopback-only network namespace, with its own
 * Anthropic-compatible provider pointed at a scripted model (issue 34): a
 * blocked command never runs and the model reads why; an allowed one runs
 * once; a call that needs a person is left to Copilot CLI's own prompt
 * (headless, it denies, saying it could not ask); a file created outside the
 * zones is blocked; and toolgate failing blocks the call, where Copilot CLI
 * would run it after a hook that answers nothing it can read.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectInboxApprovesOnce, expectOffline, hookCommand, hostTestProjects, runHostSession, type HostProject } from './agent-host-harness.ts';

const project = hostTestProjects();

const bash = (command: string) => ({ name: 'bash', input: { command, description: 'run it' } });

describe('toolgate hook copilot, in front of the real GitHub Copilot CLI', () => {
  it('a blocked rm -rf never runs, and its reason reaches the model; an allowed command runs once', { timeout: 120_000 }, async () => {
    const blockedProject = project({ 'victim/keep.txt': 'keep\n' });
    const blocked = await runHostSession({ host: 'copilot', project: blockedProject, call: bash('rm -rf victim') });
    expectOffline(blocked);
    expect(existsSync(path.join(blockedProject.directory, 'victim/keep.txt'))).toBe(true);
    expect(blocked.toolResult).toContain('rm is blocked in this project');

    const allowedProject = project();
    const allowed = await runHostSession({ host: 'copilot', project: allowedProject, call: bash('echo ran >> ran.txt') });
    expectOffline(allowed);
    expect(readFileSync(path.join(allowedProject.directory, 'ran.txt'), 'utf8')).toBe('ran\n');
  });

  it("a call that needs a person goes to Copilot CLI's own prompt (headless: denied, and it does not run); a file created outside the zones is blocked; a view of a folder is a listing", { timeout: 120_000 }, async () => {
    const asking = project();
    const asked = await runHostSession({ host: 'copilot', project: asking, call: bash('touch made-by-make.txt && make --version') });
    expectOffline(asked);
    expect(existsSync(path.join(asking.directory, 'made-by-make.txt'))).toBe(false);
    expect(asked.toolResult).toMatch(/unable to ask user/i);

    const writing = project();
    const outside = path.join(path.dirname(writing.directory), 'escaped.txt');
    const written = await runHostSession({ host: 'copilot', project: writing, call: { name: 'create', input: { path: outside, file_text: 'escaped\n' } } });
    expectOffline(written);
    expect(existsSync(outside)).toBe(false);
    expect(written.toolResult).toContain('toolgate');

    const viewing = project({ 'src/a.txt': 'a\n' });
    const viewed = await runHostSession({ host: 'copilot', project: viewing, call: { name: 'view', input: { path: path.join(viewing.directory, 'src') } } });
    expectOffline(viewed);
    expect(viewed.toolResult).toContain('a.txt');
  });

  it('--approver server: an ask approved in the web inbox (Chromium) runs exactly once, the card naming Copilot CLI; a server that is down blocks', { timeout: 150_000 }, async () => {
    await expectInboxApprovesOnce({ host: 'copilot', title: 'GitHub Copilot CLI', project, shellCall: bash });
  });

  it('toolgate failing (an invalid policy) blocks the call, which Copilot CLI runs after an answer it cannot read', { timeout: 120_000 }, async () => {
    const broken = project({ 'victim/keep.txt': 'keep\n' });
    writeFileSync(broken.policyFile, 'version: 1\nshell: { rules: [ { match: rm, decision: sometimes } ] }\n');
    const result = await runHostSession({ host: 'copilot', project: broken, call: bash('rm -rf victim'), hook: hookCommand('copilot', ['--policy', broken.policyFile]) });
    expectOffline(result);
    expect(existsSync(path.join(broken.directory, 'victim/keep.txt'))).toBe(true);
    // Exit 2 blocks, and the denial printed with it is what the model reads.
    expect(result.toolResult).toContain('toolgate.yaml:2:42: shell.rules[0].decision');
    expect(result.toolResult).toContain('the call is blocked');
  });

  /** Copilot CLI's hooks file as the test writes it: toolgate's command under `events`, with Copilot CLI's timeout. */
  function hooksFile(where: HostProject, command: string, timeoutSec: number, events: readonly string[]): void {
    const handler = { type: 'command', bash: command, timeoutSec };
    mkdirSync(path.join(where.home, '.copilot', 'hooks'), { recursive: true });
    writeFileSync(path.join(where.home, '.copilot', 'hooks', 'toolgate.json'), JSON.stringify({ version: 1, hooks: Object.fromEntries(events.map((event) => [event, [handler]])) }));
  }

  it('without --allow-all-tools, permissionRequest answers in place of its own prompt: a file created where the policy allows, a command it blocks refused with the reason', { timeout: 120_000 }, async () => {
    // preToolUse absent: every call reaches Copilot CLI's permission service, and so toolgate's permissionRequest hook.
    const creating = project();
    hooksFile(creating, hookCommand('copilot', ['--policy', creating.policyFile]), 30, ['permissionRequest']);
    const created = await runHostSession({ host: 'copilot', project: creating, call: { name: 'create', input: { path: path.join(creating.directory, 'made.txt'), file_text: 'made\n' } }, installedHooks: true, copilotAsks: true });
    expectOffline(created);
    expect(readFileSync(path.join(creating.directory, 'made.txt'), 'utf8')).toBe('made\n');

    const escaping = project();
    hooksFile(escaping, hookCommand('copilot', ['--policy', escaping.policyFile]), 30, ['permissionRequest']);
    const outside = path.join(path.dirname(escaping.directory), 'escaped.txt');
    const escaped = await runHostSession({ host: 'copilot', project: escaping, call: { name: 'create', input: { path: outside, file_text: 'escaped\n' } }, installedHooks: true, copilotAsks: true });
    expectOffline(escaped);
    expect(existsSync(outside)).toBe(false);
    expect(escaped.toolResult).toContain('Permission denied by a PermissionRequest hook: toolgate:');

    const removing = project({ 'victim/keep.txt': 'keep\n' });
    hooksFile(removing, hookCommand('copilot', ['--policy', removing.policyFile]), 30, ['permissionRequest']);
    const removed = await runHostSession({ host: 'copilot', project: removing, call: bash('rm -rf victim'), installedHooks: true, copilotAsks: true });
    expectOffline(removed);
    expect(existsSync(path.join(removing.directory, 'victim/keep.txt'))).toBe(true);
    expect(removed.toolResult).toContain('rm is blocked in this project');
  });

  it("a hook that starts slower than Copilot CLI's timeout: under preToolUse alone Copilot CLI (--allow-all-tools) runs the call unjudged; with permissionRequest too (what toolgate install writes), the call goes on to it, --allow-all-tools or not, and toolgate decides it", { timeout: 150_000 }, async () => {
    // The first start of the hook takes 10 s (a cold disk), against Copilot CLI's 3 s; the next is prompt.
    const coldStart = (where: HostProject): string => `[ -e ${where.home}/warm ] || { touch ${where.home}/warm; sleep 10; }; ${hookCommand('copilot', ['--policy', where.policyFile])}`;
    const unjudged = project({ 'victim/keep.txt': 'keep\n' });
    hooksFile(unjudged, coldStart(unjudged), 3, ['preToolUse']);
    const ran = await runHostSession({ host: 'copilot', project: unjudged, call: bash('rm -rf victim'), installedHooks: true });
    expectOffline(ran);
    expect(existsSync(path.join(unjudged.directory, 'victim')), ran.toolResult ?? '').toBe(false);

    const blocking = project({ 'victim/keep.txt': 'keep\n' });
    hooksFile(blocking, coldStart(blocking), 3, ['preToolUse', 'permissionRequest']);
    const blocked = await runHostSession({ host: 'copilot', project: blocking, call: bash('rm -rf victim'), installedHooks: true });
    expectOffline(blocked);
    expect(existsSync(path.join(blocking.directory, 'victim/keep.txt'))).toBe(true);
    expect(blocked.toolResult).toContain('Permission denied by a PermissionRequest hook: toolgate: rm -rf victim: rm is blocked in this project');

    // A call the policy asks about is denied there, saying so: left to Copilot CLI's prompt ({}), --allow-all-tools would run it (found on review).
    const asking = project();
    hooksFile(asking, coldStart(asking), 3, ['preToolUse', 'permissionRequest']);
    const asked = await runHostSession({ host: 'copilot', project: asking, call: bash('touch made-by-ask.txt && make --version'), installedHooks: true });
    expectOffline(asked);
    expect(existsSync(path.join(asking.directory, 'made-by-ask.txt'))).toBe(false);
    expect(asked.toolResult).toContain('GitHub Copilot CLI cannot ask a person from its hook');

    const allowing = project();
    hooksFile(allowing, coldStart(allowing), 3, ['preToolUse', 'permissionRequest']);
    const allowed = await runHostSession({ host: 'copilot', project: allowing, call: bash('echo ran >> ran.txt'), installedHooks: true, copilotAsks: true });
    expectOffline(allowed);
    expect(readFileSync(path.join(allowing.directory, 'ran.txt'), 'utf8')).toBe('ran\n');
  });
});

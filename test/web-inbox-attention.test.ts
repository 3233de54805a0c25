/**
 * The policy's attention budget in the web inbox (Chromium, a real
 * `toolgate serve` and real hook processes waiting on it): under the
 * budget every ask has its own card; once the signed-in person decided
 * more asks in the last hour than `attention.asks_per_hour`, asks of one
 * kind (the tool and the rule that asked) gather on one card, the rest
 * folded under it, waiting — still pending, never decided for anyone —
 * and open to be decided one by one.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './headless-chromium.ts';
import { ADMIN_TOKEN, api, claudeHookProcess, createServerProject, startServerProcess, waitFor, type ServerProcess, type ServerProject } from './server-harness.ts';

const POLICY = `version: 1
fs:
  zones:
    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: "git commit", decision: ask, description: "Create a commit" }
attention: { asks_per_hour: 2 }
`;

let project: ServerProject;
let server: ServerProcess;
let browser: Browser;
const hooks: ChildProcess[] = [];

/** A hook process as Claude Code starts it, left waiting on the server. */
function waitingHook(command: string, session: string): Promise<string> {
  return claudeHookProcess({ server: server.url, cwd: project.workspace, command, session, timeoutSeconds: 120, started: (child) => hooks.push(child) });
}

async function pendingCount(): Promise<number> {
  return ((await api(server.url, 'GET', '/approvals')).body.approvals as unknown[]).length;
}

beforeAll(async () => {
  project = createServerProject({ policy: 'crash-policy.yaml' });
  writeFileSync(project.policyFile, POLICY);
  server = await startServerProcess({ project, model: null, env: { TOOLGATE_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const child of hooks) child.kill('SIGKILL');
  await browser?.close();
  await server?.kill9();
  if (project !== undefined) rmSync(project.directory, { recursive: true, force: true });
});

describe('the attention budget in the web inbox', () => {
  it('a server that has recorded nothing yet shows empty figures on its attention page, not an error', async () => {
    const fresh = await api(server.url, 'GET', '/insights');
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ calls: 0, asks: 0, rules: [], days: [] });
  });

  it('under the budget each ask has its card; past it, asks of a kind gather on one card and wait, still pending, to be opened and decided one by one', { timeout: 120_000 }, async () => {
    for (const session of ['a', 'b', 'c']) void waitingHook('ls -la', `s-${session}`);
    void waitingHook('git commit -m wip', 's-d');
    // Another command the same rule asks about: not like ls, so never folded under it (a flood of one command hides no other).
    void waitingHook('wc -l notes.txt', 's-g');
    // Two history rewrites: the same tool and rule as ls, but what they do cannot be undone.
    for (const session of ['e', 'f']) void waitingHook(`git reset --hard HEAD~${session === 'e' ? 1 : 2}`, `s-${session}`);
    await waitFor(async () => ((await pendingCount()) === 7 ? true : undefined), { timeoutMs: 30_000, describe: () => server.stderr().slice(-500) });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/login#token=${encodeURIComponent(ADMIN_TOKEN)}`);
    await expect.poll(() => page.locator('#items .approval:visible').count(), { timeout: 15_000 }).toBe(7);
    expect(await page.locator('.kind-group').count()).toBe(0);
    expect(await page.locator('#items .approval[data-risk="dangerous"]').count()).toBe(2);

    // Two asks decided (through the API, by the same person): the budget of 2 an hour is reached.
    for (const session of ['x', 'y']) {
      const answer = waitingHook('git status', `s-${session}`);
      const pending = await waitFor(async () => ((await api(server.url, 'GET', '/approvals')).body.approvals as Array<{ run_id: string }>).find((each) => JSON.stringify(each).includes('git status')), { timeoutMs: 20_000, describe: () => server.stderr().slice(-500) });
      expect((await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true })).status).toBe(200);
      expect(await answer).toBe('allow');
    }
    expect((await api(server.url, 'GET', '/whoami')).body.attention).toEqual({ asks_per_hour: 2, decided_last_hour: 2 });
    await page.reload();
    await page.waitForSelector('.kind-group');
    // The three ls asks on one card: one shown, two folded; wc and the commit on their own; each history rewrite on its own, never folded.
    expect(await page.locator('.kind-group').count()).toBe(1);
    expect(await page.locator('.kind-group .approval[data-risk="dangerous"]').count()).toBe(0);
    expect(await page.locator('.kind-group .kind-note').textContent()).toBe('You decided 2 asks in the last hour, past your attention budget of 2: asks of the same kind are gathered here and wait. Nothing is allowed without you.');
    expect(await page.locator('.kind-group details.kind-rest summary').textContent()).toBe('2 more asks like this wait — show them');
    expect(await page.locator('#items .approval:visible').count()).toBe(5);
    expect(await page.locator('.kind-group details.kind-rest .approval').count()).toBe(2);
    expect(await page.locator('.kind-group .approval').allTextContents()).toEqual([expect.stringContaining('ls -la'), expect.stringContaining('ls -la'), expect.stringContaining('ls -la')]);
    // They wait: nothing was decided for anyone.
    expect(await pendingCount()).toBe(7);
    // The keys move only between the cards one can see.
    for (let press = 0; press < 6; press++) await page.keyboard.press('j');
    expect(await page.locator('#items .approval.selected').count()).toBe(1);
    expect(await page.locator('#items .approval.selected:visible').count()).toBe(1);
    // Opened, each can be decided on its own.
    await page.click('.kind-group details.kind-rest summary');
    await expect.poll(() => page.locator('#items .approval:visible').count()).toBe(7);
    expect(errors).toEqual([]);
    await page.close();
  });

});

/**
 * The web inbox in real headless Chromium against the real server: log in
 * from the printed login URL, see a pending call arrive live, approve it in
 * the page and find the file on disk, deny with a reason the model quotes,
 * edit the arguments (the server's schema error shown first), decide a group,
 * and show hostile arguments as inert text that never runs. Screenshots of
 * the dialog at desktop and phone width go to test-artifacts/.
 */
import { hashToken, newToken } from '../src/server/tokens.ts';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './headless-chromium.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/server/log.ts';
import { startToolgateServer, type RunningToolgateServer } from '../src/server/start-server.ts';
import { webAssets } from '../src/server/web/web-assets.ts';

// Browser globals, for the functions page.evaluate runs in the page (this project's TypeScript has no DOM library).
declare const document: any;
declare const window: any;
declare const location: any;
declare const sessionStorage: any;

const FIXTURES = fileURLToPath(new URL('./fixtures/web-inbox/', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

let browser: Browser;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Inbox {
  server: RunningToolgateServer;
  root: string;
  api(pathname: string, body?: unknown): Promise<{ status: number; json: any }>;
  startRun(input: string): Promise<string>;
  waitForRun(runId: string, statuses: string[]): Promise<any>;
}

async function startInbox(script: string, options: { policyLines?: string; files?: Record<string, string> } = {}): Promise<Inbox> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-web-inbox-'));
  mkdirSync(path.join(root, 'ws'));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(path.join(root, name), text, { mode: 0o600 });
  const policyFile = path.join(root, 'toolgate.yaml');
  writeFileSync(policyFile, `${readFileSync(path.join(FIXTURES, 'policy.yaml'), 'utf8')}${options.policyLines ?? ''}`);
  const server = await startToolgateServer({
    policyFile,
    storeFile: path.join(root, '.toolgate', 'toolgate.db'),
    port: 0,
    model: `script:${path.join(FIXTURES, script)}`,
    env: {},
    logger: silentLogger(),
    cwd: root,
    web: webAssets(),
  });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }), () => server.close());
  const api = async (pathname: string, body?: unknown) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  };
  return {
    server,
    root,
    api,
    async startRun(input) {
      const started = await api('/runs', { input });
      expect(started.status).toBe(201);
      return started.json.run_id as string;
    },
    async waitForRun(runId, statuses) {
      const deadline = Date.now() + 20_000;
      let last: any;
      while (Date.now() < deadline) {
        last = (await api(`/runs/${runId}`)).json;
        if (statuses.includes(last.status)) return last;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`run ${runId} is ${last?.status}, not ${statuses.join(' or ')}: ${JSON.stringify(last)}`);
    },
  };
}

/** A page that records every dialog, page error and console error, so a test can assert none happened. */
async function openPage(width: number): Promise<{ page: Page; incidents: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  const incidents: string[] = [];
  page.on('dialog', (dialog) => {
    incidents.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => incidents.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The browser logs every refused request; those are recorded with their status and path below.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) incidents.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) incidents.push(`http ${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  return { page, incidents };
}

async function noHorizontalOverflow(page: Page): Promise<void> {
  const sizes = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, body: document.body.scrollWidth }));
  expect(sizes.scroll, JSON.stringify(sizes)).toBeLessThanOrEqual(sizes.client);
  expect(sizes.body, JSON.stringify(sizes)).toBeLessThanOrEqual(sizes.client);
}

describe('the web inbox in Chromium', () => {
  it('logs in from the login URL, shows a new file in full, approves it, and the run writes the file', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const { page, incidents } = await openPage(1280);
    await page.goto(inbox.server.loginUrl);
    await page.waitForSelector('#inbox:not([hidden])');
    // The token left the address bar and lives in this tab only.
    expect(page.url()).toBe(`${inbox.server.url}/`);
    expect(await page.evaluate(() => sessionStorage.getItem('toolgate-token'))).toBe(inbox.server.adminToken);
    expect((await page.context().cookies()).length).toBe(0);
    await page.waitForSelector('#stream-state[data-state="live"]');

    // Started after the page is open: it arrives over the live stream.
    const runId = await inbox.startRun('write a greeting');
    const card = page.locator('.approval').first();
    await card.waitFor();
    await expect.poll(() => card.locator('.tool').textContent()).toBe('write_file');
    const lines = await card.locator('.block-file .line').allTextContents();
    expect(lines).toEqual(['1Hello from the inbox', '2line 2', '3line 3']);
    expect(await card.locator('.block-head').first().textContent()).toContain('hello.txt');
    expect(await card.locator('.scope').textContent()).toContain('for this session');
    // Which rule of the policy asked, and where it is written (issue 39).
    expect(await card.locator('.asked-by').textContent()).toMatch(/^Asked by the policy's fs\.zones\[\d+\]\.approval\.write \(zone \w+: ask\) — .*\.ya?ml:\d+$/);
    await card.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-dialog-1280.png') });

    expect(await page.locator('.help').isVisible()).toBe(true);
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalOverflow(page);
    // A phone has no keys to press: no legend of them.
    expect(await page.locator('.help').isVisible()).toBe(false);
    await card.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-dialog-390.png') });
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-page-390.png'), fullPage: true });

    await card.getByRole('button', { name: 'Allow once' }).click();
    await page.locator('.approval').waitFor({ state: 'detached' });
    const run = await inbox.waitForRun(runId, ['completed']);
    expect(run.text).toContain('The greeting is written');
    expect(readFileSync(path.join(inbox.root, 'ws', 'hello.txt'), 'utf8')).toBe('Hello from the inbox\nline 2\nline 3\n');
    expect(run.decisions).toMatchObject([{ tool_name: 'write_file', approved: true, scope: 'once', via: 'inbox' }]);

    // The run view: status, input, the decision and who took it, the timeline.
    await page.evaluate((id) => (location.hash = `#run=${encodeURIComponent(id)}`), runId);
    await page.waitForSelector('#run-view:not([hidden]) .run-status');
    await expect.poll(() => page.locator('.run-status').textContent()).toBe('completed');
    expect(await page.locator('.run-input').textContent()).toBe('write a greeting');
    expect(await page.locator('.decision-list').textContent()).toContain(`by ${run.decisions[0].decided_by} in the inbox at `);
    const types = () => page.locator('.timeline .event').evaluateAll((items: any[]) => items.map((item) => item.dataset.type));
    await expect.poll(async () => (await types()).includes('run_completed')).toBe(true);
    expect(await types()).toEqual(expect.arrayContaining(['checkpoint_required', 'approval_decided', 'run_completed']));
    // The timeline reads as sentences with their times; the event as sent is behind a disclosure.
    const decidedEvent = page.locator('.timeline .event[data-type="approval_decided"]');
    expect(await decidedEvent.locator('.event-text').textContent()).toBe(`approved write_file by ${run.decisions[0].decided_by} in the inbox`);
    expect(await decidedEvent.locator('.event-time').textContent()).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(await decidedEvent.locator('.event-raw').isVisible()).toBe(true);
    expect(await decidedEvent.locator('.event-raw pre').isVisible()).toBe(false);
    expect(await page.locator('.timeline .event[data-type="text"] .event-text').first().textContent()).toMatch(/^the model said: /);
    expect((await page.locator('.timeline .event-text').allTextContents()).join(' ')).not.toContain('\\n');

    // The runs list: this run, its status and time; the search narrows it; a run opens its view.
    await page.evaluate(() => (location.hash = '#runs'));
    const row = page.locator('.runs-list .run-row').first();
    await row.waitFor();
    expect(await row.locator('.run-state').textContent()).toBe('completed');
    expect(await row.locator('.run-open').textContent()).toBe('write a greeting');
    expect(await row.locator('.run-meta').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d · script:/);
    await page.fill('.runs-search', 'no such run');
    expect(await page.locator('.runs-list .run-row').count()).toBe(0);
    await page.fill('.runs-search', 'greeting');
    expect(await page.locator('.runs-list .run-row').count()).toBe(1);
    await page.selectOption('.runs-status', 'failed');
    await expect.poll(() => page.locator('.runs-list .run-row').count()).toBe(0);
    await page.selectOption('.runs-status', 'completed');
    await expect.poll(() => page.locator('.runs-list .run-row').count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-runs-1280.png') });
    await row.locator('.run-open').click();
    await page.waitForSelector('#run-view:not([hidden]) .run-status');
    expect(page.url()).toContain(`#run=${runId}`);
    await noHorizontalOverflow(page);
    expect(incidents).toEqual([]);
  });

  it('a call that arrives over the stream while the list is on its way stays: the older list does not take it away (seen under load: a card never showed)', { timeout: 60_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const { page, incidents } = await openPage(1280);
    // The first list the page asks for is read at once and handed over only after the call arrived over the stream.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let listRead: () => void = () => {};
    const read = new Promise<void>((resolve) => (listRead = resolve));
    let first = true;
    await page.route('**/approvals', async (route) => {
      if (!first || route.request().method() !== 'GET') return route.continue();
      first = false;
      const response = await route.fetch();
      listRead();
      await released;
      await route.fulfill({ response });
    });
    await page.goto(inbox.server.loginUrl);
    await read;
    await inbox.startRun('write a greeting');
    const card = page.locator('.approval').first();
    await card.waitFor();
    const delivered = page.waitForResponse((response) => new URL(response.url()).pathname === '/approvals');
    release();
    await delivered;
    // The page has read the older list; the card is still there, and so is the call.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(await page.locator('.approval').count()).toBe(1);
    expect((await inbox.api('/approvals')).json.approvals).toHaveLength(1);
    expect(incidents).toEqual([]);
  });

  it('asks for a token without one, refuses a wrong one, and takes a pasted one', { timeout: 60_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const { page } = await openPage(390);
    await page.goto(`${inbox.server.url}/`);
    await page.waitForSelector('#login:not([hidden])');
    await page.fill('#token-input', 'not-a-token');
    await page.click('#login-form button');
    await expect.poll(() => page.locator('#login-error').textContent()).toContain('refused this token');
    expect(await page.evaluate(() => sessionStorage.getItem('toolgate-token'))).toBeNull();
    await page.fill('#token-input', inbox.server.adminToken);
    await page.click('#login-form button');
    await page.waitForSelector('#stream-state[data-state="live"]');
    await noHorizontalOverflow(page);
  });

  it('denies with a reason typed after n (keys do nothing while typing), and the model answers with it', { timeout: 60_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const runId = await inbox.startRun('write a greeting');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const { page, incidents } = await openPage(1280);
    // Already pending before the page opened: it comes from GET /approvals.
    await page.goto(inbox.server.loginUrl);
    await page.locator('.approval').waitFor();
    await page.keyboard.press('n');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('deny-reason');
    // "y", "s", "a", "n" and "e" are shortcuts outside the field: typed here they are just letters.
    await page.keyboard.type('not today, says the test');
    expect(await page.inputValue('.deny-reason')).toBe('not today, says the test');
    expect((await inbox.api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');
    await page.keyboard.press('Enter');
    await page.locator('.approval').waitFor({ state: 'detached' });
    const run = await inbox.waitForRun(runId, ['completed', 'cancelled']);
    expect(run.text).toContain('you denied it because "not today, says the test"');
    // The run's timeline says the call was denied, and why.
    await page.evaluate((id) => (location.hash = `#run=${encodeURIComponent(id)}`), runId);
    await page.getByText(/write_file denied: denied by a person: not today, says the test/).waitFor();
    expect(run.decisions).toMatchObject([{ approved: false, reason: 'not today, says the test' }]);
    expect(readFileSync(path.join(inbox.root, 'ws', 'hello.txt'), { flag: 'a+' }).length).toBe(0);
    expect(incidents).toEqual([]);
  });

  it('keeps a reason being typed while other calls arrive, and a second hurried key never approves the card that moved under it', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const first = await inbox.startRun('write a greeting');
    await inbox.waitForRun(first, ['paused_checkpoint']);
    const { page, incidents } = await openPage(1280);
    await page.goto(inbox.server.loginUrl);
    await page.locator('.approval').waitFor();
    await page.waitForTimeout(500);
    await page.keyboard.press('n');
    await page.keyboard.type('half a reas');
    // Another run pauses: its card arrives while the person is typing in the first one.
    const second = await inbox.startRun('write another greeting');
    await inbox.waitForRun(second, ['paused_checkpoint']);
    await page.locator('.approval').nth(1).waitFor();
    await page.keyboard.type('on');
    expect(await page.evaluate(() => (document.activeElement as { value?: string } | null)?.value)).toBe('half a reason');
    await page.keyboard.press('Escape');
    // `y` twice in a row: the first approves the selected card; the second lands on the card that just moved under
    // the selection, and is dropped. (Both runs' calls are tg_1_1: deciding one must not drop the other's card.)
    await page.waitForTimeout(500);
    await page.keyboard.press('y');
    await page.keyboard.press('y');
    await page.waitForFunction(() => document.querySelectorAll('.approval').length === 1);
    await page.waitForTimeout(300);
    const statuses = [(await inbox.api(`/runs/${first}`)).json.status, (await inbox.api(`/runs/${second}`)).json.status];
    expect(statuses.filter((status) => status === 'paused_checkpoint')).toHaveLength(1);
    // After it settles, the key works again.
    await page.waitForTimeout(500);
    await page.keyboard.press('y');
    await page.locator('.approval').waitFor({ state: 'detached' });
    await inbox.waitForRun(first, ['completed']);
    await inbox.waitForRun(second, ['completed']);
    expect(incidents).toEqual([]);
  });

  it('edits the arguments one field each (a file\'s content as text): the other allow actions wait while the edit is unsaved, the schema error from the server is shown, then the edited call runs', { timeout: 60_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const { page, incidents } = await openPage(1280);
    await page.goto(inbox.server.loginUrl);
    await page.waitForSelector('#stream-state[data-state="live"]');
    const runId = await inbox.startRun('write a greeting');
    const card = page.locator('.approval').first();
    await card.waitFor();
    await page.keyboard.press('e');
    const pathField = card.locator('.edit-field[data-name="path"]');
    const contentField = card.locator('.edit-field[data-name="content"]');
    expect(await pathField.inputValue()).toBe('ws/hello.txt');
    // The content as the text it is, lines and all: no escaped JSON.
    expect(await contentField.inputValue()).toBe('Hello from the inbox\nline 2\nline 3\n');
    expect(await contentField.evaluate((node: any) => node.tagName)).toBe('TEXTAREA');
    await contentField.fill('edited in the inbox\n');
    // Unsaved: Allow once would run the call as it was, so it waits (and so does its key).
    expect(await card.getByRole('button', { name: 'Allow once' }).isDisabled()).toBe(true);
    expect(await card.getByRole('button', { name: 'Always…' }).isDisabled()).toBe(true);
    await pathField.fill('');
    await card.getByRole('button', { name: 'Allow with these arguments' }).click();
    await expect.poll(() => card.locator('.error').textContent()).not.toBe('');
    const shown = await card.locator('.error').textContent();
    expect(shown).toContain("edited_args do not fit write_file's schema");
    expect(shown).toContain('path');
    expect((await inbox.api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');
    expect(await card.getByRole('button', { name: 'Allow once' }).isDisabled()).toBe(true);
    await card.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-edit-fields-1280.png') });
    await pathField.fill('ws/hello.txt');
    await card.getByRole('button', { name: 'Allow with these arguments' }).click();
    await page.locator('.approval').waitFor({ state: 'detached' });
    await inbox.waitForRun(runId, ['completed']);
    expect(readFileSync(path.join(inbox.root, 'ws', 'hello.txt'), 'utf8')).toBe('edited in the inbox\n');
    // The one refusal: the schema check of the first edit.
    expect(incidents).toEqual([`http 400 POST /runs/${runId}/approve`]);
  });

  it('shows hostile arguments as visible inert text, never runs them, and decides the group at once', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('hostile.yaml');
    const { page, incidents } = await openPage(1280);
    await page.goto(inbox.server.loginUrl);
    await page.waitForSelector('#stream-state[data-state="live"]');
    const runId = await inbox.startRun('do it');
    const group = page.locator('.group');
    await group.waitFor();
    await expect.poll(() => group.locator('.approval').count()).toBe(2);
    const file = group.locator('.block-file');
    const text = (await file.locator('.line').allTextContents()).join('\n');
    expect(text).toContain("<script>window.__pwned = 1; alert('script')</script>");
    expect(text).toContain('<img src=x onerror="window.__pwned = 2;');
    for (const escape of ['\\x07', '\\x1b[31mred', '\\x85', '\\u202eevil-bidi', '\\u2066iso\\u2069', 'zero\\u200bwidth']) expect(text).toContain(escape);
    expect(await file.locator('.esc').count()).toBeGreaterThanOrEqual(7);
    const command = (await group.locator('.block-command').textContent()) ?? '';
    expect(command).toContain("echo '<script>alert(3)</script>' \\x1b]0;title\\x07");
    expect(command).toMatch(/in \/\S*\/ws$/);
    // Nothing ran and nothing was injected: no dialog, no global, no element but the page's own.
    const dom = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      images: document.images.length,
      scripts: [...document.scripts].map((script) => script.getAttribute('src')),
      inlineHandlers: [...document.querySelectorAll('*')].filter((node) => [...node.attributes].some((attribute) => attribute.name.startsWith('on'))).length,
      hidden: /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u.test(document.body.innerText),
    }));
    expect(dom).toEqual({ pwned: null, images: 0, scripts: ['/assets/inbox.js'], inlineHandlers: 0, hidden: false });
    await group.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-hostile-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalOverflow(page);
    // Every line is there to read: none runs off the right edge of its block.
    const cutOff = await page.evaluate(() => [...document.querySelectorAll('pre.code')].filter((block: any) => block.scrollWidth > block.clientWidth + 1).map((block: any) => block.textContent.slice(0, 60)));
    expect(cutOff).toEqual([]);
    await group.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-hostile-390.png') });

    await group.locator('.group-reason').fill('not these');
    await group.getByRole('button', { name: 'Deny all' }).click();
    await page.locator('.group').waitFor({ state: 'detached' });
    const run = await inbox.waitForRun(runId, ['completed', 'cancelled']);
    expect(run.decisions).toHaveLength(2);
    expect(run.decisions.every((decision: { approved: boolean; reason: string }) => !decision.approved && decision.reason === 'not these')).toBe(true);
    expect(() => readFileSync(path.join(inbox.root, 'ws', 'evil.txt'))).toThrow();
    expect(incidents).toEqual([]);
  });

  it("an agent host's ask reads in a glance on a phone: what will happen first, the command once, what cannot be undone, why, the rule and its line, who asks", { timeout: 60_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const workspace = path.join(inbox.root, 'ws');
    const call = { session_id: 'sess-1234', cwd: workspace, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git reset --hard HEAD~1' }, tool_use_id: 'toolu_1' };
    // The hook waits for the decision: sent now, answered below.
    const answer = fetch(`${inbox.server.url}/hooks/claude-code?shell=%2Fbin%2Fbash`, { method: 'POST', headers: { authorization: `Bearer ${inbox.server.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(call) }).then((response) => response.json() as Promise<{ hookSpecificOutput: unknown }>);
    const { page, incidents } = await openPage(390);
    await page.goto(inbox.server.loginUrl);
    const card = page.locator('.approval').first();
    await card.waitFor();
    expect(await card.locator('h2').textContent()).toBe(`Run git reset --hard HEAD~1 in ${workspace}`);
    expect(await card.locator('.tool-tag').textContent()).toBe('shell');
    expect(await card.locator('.consequence').allTextContents()).toEqual(['It throws away every uncommitted change to tracked files and moves the branch to HEAD~1: commits after it are left only in the reflog']);
    const why = await card.locator('.reason').textContent();
    expect(why).toMatch(/^Why it asks: no rule matches this command, so shell\.default applies \(ask\)/);
    expect(why).not.toContain('Run git reset');
    expect(await card.locator('.asked-by').textContent()).toMatch(/^Asked by the policy's shell\.default \(ask\) — .*toolgate\.yaml:\d+$/);
    const asker = await card.locator('.asker').allTextContents();
    expect(asker[0]).toBe(`Asked by Claude Code, session sess-1234, in ${workspace}, shell /bin/bash`);
    expect(asker[1]).toMatch(/^Claude Code waits for the answer until \d\d:\d\d:\d\d UTC/);
    // The command once in full (besides the heading), no paragraph twice, no arguments to edit.
    const text = await card.innerText();
    expect(text.split('git reset --hard HEAD~1')).toHaveLength(3);
    expect(await card.locator('.description').count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Edit arguments' }).count()).toBe(0);
    await noHorizontalOverflow(page);
    await card.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-hook-ask-390.png') });
    await card.locator('.deny-reason').fill('not now');
    await card.getByRole('button', { name: 'Deny' }).click();
    expect((await answer).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(incidents).toEqual([]);
  });

  it('makes the wide approvals deliberate: "For this session" and "Always" say what they cover and take a second step, by click or key', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const runId = await inbox.startRun('write a greeting');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const { page, incidents } = await openPage(1280);
    await page.goto(inbox.server.loginUrl);
    const card = page.locator('.approval').first();
    await card.waitFor();
    // "Allow once" is the one primary action.
    expect(await card.locator('button.primary').allTextContents()).toEqual(['Allow once']);
    await card.getByRole('button', { name: 'Always…' }).click();
    await card.locator('.confirm').waitFor();
    // "Always" asks which calls: this exact call (checked: the narrowest), or calls like this one, each said in full.
    const choices = card.locator('.scope-choice');
    expect(await choices.locator('.scope-text').allTextContents()).toEqual([
      'Only this exact call: write_file with exactly these arguments, nothing else',
      'Calls like this one: later write_file calls in this session and every later one with the same zone "workspace" and path "hello.txt", whatever their content, until revoked (toolgate approvals)',
    ]);
    expect(await choices.locator('input').first().isChecked()).toBe(true);
    // The reason that only repeats the description is not said twice.
    expect(await card.locator('.reason').count()).toBe(0);
    // One click decided nothing.
    await page.waitForTimeout(300);
    expect((await inbox.api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');
    await card.getByRole('button', { name: 'Cancel' }).click();
    expect(await card.locator('.confirm').isHidden()).toBe(true);
    // By key, as in the terminal: a shows what "always" covers, Esc takes it back, a and a again decides.
    await page.waitForTimeout(500);
    await page.keyboard.press('a');
    await card.locator('.confirm').waitFor();
    await page.keyboard.press('Escape');
    expect(await card.locator('.confirm').isHidden()).toBe(true);
    expect((await inbox.api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');
    await page.keyboard.press('a');
    await card.locator('.confirm').waitFor();
    await card.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-always-second-step-1280.png') });
    // a again takes the checked choice, as in the terminal (where it takes the first).
    await page.keyboard.press('a');
    await page.locator('.approval').waitFor({ state: 'detached' });
    const run = await inbox.waitForRun(runId, ['completed']);
    expect(run.decisions).toMatchObject([{ approved: true, scope: 'always' }]);

    // Always allowed: listed with the rule it amounts to, and revocable; then the same call asks again.
    await page.evaluate(() => (location.hash = '#always'));
    const item = page.locator('.always-item').first();
    await item.waitFor();
    expect(await item.locator('.tool').textContent()).toBe('write_file');
    expect(await item.locator('.always-description').textContent()).toBe('write_file with exactly these arguments, nothing else');
    expect(await item.locator('.always-payload').textContent()).toMatch(/^Rule: write_file with arguments sha256:[0-9a-f]{16}$/);
    await item.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-always-list-1280.png') });
    await item.getByRole('button', { name: 'Revoke' }).click();
    await page.locator('.always-item').waitFor({ state: 'detached' });
    expect((await inbox.api('/approvals/always')).json.approvals).toEqual([]);
    const again = await inbox.startRun('write a greeting');
    await inbox.waitForRun(again, ['paused_checkpoint']);
    expect(incidents).toEqual([]);
  });

  it('"Always" can be wider: for a shell call, "wc with any arguments in this zone" shows the policy line it amounts to, and the next wc runs unasked', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('count-lines.yaml');
    const runId = await inbox.startRun('count the notes');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const { page, incidents } = await openPage(390);
    await page.goto(inbox.server.loginUrl);
    const card = page.locator('.approval').first();
    await card.waitFor();
    await card.getByRole('button', { name: 'Always…' }).click();
    const choices = card.locator('.scope-choice');
    await choices.first().waitFor();
    expect(await choices.locator('.scope-text').allTextContents()).toEqual([
      'Only this exact call: shell with exactly these arguments, nothing else',
      expect.stringMatching(/^Calls like this one: later shell calls .*"wc -l notes\.txt"/),
      'Wider: "wc" with any arguments, run in zone workspace, with every path inside it (each part of a later command must be one of these or allowed by the policy)',
    ]);
    expect(await choices.locator('.scope-rule').allTextContents()).toEqual([expect.stringMatching(/^shell with arguments sha256:/), 'shell.rules: { match: "wc", decision: allow, paths_in: [workspace] }']);
    // Nothing runs off the edge of a phone.
    expect(await card.evaluate((node: any) => node.scrollWidth <= node.clientWidth + 1)).toBe(true);
    await choices.nth(2).locator('label').click();
    await card.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-always-choices-390.png') });
    await card.getByRole('button', { name: 'Allow always' }).click();
    // The second wc (other arguments) is covered: the run completes without pausing again.
    const run = await inbox.waitForRun(runId, ['completed']);
    expect(run.decisions).toMatchObject([{ approved: true, scope: 'always' }]);
    const kept = (await inbox.api('/approvals/always')).json.approvals;
    expect(kept).toMatchObject([{ tool: 'shell', rule: 'shell.rules: { match: "wc", decision: allow, paths_in: [workspace] }' }]);
    await page.evaluate(() => (location.hash = '#always'));
    const item = page.locator('.always-item').first();
    await item.waitFor();
    expect(await item.locator('.always-payload').textContent()).toBe('Rule: shell.rules: { match: "wc", decision: allow, paths_in: [workspace] }');
    await item.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-always-rule-390.png') });
    expect(incidents).toEqual([]);
  });

  it('says above the cards when a notification was given up on, and the call still waits there', { timeout: 90_000 }, async () => {
    // A webhook nobody listens on, tried once: dead at once.
    const channel = '\nserver:\n  channels:\n    ops:\n      type: webhook\n      url: http://127.0.0.1:9/hook\n      secret_file: webhook-secret\n      max_attempts: 1\n';
    const inbox = await startInbox('write-hello.yaml', { policyLines: channel, files: { 'webhook-secret': 'a-webhook-secret-of-32-characters\n' } });
    const runId = await inbox.startRun('write a greeting');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const deadline = Date.now() + 20_000;
    while ((await inbox.api('/notifications?status=dead')).json.counts.dead !== 1) {
      if (Date.now() > deadline) throw new Error('the notification was not given up on');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listed = (await inbox.api('/notifications?status=dead')).json;
    expect(listed.deliveries).toMatchObject([{ channel: 'ops', run_id: runId, tool_call_id: 'tg_1_1', status: 'dead', attempts: 1, last_error: expect.stringContaining('gave up after 1 try: http://127.0.0.1:9') }]);
    expect(listed.deliveries[0]).not.toHaveProperty('body');
    const { page, incidents } = await openPage(390);
    await page.goto(inbox.server.loginUrl);
    await page.locator('.approval').first().waitFor();
    const banner = page.locator('#dead-letters');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/^⚠ 1 notification was not delivered after every retry \(latest: ops, gave up after 1 try: http:\/\/127\.0\.0\.1:9.*\)\. The calls still wait here\.$/);
    expect(incidents).toEqual([]);
  });

  it('lists the "for this session" decisions beside the "always" ones, with who decided and when, and forgets one', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const runId = await inbox.startRun('write a greeting');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const { page, incidents } = await openPage(390);
    await page.goto(inbox.server.loginUrl);
    const card = page.locator('.approval').first();
    await card.waitFor();
    await page.waitForTimeout(500);
    // s shows what "for this session" covers, s again decides.
    await page.keyboard.press('s');
    await card.locator('.confirm').waitFor();
    await page.keyboard.press('s');
    await page.locator('.approval').waitFor({ state: 'detached' });
    await inbox.waitForRun(runId, ['completed']);
    await page.evaluate(() => (location.hash = '#always'));
    const item = page.locator('.session-item').first();
    await item.waitFor();
    expect(await page.locator('.always-item').count()).toBe(0);
    expect(await item.locator('.tool').textContent()).toBe('write_file');
    expect(await item.locator('.session-verdict').textContent()).toBe('Allowed');
    expect(await item.locator('.always-description').textContent()).toContain('hello.txt');
    expect(await item.locator('.run-meta').textContent()).toMatch(/^Session \S+ \(\S+'s runs\) · approved by \S+ /);
    await item.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-session-list-390.png') });
    await item.getByRole('button', { name: 'Forget' }).click();
    await page.locator('.session-item').waitFor({ state: 'detached' });
    expect((await inbox.api('/approvals/session')).json.approvals).toEqual([]);
    expect(incidents).toEqual([]);
  });

  it('says on a card when another approver has it open ("claimed by NAME"), and stops saying it when they turn away', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const bobToken = newToken();
    expect(await inbox.server.store.createToken({ name: 'bob', role: 'approver', hash: hashToken(bobToken) })).toBe(true);
    const runId = await inbox.startRun('write a greeting');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const admin = await openPage(1280);
    await admin.page.goto(inbox.server.loginUrl);
    const adminCard = admin.page.locator('.approval').first();
    await adminCard.waitFor();
    expect(await adminCard.locator('.claimed').isHidden()).toBe(true);
    // Bob opens the inbox on his phone: his card is the selected one, so he has it open.
    const bob = await openPage(390);
    await bob.page.goto(inbox.server.loginUrl.replace(inbox.server.adminToken, bobToken));
    await bob.page.locator('.approval').first().waitFor();
    await expect.poll(() => adminCard.locator('.claimed').textContent(), { timeout: 15_000 }).toBe('bob has this open now');
    // Bob sees the admin's presence too (the admin's page has the card selected).
    await expect.poll(() => bob.page.locator('.approval .claimed').first().textContent(), { timeout: 15_000 }).toBe('admin has this open now');
    await adminCard.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-claimed-by-1280.png') });
    // Bob turns to the runs list: the card is no longer his.
    await bob.page.evaluate(() => (location.hash = '#runs'));
    await expect.poll(() => adminCard.locator('.claimed').isHidden(), { timeout: 15_000 }).toBe(true);
    // The API refuses what is not a list of cards.
    expect((await inbox.api('/approvals/presence', { open: 'everything' })).status).toBe(400);
    expect(admin.incidents).toEqual([]);
    expect(bob.incidents).toEqual([]);
  });

  it('puts the risk first, and a group holding a dangerous call cannot be approved as a group: its actions come after the calls', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('risky-group.yaml');
    const runId = await inbox.startRun('set things up');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const { page, incidents } = await openPage(390);
    await page.goto(inbox.server.loginUrl);
    const group = page.locator('.group');
    await group.waitFor();
    await expect.poll(() => group.locator('.approval').count()).toBe(3);
    const cards = group.locator('.approval');
    expect(await cards.nth(0).locator('.risk').textContent()).toBe('Dangerous');
    expect(await cards.nth(0).locator('.consequence').allTextContents()).toEqual(['It throws away every uncommitted change to tracked files and moves the branch to HEAD~1: commits after it are left only in the reflog']);
    expect(await cards.nth(1).locator('.risk').textContent()).toBe('Dangerous');
    expect(await cards.nth(1).locator('.consequence').allTextContents()).toEqual(['It deletes untracked files, ignored ones too, which git cannot bring back']);
    expect(await cards.nth(2).locator('.risk').textContent()).toBe('Notable');
    // No button of the group approves; it says why, after the calls.
    expect(await group.locator('.group-buttons button').allTextContents()).toEqual(['Deny all 3']);
    expect(await group.locator('.group-note').textContent()).toContain('2 of these 3 calls are dangerous');
    const order = await group.evaluate((box: any) => [...box.children].map((child: any) => child.className));
    expect(order.indexOf('buttons group-buttons')).toBeGreaterThan(order.lastIndexOf('approval'));
    await noHorizontalOverflow(page);
    await group.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-risky-group-390.png') });
    await group.locator('.group-reason').fill('not like this');
    await group.getByRole('button', { name: 'Deny all 3' }).click();
    const run = await inbox.waitForRun(runId, ['completed', 'cancelled']);
    expect(run.decisions.every((decision: { approved: boolean }) => !decision.approved)).toBe(true);
    expect(incidents).toEqual([]);
  });

  it('holds each decision for a few seconds with Undo: undone, nothing was sent and nothing ran; let go, the run goes on', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml', { policyLines: 'approval_timeout: 10m\n' });
    const runId = await inbox.startRun('write a greeting');
    await inbox.waitForRun(runId, ['paused_checkpoint']);
    const { page, incidents } = await openPage(390);
    await page.goto(inbox.server.loginUrl);
    const card = page.locator('.approval').first();
    await card.waitFor();
    // How long it has waited, and when the policy's approval_timeout denies it.
    expect(await card.locator('.waiting').textContent()).toMatch(/^Waiting less than a minute · times out in (9|10) min$/);
    await card.getByRole('button', { name: 'Allow once' }).click();
    const toast = page.locator('.toast');
    await toast.waitFor();
    expect(await toast.locator('.toast-text').textContent()).toBe('Allowed once: write_file · ');
    expect(await card.isHidden()).toBe(true);
    await toast.getByRole('button', { name: 'Undo' }).click();
    expect(await card.isVisible()).toBe(true);
    // Longer than the hold: nothing was sent, nothing was written.
    await page.waitForTimeout(5_000);
    expect((await inbox.api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');
    expect(existsSync(path.join(inbox.root, 'ws', 'hello.txt'))).toBe(false);
    // By key: y decides, u takes it back.
    await page.keyboard.press('y');
    await toast.waitFor();
    await page.keyboard.press('u');
    await toast.waitFor({ state: 'detached' });
    expect(await card.isVisible()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-inbox-undo-390.png') });
    // Let go, it is sent when the hold ends, and the run goes on (the card is back on screen: a key waits for it to settle).
    await page.waitForTimeout(500);
    await page.keyboard.press('y');
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await inbox.waitForRun(runId, ['completed']);
    expect(readFileSync(path.join(inbox.root, 'ws', 'hello.txt'), 'utf8')).toContain('Hello from the inbox');
    expect(incidents).toEqual([]);
  });

  it('notifies, once asked on a click: a browser notification when a call arrives (naming a dangerous one), the count in the tab title', { timeout: 60_000 }, async () => {
    const inbox = await startInbox('risky-group.yaml');
    const { page, incidents } = await openPage(1280);
    // Headless Chromium shows no desktop notifications: the page's Notification records what toolgate asks it to show.
    await page.addInitScript(() => {
      const shown: Array<{ title: string; body: string }> = [];
      (window as any).__shown = shown;
      (window as any).Notification = class {
        static permission = 'default';
        static async requestPermission() {
          (this as any).permission = 'granted';
          return 'granted';
        }
        constructor(title: string, options: { body: string }) {
          shown.push({ title, body: options.body });
        }
      };
    });
    await page.goto(inbox.server.loginUrl);
    await page.waitForSelector('#stream-state[data-state="live"]');
    await page.click('#notify-toggle');
    await expect.poll(() => page.locator('#notify-toggle').textContent()).toBe('Notifications on');
    const runId = await inbox.startRun('set things up');
    await expect.poll(() => page.evaluate(() => (window as any).__shown.length)).toBe(3);
    const shown = (await page.evaluate(() => (window as any).__shown)) as Array<{ title: string; body: string }>;
    expect(shown[0]).toEqual({ title: 'toolgate: a dangerous call waits for you', body: expect.stringMatching(/^Run git reset --hard HEAD~1 in /) });
    expect(shown[2]!.title).toBe('toolgate: a call waits for you');
    expect(await page.title()).toBe('(3) toolgate inbox');
    await page.locator('.group-reason').fill('no');
    await page.getByRole('button', { name: 'Deny all 3' }).click();
    await inbox.waitForRun(runId, ['completed', 'cancelled']);
    await expect.poll(() => page.title()).toBe('toolgate inbox');
    expect(incidents).toEqual([]);
  });

  it('a held decision takes one press only, a click just after a card left is not taken for the next card, and keys act on the card the person clicked', { timeout: 90_000 }, async () => {
    const inbox = await startInbox('write-hello.yaml');
    const runs: string[] = [];
    for (const input of ['first greeting', 'second greeting', 'third greeting']) {
      const runId = await inbox.startRun(input);
      await inbox.waitForRun(runId, ['paused_checkpoint']);
      runs.push(runId);
    }
    const { page, incidents } = await openPage(1280);
    await page.goto(inbox.server.loginUrl);
    await expect.poll(() => page.locator('.approval').count()).toBe(3);
    await page.waitForTimeout(500);
    const status = async () => Promise.all(runs.map(async (runId) => (await inbox.api(`/runs/${runId}`)).json.status as string));
    // Enter twice on Allow once: one hold, and one Undo takes it all back.
    const first = page.locator('.approval').first();
    await first.getByRole('button', { name: 'Allow once' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    expect(await page.locator('.toast').count()).toBe(1);
    await page.locator('.toast').getByRole('button', { name: 'Undo' }).click();
    await page.waitForTimeout(5_000);
    expect(await status()).toEqual(['paused_checkpoint', 'paused_checkpoint', 'paused_checkpoint']);
    // A double click on Allow once: the second click lands on the next card's button, and is not taken.
    await page.waitForTimeout(500);
    await first.getByRole('button', { name: 'Allow once' }).dblclick();
    expect(await page.locator('.toast').count()).toBe(1);
    await page.locator('.toast').getByRole('button', { name: 'Undo' }).click();
    await page.waitForTimeout(5_000);
    expect(await status()).toEqual(['paused_checkpoint', 'paused_checkpoint', 'paused_checkpoint']);
    // A click inside the third card makes it the one y decides, not the first.
    const third = page.locator('.approval').nth(2);
    await third.locator('.description').click();
    await page.waitForTimeout(500);
    await page.keyboard.press('y');
    await third.waitFor({ state: 'detached', timeout: 15_000 });
    await inbox.waitForRun(runs[2]!, ['completed']);
    expect((await status()).slice(0, 2)).toEqual(['paused_checkpoint', 'paused_checkpoint']);
    expect(incidents).toEqual([]);
  });

  it('the server refuses a group approval that would carry a dangerous call, and still takes the group denial', { timeout: 60_000 }, async () => {
    const inbox = await startInbox('risky-group.yaml');
    const runId = await inbox.startRun('set things up');
    const paused = await inbox.waitForRun(runId, ['paused_checkpoint']);
    const groupId = paused.pending_approvals[0].group_id as string;
    const refused = await inbox.api(`/runs/${runId}/approve`, { approved: true, group_id: groupId });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toContain('the group holds 2 calls that cannot be undone');
    expect((await inbox.api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');
    expect((await inbox.api(`/runs/${runId}/approve`, { approved: false, group_id: groupId, reason: 'no' })).status).toBe(200);
  });
});

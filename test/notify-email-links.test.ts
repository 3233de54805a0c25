/**
 * A pending approval reaches people by email with a one-tap link (issue 35),
 * with real parts: the server, a real SMTP server on loopback (smtp-server)
 * that receives the messages, mailparser to read them, and the link
 * followed in headless Chromium at phone width. Opening the link (or a
 * scanner fetching it) decides nothing; the page's button decides, once, as
 * the approver the link was sent to; a second use, another approver's link
 * to a call already decided, an expired, forged or changed link, and a link
 * whose approver lost their token decide nothing, each saying why.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Browser } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stateDirectory } from '../src/config/load-policy-file.ts';
import { decisionLinkToken, newDecisionLink } from '../src/server/notify/decision-links.ts';
import { silentLogger } from '../src/server/log.ts';
import { loadServerSecrets } from '../src/server/server-secrets.ts';
import { startToolgateServer, type RunningToolgateServer } from '../src/server/start-server.ts';
import { hashToken, newToken } from '../src/server/tokens.ts';
import { webAssets } from '../src/server/web/web-assets.ts';
import { recordKey } from '../src/store/record-mac.ts';
import { launchChromium, until } from './headless-chromium.ts';

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

/** A real SMTP server on loopback: every message it accepts, parsed. */
async function startSmtp() {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, messages };
}

async function startServer(smtpPort: number, script = 'write-hello.yaml'): Promise<{ server: RunningToolgateServer; root: string; carolToken: string; api: (pathname: string, body?: unknown) => Promise<{ status: number; json: any }> }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-email-'));
  mkdirSync(path.join(root, 'ws'));
  const policyFile = path.join(root, 'toolgate.yaml');
  const channel = [
    'server:',
    '  channels:',
    '    mail:',
    '      type: email',
    `      smtp: { host: 127.0.0.1, port: ${smtpPort}, secure: false }`,
    '      from: "toolgate <toolgate@example.test>"',
    '      to:',
    '        - { approver: carol, address: carol@example.test }',
    '        - { approver: dave, address: dave@example.test }',
    '      retry_after: 100ms',
    '',
  ].join('\n');
  writeFileSync(policyFile, `${readFileSync(path.join(FIXTURES, 'policy.yaml'), 'utf8')}\n${channel}`);
  const server = await startToolgateServer({ policyFile, storeFile: path.join(root, '.toolgate', 'toolgate.db'), port: 0, model: `script:${path.join(FIXTURES, script)}`, env: {}, logger: silentLogger(), cwd: root, web: webAssets() });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }), () => server.close());
  const tokens: Record<string, string> = {};
  for (const name of ['carol', 'dave']) {
    tokens[name] = newToken();
    expect(await server.store.createToken({ name, role: 'approver', hash: hashToken(tokens[name]!) })).toBe(true);
  }
  const api = async (pathname: string, body?: unknown) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  };
  return { server, root, api, carolToken: tokens.carol! };
}

function linkIn(mail: ParsedMail): string {
  const match = /^Decide: (\S+)$/m.exec(mail.text ?? '');
  if (match === null) throw new Error(`no link in: ${mail.text}`);
  return match[1]!;
}

describe('email with one-tap links', () => {
  it('mails each approver a link of their own; opening it decides nothing, its button decides once, and every other use says why it does nothing', { timeout: 90_000 }, async () => {
    const smtp = await startSmtp();
    const { server, root, api, carolToken } = await startServer(smtp.port);
    const runId = (await api('/runs', { input: 'write a greeting' })).json.run_id as string;
    const mails = await until('two messages', () => (smtp.messages.length >= 2 ? smtp.messages : undefined));
    const byRecipient = new Map(mails.map((mail) => [String((mail.to as { text: string }).text), mail]));
    const carol = byRecipient.get('carol@example.test')!;
    const dave = byRecipient.get('dave@example.test')!;
    expect(carol.subject).toMatch(/^\[toolgate\] approve\? /);
    expect(carol.text).toContain('Hello from the inbox');
    expect(carol.text).toContain('It decides as carol, for this call only, once, until');
    expect(carol.html).toContain('Review and decide');
    expect(carol.headers.get('x-toolgate-delivery')).toBe(`mail/${runId}/tg_1_1/requested/carol`);
    const carolLink = linkIn(carol);
    const daveLink = linkIn(dave);
    expect(carolLink).not.toBe(daveLink);
    expect(carolLink.startsWith(`${server.url}/decide/`)).toBe(true);
    // No token that can do more than this: the link is not the admin's, nor an approver's API token.
    expect(carol.text).not.toContain(server.adminToken);

    // A mail scanner, a chat preview or a prefetcher fetches the link: nothing is decided.
    const prefetched = await fetch(carolLink, { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    expect(prefetched.status).toBe(200);
    expect(prefetched.headers.get('content-type')).toContain('text/html');
    const viewed = await fetch(`${carolLink}/view`);
    expect(viewed.status).toBe(200);
    expect(await viewed.json()).toMatchObject({ state: 'waiting', approver: 'carol', run_id: runId, tool_call_id: 'tg_1_1', tool_name: 'write_file' });
    expect((await api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');

    // The screenshot of the message itself, at phone width.
    const mailPage = await (await browser.newContext({ viewport: { width: 390, height: 800 } })).newPage();
    cleanups.push(() => mailPage.context().close());
    await mailPage.setContent(String(carol.html), { waitUntil: 'load' });
    await mailPage.screenshot({ path: path.join(ARTIFACTS, 'email-message-390.png'), fullPage: true });

    // Dave forwarded his message to Carol, and Carol's browser is signed in to the inbox as carol: his link says whose it is and decides nothing.
    const carolsBrowser = await browser.newContext({ viewport: { width: 390, height: 844 } });
    cleanups.push(() => carolsBrowser.close());
    const inboxPage = await carolsBrowser.newPage();
    await inboxPage.goto(`${server.url}/login#token=${encodeURIComponent(carolToken)}`);
    await inboxPage.locator('.approval').first().waitFor();
    await until('the inbox to remember who is signed in', async () => ((await inboxPage.evaluate(() => (globalThis as any).localStorage.getItem('toolgate-signed-in-as'))) === 'carol' ? true : undefined));
    const forwarded = await carolsBrowser.newPage();
    await forwarded.goto(daveLink);
    await forwarded.locator('.decide-result.refused').waitFor();
    expect(await forwarded.locator('.decide-result h2').textContent()).toBe("This link is someone else's");
    expect(await forwarded.locator('.decide-result p').textContent()).toBe("It was sent to dave, and this browser is signed in to toolgate's inbox as carol. Nothing was decided: carol can decide the call in the inbox.");
    expect(await forwarded.locator('button').count()).toBe(0);
    expect((await api(`/runs/${runId}`)).json.status).toBe('paused_checkpoint');

    // Carol opens her own on her phone and approves.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    const incidents: string[] = [];
    page.on('pageerror', (error) => incidents.push(error.message));
    await page.goto(carolLink);
    await page.locator('.approval').waitFor();
    expect(await page.locator('.link-for').textContent()).toContain('You decide as carol. This link works once, for this call only');
    expect(await page.locator('.approval').textContent()).toContain('Hello from the inbox');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).document.documentElement.clientWidth + 1)).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'email-link-page-390.png'), fullPage: true });
    await page.getByRole('button', { name: 'Approve once' }).click();
    await page.locator('.decide-result.approved').waitFor();
    const run = await until('the run to finish', async () => {
      const view = (await api(`/runs/${runId}`)).json;
      return view.status === 'completed' ? view : undefined;
    });
    expect(run.decisions).toMatchObject([{ approved: true, decided_by: 'carol', via: 'link', scope: 'once' }]);
    expect(readFileSync(path.join(root, 'ws', 'hello.txt'), 'utf8')).toBe('Hello from the inbox\nline 2\nline 3\n');
    expect(incidents).toEqual([]);

    // The same link again, and Dave's (another approver's) link to the same call: already decided, nothing more.
    await page.goto(carolLink);
    await page.locator('.decide-result.refused').waitFor();
    expect(await page.locator('.decide-result h2').textContent()).toBe('This call was already decided');
    expect(await page.locator('.decide-result p').textContent()).toContain('approved by carol with a link');
    for (const link of [carolLink, daveLink]) {
      const again = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify({ approved: false }) });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ state: 'decided' });
    }
    expect((await api(`/runs/${runId}`)).json.decisions).toHaveLength(1);
  });

  it('an expired, forged or changed link, or one whose approver lost their token, decides nothing', { timeout: 90_000 }, async () => {
    const smtp = await startSmtp();
    const { server, root, api } = await startServer(smtp.port);
    const runId = (await api('/runs', { input: 'write a greeting' })).json.run_id as string;
    await until('two messages', () => (smtp.messages.length >= 2 ? true : undefined));
    const key = recordKey(loadServerSecrets({ stateDirectory: stateDirectory(root), env: {} }).secret);
    const shown = (await api(`/runs/${runId}`)).json.pending_approvals[0].tool_arguments as string;
    const link = (fields: Partial<Parameters<typeof newDecisionLink>[0]>) =>
      `${server.url}/decide/${decisionLinkToken({ key, link: newDecisionLink({ approver: 'carol', runId, toolCallId: 'tg_1_1', shownArguments: shown, ttlMs: 3_600_000, now: Date.now(), ...fields }) })}`;
    const expect4xx = async (url: string, status: number, state: string) => {
      const viewed = await fetch(`${url}/view`);
      expect([viewed.status, ((await viewed.json()) as any).state]).toEqual([status, state]);
      const posted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify({ approved: true }) });
      expect([posted.status, ((await posted.json()) as any).state]).toEqual([status, state]);
    };
    await expect4xx(link({ ttlMs: -1_000 }), 410, 'expired');
    await expect4xx(link({ shownArguments: '{"path":"ws/other.txt"}' }), 409, 'changed');
    await expect4xx(link({ runId: 'run_nobody' }), 404, 'gone');
    // Signed with another key, or one character changed: not toolgate's.
    const forged = `${server.url}/decide/${decisionLinkToken({ key: recordKey('another server'), link: newDecisionLink({ approver: 'carol', runId, toolCallId: 'tg_1_1', shownArguments: shown, ttlMs: 3_600_000, now: Date.now() }) })}`;
    await expect4xx(forged, 404, 'invalid');
    const good = link({});
    await expect4xx(`${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`, 404, 'invalid');
    // Dave's token revoked: his link can no longer decide.
    expect(await server.store.revokeToken('dave')).toBe(true);
    await expect4xx(link({ approver: 'dave' }), 403, 'approver_gone');
    // Someone who is no approver at all (a name no token has).
    await expect4xx(link({ approver: 'mallory' }), 403, 'approver_gone');
    expect((await api(`/runs/${runId}`)).json).toMatchObject({ status: 'paused_checkpoint', decisions: [] });
    // And the page says so too.
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    cleanups.push(() => page.context().close());
    await page.goto(link({ ttlMs: -1_000 }));
    await page.locator('.decide-result.refused').waitFor();
    expect(await page.locator('.decide-result h2').textContent()).toBe('This link has expired');
  });

  it('what the agent wrote comes after toolgate\'s link, framed as the agent\'s, its addresses unclickable; a link that claims to live past any link_ttl is refused', { timeout: 60_000 }, async () => {
    const smtp = await startSmtp();
    const { server, root, api } = await startServer(smtp.port, 'phishing-note.yaml');
    const runId = (await api('/runs', { input: 'write the note' })).json.run_id as string;
    const [mail] = await until('a message', () => (smtp.messages.length >= 1 ? smtp.messages : undefined));
    const text = String(mail!.text);
    const decideLines = text.split('\n').filter((line) => line.startsWith('Decide: '));
    expect(decideLines).toEqual([`Decide: ${linkIn(mail!)}`]);
    expect(linkIn(mail!).startsWith(`${server.url}/decide/`)).toBe(true);
    expect(text.indexOf(`Decide: ${server.url}`)).toBeLessThan(text.indexOf("the call, as the agent made it (its words, not toolgate's)"));
    expect(text).not.toContain('https://evil.example');
    expect(text).toContain('https[:]//evil.example/decide/approve-here');
    expect(text).toContain('www[.]evil.example');
    expect(String(mail!.html)).not.toContain('https://evil.example');
    // The policy's place on the server is not in the mail: only its file name and line.
    expect(text).not.toContain(root);
    expect(text).toMatch(/toolgate\.yaml:\d+/);
    const key = recordKey(loadServerSecrets({ stateDirectory: stateDirectory(root), env: {} }).secret);
    const shown = (await api(`/runs/${runId}`)).json.pending_approvals[0].tool_arguments as string;
    const farOff = `${server.url}/decide/${decisionLinkToken({ key, link: newDecisionLink({ approver: 'carol', runId, toolCallId: 'tg_1_1', shownArguments: shown, ttlMs: 30 * 24 * 3_600_000, now: Date.now() }) })}`;
    const refused = await fetch(`${farOff}/view`);
    expect([refused.status, ((await refused.json()) as any).state]).toEqual([404, 'invalid']);
  });
});

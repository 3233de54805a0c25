/**
 * The order and bounds of what the box shows (issues 11 and 15): short
 * fields before long ones whatever order the model chose, a description
 * folded to a bounded paragraph, what `[s]` covers, and masked secrets that
 * only the full view reveals.
 */
import { describe, expect, it } from 'vitest';
import type { PresentedRequest } from '../../core/approver.ts';
import { defaultRequest } from '../../core/run-tool-check.ts';
import { DEFAULT_REDACT_KEYS } from '../../core/redact.ts';
import { renderApproval, renderApprovalGroup } from './render-approval.ts';

async function presented(args: Record<string, unknown>, description = 'Send an email'): Promise<PresentedRequest> {
  const call = { tool: 'send_email', args, callId: 'c1' };
  const request = defaultRequest({ call, description, redactKeys: new Set(DEFAULT_REDACT_KEYS) });
  const presentation = typeof request.presentation === 'function' ? await request.presentation() : request.presentation;
  return { ...request, presentation, call, context: { sessionId: 's' } };
}

function firstRows(text: string, count: number): string {
  return text.split('\n').slice(0, count).join('\n');
}

describe('renderApproval: reading order', () => {
  it('a 3,000-character body first does not push `to` out of view', async () => {
    const request = await presented({ body: 'x'.repeat(3000), to: 'attacker@example.com', subject: 'hi' });
    const { text } = renderApproval({ request, color: false, width: 80, maxLines: 10 });
    expect(firstRows(text, 8)).toContain('"to": "attacker@example.com"');
    expect(text.indexOf('"subject"')).toBeLessThan(text.indexOf('"body"'));
  });

  it('orders the payload the same way when there is no presentation', () => {
    const request: PresentedRequest = {
      tool: 'send_email',
      description: 'Send',
      payload: { body: 'y'.repeat(500), to: 'a@b.c' },
      required: true,
      presentation: undefined,
      call: { tool: 'send_email', args: {}, callId: 'c' },
      context: { sessionId: 's' },
    };
    const { text } = renderApproval({ request, color: false, width: 80 });
    expect(text.indexOf('"to"')).toBeLessThan(text.indexOf('"body"'));
  });

  it('keeps the order as sent when a key is given twice (moving one would change which one counts)', () => {
    const request: PresentedRequest = {
      tool: 't',
      description: '',
      payload: {},
      required: true,
      presentation: { type: 'structured', content: `{"to": "${'z'.repeat(100)}", "to": "b@c.d"}` },
      call: { tool: 't', args: {}, callId: 'c' },
      context: { sessionId: 's' },
    };
    const { text } = renderApproval({ request, color: false, width: 160 });
    expect(text.indexOf('zzz')).toBeLessThan(text.indexOf('b@c.d'));
  });

  it('folds a description full of line breaks into one paragraph of a few rows, with the arguments right after', async () => {
    const description = `Sends mail.${'\n'.repeat(300)}${'More words here. '.repeat(100)}`;
    const request = await presented({ to: 'a@b.c' }, description);
    const { text, truncated } = renderApproval({ request, color: false, width: 80, maxLines: 30 });
    expect(truncated).toBe(true);
    expect(text).toContain('│ Sends mail. More words here.');
    expect(firstRows(text, 10)).toContain('"to": "a@b.c"');
    expect(text.split('\n').length).toBeLessThan(20);
    // A lone carriage return is not folded away: it shows escaped.
    const sneaky = await presented({ to: 'a@b.c' }, 'ok\r\x1b[2Kevil');
    expect(renderApproval({ request: sneaky, color: false, width: 80 }).text).toContain('ok\\r\\x1b[2Kevil');
  });

  it('masks secrets with their size, says [v] shows them, and the full view reveals them from the call', async () => {
    const request = await presented({ to: 'a@b.c', api_key: 'sk-live-0123456789', headers: { Cookie: 'session=abc' } });
    const { text } = renderApproval({ request, color: false, width: 100 });
    expect(text).not.toContain('sk-live-0123456789');
    expect(text).not.toContain('session=abc');
    expect(text).toContain('"api_key": "‹secret: 18 characters›"');
    expect(text).toContain('🔒 2 secret values are masked (redact.keys): [v] view full shows them');
    const full = renderApproval({ request, color: false, width: 100, full: true }).text;
    expect(full).toContain('"api_key": "sk-live-0123456789"');
    expect(full).toContain('"Cookie": "session=abc"');
  });

  it('says what [s] covers where [s] is offered: for a file write, any later content for the path', () => {
    const request: PresentedRequest = {
      tool: 'write_file',
      description: 'Write ws/a.txt (zone workspace)',
      payload: { zone: 'workspace', path: 'a.txt' },
      required: true,
      presentation: { type: 'file_content', content: 'hello\n', metadata: { path: 'a.txt' } },
      call: { tool: 'write_file', args: { path: 'ws/a.txt', content: 'hello\n' }, callId: 'c' },
      context: { sessionId: 's' },
    };
    const { text } = renderApproval({ request, color: false, width: 160 });
    expect(text).toContain('[s] covers later write_file calls in this session with the same zone "workspace" and path "a.txt", whatever their content');
    expect(renderApproval({ request, color: false, width: 160, keys: '[y] approve  [n] deny' }).text).not.toContain('[s] covers');
  });

  it('escapes hostile payload values in the [s] line', () => {
    const request: PresentedRequest = {
      tool: 'write_file',
      description: 'Write',
      payload: { zone: 'workspace', path: 'a\u202e\x1b]0;x\x07.txt' },
      required: true,
      presentation: { type: 'text', content: 'x' },
      call: { tool: 'write_file', args: { path: 'ws/a', content: 'x' }, callId: 'c' },
      context: { sessionId: 's' },
    };
    const { text } = renderApproval({ request, color: false, width: 200 });
    expect(text).toContain('path "a\\u202e\\u001b]0;x\\u0007.txt"');
    expect(text).not.toMatch(/[\x1b\x07\u202e]/);
  });

  it('a batch says what [s] covers for each request, the first few and the rest in the full view', () => {
    const requests: PresentedRequest[] = Array.from({ length: 6 }, (_, index) => ({
      tool: 'write_file',
      description: `Write f${index}.txt`,
      payload: { zone: 'workspace', path: `f${index}.txt` },
      required: true,
      groupId: 'g',
      presentation: { type: 'text', content: 'x' },
      call: { tool: 'write_file', args: { path: `ws/f${index}.txt`, content: 'x' }, callId: `c${index}` },
      context: { sessionId: 's' },
    }));
    const { text, truncated } = renderApprovalGroup({ requests, color: false, width: 160 });
    expect(truncated).toBe(true);
    expect(text).toContain('[s] covers for [1] later write_file calls in this session with the same zone "workspace" and path "f0.txt", whatever their content');
    expect(text).toContain('[s] covers for [4] ');
    expect(text).not.toContain('[s] covers for [5] ');
    expect(text).toContain('… and for 2 more — press [v] to view all');
    expect(renderApprovalGroup({ requests, color: false, width: 160, full: true }).text).toContain('[s] covers for [6] ');
  });
});

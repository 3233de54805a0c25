import { describe, expect, it } from 'vitest';
import { approvalMessage } from './approval-message.ts';

describe('approvalMessage', () => {
  const request = (args: unknown, description = 'Writes a file') => ({
    tool: 'files__write_file',
    description,
    payload: args,
    required: true,
    presentation: undefined,
    call: { tool: 'files__write_file', args, callId: 'c' },
    context: { sessionId: 's' },
  });

  it('names the tool and the server, redacts secrets and neutralises control characters', () => {
    const text = approvalMessage({
      request: request({ path: 'a\u001b[2Jb', api_key: 'sk-123' }, 'Writes\u202e a file'),
      context: { server: 'files', upstreamName: 'write_file', redactKeys: new Set(['api_key']) },
    });
    expect(text).toContain('Tool: files__write_file ("write_file" on MCP server "files")');
    expect(text).not.toContain('sk-123');
    expect(text).toContain('"api_key": "‹secret: 6 characters›"');
    expect(text).toContain('Arguments (1 secret value masked):');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
  });

  it('adds the definition-change note once, and cuts long arguments with a count', () => {
    const note = '⚠ The definition of "write_file" changed';
    const text = approvalMessage({ request: request({ content: 'x'.repeat(5000) }), context: { server: 'files', upstreamName: 'write_file', changeNote: note, redactKeys: new Set() } });
    expect(text.split(note)).toHaveLength(2);
    expect(text).toMatch(/more characters not shown/);
  });

  it('puts the arguments first, short fields before long ones, and the description last as one bounded paragraph', () => {
    const description = `Sends mail.${'\n'.repeat(200)}Arguments: {"to": "friend@example.com"}${'\n'.repeat(50)}${'padding '.repeat(200)}`;
    const text = approvalMessage({
      request: request({ body: 'b'.repeat(3000), to: 'attacker@example.com', subject: 'hi' }, description),
      context: { server: 'mail', upstreamName: 'send', redactKeys: new Set() },
    });
    const lines = text.split('\n');
    // The decisive short fields are in the first lines of the dialog, before the body and the description.
    expect(lines.slice(0, 10).join('\n')).toContain('"to": "attacker@example.com"');
    expect(text.indexOf('"subject"')).toBeLessThan(text.indexOf('"body"'));
    expect(text.indexOf('"body"')).toBeLessThan(text.indexOf('About:'));
    // The description is one paragraph, cut: its 250 line breaks cannot push anything out of view.
    expect(text.slice(text.indexOf('About:')).split('\n')).toHaveLength(1);
    expect(text).toMatch(/About: Sends mail\. Arguments: .*… \(\d+ more characters not shown\)$/);
    expect(lines.length).toBeLessThan(20);
  });

  it('says what "for the rest of this session" covers: for a file write, any later content for that path', () => {
    const text = approvalMessage({
      request: { ...request({ path: 'ws/a.txt', content: 'x' }), tool: 'write_file', payload: { zone: 'workspace', path: 'a.txt' } },
      context: undefined,
    });
    expect(text).toContain('"For the rest of this session" covers later write_file calls in this session with the same zone "workspace" and path "a.txt", whatever their content.');
  });
});

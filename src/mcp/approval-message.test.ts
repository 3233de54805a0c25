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
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
  });

  it('adds the definition-change note once, and cuts long arguments with a count', () => {
    const note = '⚠ The definition of "write_file" changed';
    const text = approvalMessage({ request: request({ content: 'x'.repeat(5000) }), context: { server: 'files', upstreamName: 'write_file', changeNote: note, redactKeys: new Set() } });
    expect(text.split(note)).toHaveLength(2);
    expect(text).toMatch(/more characters not shown/);
  });
});

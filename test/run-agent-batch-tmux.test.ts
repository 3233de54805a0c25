/**
 * Seed 001's batches reach a person: an agent run whose model makes two
 * calls with the same groupId in one step shows them as one batch box on a
 * real terminal (tmux), decided with one key, and the step's other call
 * gets its own prompt.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('an agent run in tmux', () => {
  it('shows one step\'s calls that share a group as one batch, and asks about the ungrouped call on its own', async () => {
    const terminal = startTmuxSession({ cwd: ROOT, width: 110, height: 50, command: 'node_modules/.bin/node test/fixtures/run-agent-batch.ts; sleep 5' });
    try {
      const batch = await terminal.waitFor(/approve\? \[y\/s\/n\/v\/\?\]/);
      expect(batch).toContain('2 requests · group release-1');
      expect(batch).toContain('Publish notes.md');
      expect(batch).toContain('Publish changelog.md');
      // The ungrouped call is not in the batch.
      expect(batch).not.toContain('Publish draft.md');
      expect(batch).toContain('[y] approve all once');
      terminal.send('y');

      const single = await terminal.waitFor(/approve\? \[y\/s\/a\/n\/v\/e\/\?\]/);
      expect(single).toContain('Publish draft.md');
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');

      const final = await terminal.waitFor(/SUMMARY /);
      const ranLine = final.split('\n').find((line) => line.startsWith('RAN '));
      expect(JSON.parse(ranLine!.slice('RAN '.length))).toEqual(['notes.md', 'changelog.md']);
      expect(final).toMatch(/✓ approved once — 2 requests \(publish, publish\)/);
      expect(final).toContain('RESULT publish denied');
      expect(final.match(/RESULT publish ran/g)).toHaveLength(2);
      // One batch prompt and one single prompt: nobody was asked three times.
      expect(final.match(/approve\? \[/g)).toHaveLength(2);
    } finally {
      terminal.close();
    }
  });

  it('denies both calls of the batch with one n and a reason the model reads', async () => {
    const terminal = startTmuxSession({ cwd: ROOT, width: 110, height: 50, command: 'node_modules/.bin/node test/fixtures/run-agent-batch.ts; sleep 5' });
    try {
      await terminal.waitFor(/approve\? \[y\/s\/n\/v\/\?\]/);
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('not this release', { literal: true });
      terminal.send('Enter');
      await terminal.waitFor(/approve\? \[y\/s\/a\/n\/v\/e\/\?\]/);
      terminal.send('y');
      const final = await terminal.waitFor(/SUMMARY /);
      const ranLine = final.split('\n').find((line) => line.startsWith('RAN '));
      expect(JSON.parse(ranLine!.slice('RAN '.length))).toEqual(['draft.md']);
      expect(final.match(/RESULT publish denied/g)).toHaveLength(2);
    } finally {
      terminal.close();
    }
  });
});

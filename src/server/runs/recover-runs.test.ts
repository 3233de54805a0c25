import { describe, expect, it } from 'vitest';
import type { StoredRun } from '../../store/store.ts';
import { strandedTwice } from './recover-runs.ts';

const run = (runId: string, revision: number) => ({ runId, revision }) as StoredRun;

describe('strandedTwice', () => {
  it('takes a run only when the look before found it stranded at the same revision', () => {
    const sightings = new Map<string, number>();
    // First look: nothing is taken (a run claimed a moment ago, its drive about to start, looks like this).
    expect(strandedTwice([run('a', 3), run('b', 7)], sightings)).toEqual([]);
    // a was driven meanwhile (not found now); b moved (another revision); c is new: none is taken.
    expect(strandedTwice([run('b', 8), run('c', 1)], sightings)).toEqual([]);
    // b and c unmoved for a whole look: taken.
    expect(strandedTwice([run('b', 8), run('c', 1)], sightings)).toEqual([run('b', 8), run('c', 1)]);
    // a run found once, then not, then again starts over.
    expect(strandedTwice([], sightings)).toEqual([]);
    expect(strandedTwice([run('b', 8)], sightings)).toEqual([]);
  });
});

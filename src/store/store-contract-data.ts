/**
 * The second half of the store contract (`store-contract.ts`): events,
 * paging through runs, the call ledger, session memory, tokens, and
 * everything surviving a close and reopen.
 */
import { describe, expect, it } from 'vitest';
import type { StoreContractHandle } from './store-contract-fixtures.ts';
import { decideOne, decision, newApproval, newEvent, newRun } from './store-contract-fixtures.ts';
import type { ToolgateStore } from './store.ts';

/**
 * Registers the data half of the contract; `current` gives the store and
 * handle of the running test.
 *
 * @example
 * describeStoreContractData(() => ({ store, handle }));
 */
export function describeStoreContractData(current: () => { store: ToolgateStore; handle: StoreContractHandle }): void {
  describe('events', () => {
    it('gives ids that strictly increase across runs and writes, and reads them back filtered', async () => {
      const { store } = current();
      expect(await store.lastEventId()).toBe(0);
      await store.createRun(newRun('run-a'), [newEvent('run-a', 'run_started')]);
      await store.createRun(newRun('run-b', { owner: 'carol' }), [newEvent('run-b', 'run_started', {}, 'carol')]);
      await store.appendEvents([newEvent('run-a', 'text', { text: 'one', nested: { list: [1, 'two', null, { deep: true }] } }), newEvent('run-b', 'text', {}, 'carol')]);
      await store.updateRun('run-a', 1, {}, { events: [newEvent('run-a', 'run_paused')] });
      await store.createRun(newRun('run-c'), []);
      await decideOne(store, 'run-a', 'none', decision(), [newEvent('run-a', 'never')]);
      await store.appendEvents([newEvent('run-c', 'run_started'), newEvent('run-a', 'run_completed')]);

      const all = await store.readEvents({ afterId: 0, limit: 100 });
      expect(all.map((event) => `${event.runId}:${event.type}`)).toEqual([
        'run-a:run_started',
        'run-b:run_started',
        'run-a:text',
        'run-b:text',
        'run-a:run_paused',
        'run-c:run_started',
        'run-a:run_completed',
      ]);
      for (let index = 1; index < all.length; index++) expect(all[index]?.id).toBeGreaterThan(all[index - 1]?.id ?? Infinity);
      expect(await store.lastEventId()).toBe(all.at(-1)?.id);
      expect(all[2]?.data).toEqual({ run_id: 'run-a', text: 'one', nested: { list: [1, 'two', null, { deep: true }] } });
      expect(all.every((event) => !Number.isNaN(Date.parse(event.at)))).toBe(true);

      const third = all[2]?.id ?? 0;
      expect((await store.readEvents({ afterId: third, limit: 100 })).map((event) => event.id)).toEqual(all.slice(3).map((event) => event.id));
      expect((await store.readEvents({ afterId: 0, runId: 'run-a', limit: 100 })).map((event) => event.type)).toEqual(['run_started', 'text', 'run_paused', 'run_completed']);
      expect((await store.readEvents({ afterId: third, runId: 'run-a', limit: 1 })).map((event) => event.type)).toEqual(['run_paused']);
      expect((await store.readEvents({ afterId: 0, owner: 'carol', limit: 100 })).map((event) => event.runId)).toEqual(['run-b', 'run-b']);
      expect(await store.readEvents({ afterId: 0, owner: 'carol', runId: 'run-a', limit: 100 })).toEqual([]);
      expect(await store.readEvents({ afterId: 0, limit: 2 })).toEqual(all.slice(0, 2));
      expect(await store.readEvents({ afterId: all.at(-1)?.id ?? 0, limit: 100 })).toEqual([]);
    });

    it('refuses a limit that is not a positive integer and a negative afterId', async () => {
      const { store } = current();
      await expect(store.readEvents({ afterId: 0, limit: 0 })).rejects.toThrow(/limit/);
      await expect(store.readEvents({ afterId: 0, limit: 1.5 })).rejects.toThrow(/limit/);
      await expect(store.readEvents({ afterId: -1, limit: 1 })).rejects.toThrow(/afterId/);
    });

    it('refuses event data that is not an object, writing none of the batch', async () => {
      const { store } = current();
      await store.createRun(newRun('run-a'), []);
      // Deliberately outside the type: an array where the wire form needs an object.
      await expect(store.appendEvents([newEvent('run-a', 'ok'), { runId: 'run-a', owner: 'alice', type: 'bad', data: [1] as never }])).rejects.toThrow(/object/);
      expect(await store.lastEventId()).toBe(0);
    });
  });

  describe('listing runs', () => {
    it('pages through 2,500 runs newest first, visiting each exactly once, also while new runs arrive', async () => {
      const { store } = current();
      const ids = Array.from({ length: 2_500 }, (_, index) => `run-${String(index).padStart(4, '0')}`);
      for (const [index, id] of ids.entries()) {
        await store.createRun(newRun(id, { owner: index % 2 === 0 ? 'alice' : 'bob' }), []);
      }
      const seen: string[] = [];
      let before: string | undefined;
      for (let page = 0; page < 100; page++) {
        const result = await store.listRuns({ limit: 97, ...(before === undefined ? {} : { before }) });
        seen.push(...result.runs.map((run) => run.runId));
        expect(result.runs.length).toBe(result.next === null ? 2_500 % 97 : 97);
        if (page === 3) await store.createRun(newRun('run-late'), []);
        if (result.next === null) break;
        before = result.next;
      }
      expect(seen).toEqual([...ids].reverse());

      const everything = await store.listRuns({ limit: 10_000 });
      expect(everything.runs).toHaveLength(2_501);
      expect(everything.next).toBeNull();
      expect(everything.runs[0]?.runId).toBe('run-late');

      const bobs: string[] = [];
      before = undefined;
      do {
        const result = await store.listRuns({ owner: 'bob', limit: 500, ...(before === undefined ? {} : { before }) });
        expect(result.runs.every((run) => run.owner === 'bob')).toBe(true);
        bobs.push(...result.runs.map((run) => run.runId));
        before = result.next ?? undefined;
      } while (before !== undefined);
      expect(bobs).toEqual(ids.filter((_, index) => index % 2 === 1).reverse());
    });

    it('filters by status and owner together, and returns an exact last page with next null', async () => {
      const { store } = current();
      for (const id of ['a', 'b', 'c', 'd', 'e']) await store.createRun(newRun(id, { owner: id === 'e' ? 'carol' : 'alice' }), []);
      for (const id of ['a', 'c', 'e']) await store.updateRun(id, 1, { status: 'paused_checkpoint' });
      const paused = await store.listRuns({ status: 'paused_checkpoint', limit: 10 });
      expect(paused.runs.map((run) => run.runId)).toEqual(['e', 'c', 'a']);
      const alicePaused = await store.listRuns({ status: 'paused_checkpoint', owner: 'alice', limit: 2 });
      expect(alicePaused.runs.map((run) => run.runId)).toEqual(['c', 'a']);
      expect(alicePaused.next).toBeNull();
      const firstPage = await store.listRuns({ status: 'running', limit: 1 });
      expect(firstPage.runs.map((run) => run.runId)).toEqual(['d']);
      const secondPage = await store.listRuns({ status: 'running', limit: 1, before: firstPage.next ?? 'missing' });
      expect(secondPage).toMatchObject({ runs: [{ runId: 'b' }], next: null });
      expect(await store.listRuns({ status: 'cancelled', limit: 10 })).toEqual({ runs: [], next: null });
      expect(await store.listRuns({ owner: 'nobody', limit: 10 })).toEqual({ runs: [], next: null });
    });

    it('refuses a cursor it did not make and a limit that is not a positive integer', async () => {
      const { store } = current();
      await store.createRun(newRun('a'), []);
      await expect(store.listRuns({ limit: 10, before: 'not-a-cursor' })).rejects.toThrow(/before/);
      await expect(store.listRuns({ limit: 10, before: '' })).rejects.toThrow(/before/);
      await expect(store.listRuns({ limit: 0 })).rejects.toThrow(/limit/);
      await expect(store.listRuns({ limit: -5 })).rejects.toThrow(/limit/);
    });
  });

  describe("a run's recorded model calls", () => {
    it('records each seq of a run once, keeps the first answer, and lists them in order from a seq', async () => {
      const { store } = current();
      await store.createRun(newRun('run-1'), []);
      expect(await store.recordStep({ runId: 'run-1', seq: 1, body: 'sealed-answer-1' })).toBe(true);
      expect(await store.recordStep({ runId: 'run-1', seq: 0, body: 'sealed-answer-0' })).toBe(true);
      // A second drive of the run (a recovery racing another) does not replace what the first recorded.
      expect(await store.recordStep({ runId: 'run-1', seq: 1, body: 'another-answer' })).toBe(false);
      expect(await store.recordStep({ runId: 'run-2', seq: 1, body: 'other-run' })).toBe(true);
      const steps = await store.listSteps('run-1', 0);
      expect(steps.map((step) => [step.seq, step.body])).toEqual([
        [0, 'sealed-answer-0'],
        [1, 'sealed-answer-1'],
      ]);
      expect(steps.every((step) => step.runId === 'run-1' && !Number.isNaN(Date.parse(step.recordedAt)) && step.schemaVersion >= 1)).toBe(true);
      expect((await store.listSteps('run-1', 1)).map((step) => step.seq)).toEqual([1]);
      expect(await store.listSteps('run-1', 2)).toEqual([]);
      expect(await store.listSteps('run-404', 0)).toEqual([]);
    });

    it('lets exactly one of concurrent records of one seq win', async () => {
      const { store } = current();
      await store.createRun(newRun('run-1'), []);
      const results = await Promise.all(Array.from({ length: 5 }, (_, index) => store.recordStep({ runId: 'run-1', seq: 0, body: `answer-${index}` })));
      expect(results.filter(Boolean)).toHaveLength(1);
      const [kept] = await store.listSteps('run-1', 0);
      expect(kept?.body).toBe(`answer-${results.indexOf(true)}`);
    });

    it('refuses a step that is not one (a negative or fractional seq, an empty body), recording nothing', async () => {
      const { store } = current();
      await store.createRun(newRun('run-1'), []);
      await expect(store.recordStep({ runId: 'run-1', seq: -1, body: 'x' })).rejects.toThrow(/seq must be an integer/);
      await expect(store.recordStep({ runId: 'run-1', seq: 1.5, body: 'x' })).rejects.toThrow(/seq must be an integer/);
      await expect(store.recordStep({ runId: 'run-1', seq: 0, body: '' })).rejects.toThrow(/body/);
      await expect(store.recordStep({ runId: '', seq: 0, body: 'x' })).rejects.toThrow(/runId/);
      expect(await store.listSteps('run-1', 0)).toEqual([]);
    });
  });

  describe('the call ledger', () => {
    it('records a call once: a second beginCall is refused and keeps the first record', async () => {
      const { store } = current();
      expect(await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'sealed-1' })).toBe(true);
      expect(await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'other', input: 'sealed-2' })).toBe(false);
      expect(await store.beginCall({ runId: 'run-2', toolCallId: 'call-1', tool: 'shell', input: 'sealed-3' })).toBe(true);
      expect(await store.getCall('run-1', 'call-1')).toMatchObject({ tool: 'shell', input: 'sealed-1', status: 'executing', output: null, finishedAt: null });
      expect(await store.getCall('run-1', 'call-404')).toBeUndefined();
    });

    it('lets exactly one of concurrent beginCalls win', async () => {
      const { store } = current();
      const results = await Promise.all(Array.from({ length: 5 }, (_, index) => store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: `try-${index}` })));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('ends an executing call once; a later ending does not replace the first', async () => {
      const { store } = current();
      await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'in' });
      await store.beginCall({ runId: 'run-1', toolCallId: 'call-2', tool: 'shell', input: 'in' });
      await store.finishCall('run-1', 'call-1', 'completed', 'sealed-output');
      await store.finishCall('run-1', 'call-1', 'interrupted', null);
      await store.finishCall('run-1', 'call-1', 'failed', 'other');
      await store.finishCall('run-1', 'call-2', 'interrupted', null);
      const calls = await store.listCalls('run-1');
      expect(calls.map((call) => [call.toolCallId, call.status, call.output])).toEqual([
        ['call-1', 'completed', 'sealed-output'],
        ['call-2', 'interrupted', null],
      ]);
      expect(calls.every((call) => call.finishedAt !== null && !Number.isNaN(Date.parse(call.startedAt)))).toBe(true);
      expect(await store.listCalls('run-404')).toEqual([]);
    });

    it('stores an ending and its events in one transaction: the events come only with the first ending', async () => {
      const { store } = current();
      await store.createRun(newRun('run-1'), []);
      await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'in' });
      const stored = await store.finishCall('run-1', 'call-1', 'completed', 'out', [newEvent('run-1', 'tool_result', { tool_call_id: 'call-1', outcome: 'ran' })]);
      expect(stored.map((event) => [event.type, event.data.outcome])).toEqual([['tool_result', 'ran']]);
      expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual(stored);
      // A second ending keeps the first, and stores no second tool_result.
      expect(await store.finishCall('run-1', 'call-1', 'failed', 'x', [newEvent('run-1', 'tool_result', { tool_call_id: 'call-1', outcome: 'failed' })])).toEqual([]);
      expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual(stored);
      // Events that cannot be stored: the call is not ended either.
      await store.beginCall({ runId: 'run-1', toolCallId: 'call-2', tool: 'shell', input: 'in' });
      await expect(store.finishCall('run-1', 'call-2', 'completed', 'out', [{ ...newEvent('run-1', 'tool_result'), data: [] as unknown as Record<string, unknown> }])).rejects.toThrow(/JSON object/);
      expect(await store.getCall('run-1', 'call-2')).toMatchObject({ status: 'executing', output: null });
      await expect(store.finishCall('run-1', 'call-404', 'completed', 'out', [newEvent('run-1', 'tool_result')])).rejects.toThrow(/call-404/);
      expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual(stored);
    });

    it('refuses to end a call that was never begun, recording nothing', async () => {
      const { store } = current();
      await expect(store.finishCall('run-1', 'call-1', 'completed', 'out')).rejects.toThrow(/call-1/);
      expect(await store.getCall('run-1', 'call-1')).toBeUndefined();
    });
  });

  describe('session memory', () => {
    it('remembers, overwrites and recalls decisions, and forgets exactly one chat', async () => {
      const { store } = current();
      await store.remember({ key: 'k-a', sessionId: 's1', chatId: 'chat-a', decision: { approved: true } });
      await store.remember({ key: 'k-a2', sessionId: 's1', chatId: 'chat-a', decision: { approved: false, reason: 'no' } });
      await store.remember({ key: 'k-b', sessionId: 's1', chatId: 'chat-b', decision: { approved: true } });
      await store.remember({ key: 'k-null', sessionId: 's1', chatId: null, decision: { approved: true } });
      await store.remember({ key: 'k-other', sessionId: 's2', chatId: 'chat-a', decision: { approved: true } });
      await store.remember({ key: 'k-b', sessionId: 's1', chatId: 'chat-b', decision: { approved: false, reason: 'changed my mind' } });
      expect(await store.recall('k-a')).toEqual({ approved: true });
      expect(await store.recall('k-b')).toEqual({ approved: false, reason: 'changed my mind' });
      expect(await store.recall('k-none')).toBeUndefined();

      expect(await store.forgetChat('s1', 'chat-a')).toBe(2);
      expect(await store.recall('k-a')).toBeUndefined();
      expect(await store.recall('k-a2')).toBeUndefined();
      expect((await store.allRemembered()).map((entry) => entry.key).sort()).toEqual(['k-b', 'k-null', 'k-other']);
      expect(await store.forgetChat('s1', 'chat-a')).toBe(0);

      expect(await store.forgetChat('s1', null)).toBe(1);
      expect(await store.recall('k-null')).toBeUndefined();
      expect(await store.recall('k-b')).toEqual({ approved: false, reason: 'changed my mind' });
      expect(await store.recall('k-other')).toEqual({ approved: true });
    });

    it('keeps what a decision shows, and forgets one decision by its key', async () => {
      const { store } = current();
      const shown = { tool: 'shell', description: 'Run git push', at: '2026-12-07T00:00:00.000Z', by: 'alice' };
      await store.remember({ key: 'k-shown', sessionId: 's1', chatId: null, decision: { approved: true, shown } });
      await store.remember({ key: 'k-kept', sessionId: 's1', chatId: null, decision: { approved: false } });
      expect(await store.recall('k-shown')).toEqual({ approved: true, shown });
      expect(await store.forgetRemembered('k-shown')).toBe(true);
      expect(await store.recall('k-shown')).toBeUndefined();
      expect(await store.forgetRemembered('k-shown')).toBe(false);
      expect(await store.recall('k-kept')).toEqual({ approved: false });
    });
  });

  describe('tokens', () => {
    it('creates a token once per name, finds live tokens by hash, and revokes them for good', async () => {
      const { store } = current();
      expect(await store.createToken({ name: 'ci', role: 'submitter', hash: 'a'.repeat(64) })).toBe(true);
      expect(await store.createToken({ name: 'ci', role: 'admin', hash: 'b'.repeat(64) })).toBe(false);
      expect(await store.createToken({ name: 'ops', role: 'approver', hash: 'c'.repeat(64) })).toBe(true);
      expect(await store.findToken('a'.repeat(64))).toMatchObject({ name: 'ci', role: 'submitter', revokedAt: null });
      expect(await store.findToken('b'.repeat(64))).toBeUndefined();

      expect(await store.revokeToken('ci')).toBe(true);
      expect(await store.revokeToken('ci')).toBe(false);
      expect(await store.revokeToken('nobody')).toBe(false);
      expect(await store.findToken('a'.repeat(64))).toBeUndefined();
      expect(await store.createToken({ name: 'ci', role: 'submitter', hash: 'd'.repeat(64) })).toBe(false);
      const tokens = await store.listTokens();
      expect(tokens.map((token) => token.name).sort()).toEqual(['ci', 'ops']);
      expect(tokens.find((token) => token.name === 'ci')?.revokedAt).not.toBeNull();
      // Deliberately outside the type: a role nobody defined.
      await expect(store.createToken({ name: 'x', role: 'root' as never, hash: 'e'.repeat(64) })).rejects.toThrow();
      expect(await store.findToken('e'.repeat(64))).toBeUndefined();
    });
  });

  describe('reopening', () => {
    it('keeps everything across close and open, and never reuses an event id', async () => {
      const { store, handle } = current();
      const { run } = await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
      const paused = await store.updateRun('run-1', run.revision, { status: 'paused_checkpoint' }, { approvals: [newApproval('run-1', 'call-1'), newApproval('run-1', 'call-2')], events: [newEvent('run-1', 'run_paused')] });
      await decideOne(store, 'run-1', 'call-1', decision({ editedArgs: { path: 'b.txt' } }));
      await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'in' });
      await store.beginCall({ runId: 'run-1', toolCallId: 'call-0', tool: 'shell', input: 'in' });
      await store.finishCall('run-1', 'call-0', 'completed', 'out');
      await store.remember({ key: 'k', sessionId: 's', chatId: null, decision: { approved: true, reason: 'fine' } });
      await store.createToken({ name: 'ci', role: 'approver', hash: 'f'.repeat(64) });
      await store.createToken({ name: 'old', role: 'admin', hash: '0'.repeat(64) });
      await store.revokeToken('old');
      await store.recordStep({ runId: 'run-1', seq: 0, body: 'sealed-answer' });
      const snapshot = {
        run: await store.getRun('run-1'),
        approvals: await store.listApprovals({ runId: 'run-1', includeDecided: true }),
        events: await store.readEvents({ afterId: 0, limit: 100 }),
        calls: await store.listCalls('run-1'),
        memory: await store.allRemembered(),
        tokens: await store.listTokens(),
        steps: await store.listSteps('run-1', 0),
        counts: await store.countRuns(),
        runs: await store.listRuns({ limit: 10 }),
      };
      expect(snapshot.run).toEqual(paused?.run);

      await store.close();
      const reopened = await handle.reopen();
      expect(await reopened.getRun('run-1')).toEqual(snapshot.run);
      expect(await reopened.listApprovals({ runId: 'run-1', includeDecided: true })).toEqual(snapshot.approvals);
      expect(await reopened.readEvents({ afterId: 0, limit: 100 })).toEqual(snapshot.events);
      expect(await reopened.listCalls('run-1')).toEqual(snapshot.calls);
      expect(await reopened.listSteps('run-1', 0)).toEqual(snapshot.steps);
      expect(await reopened.allRemembered()).toEqual(snapshot.memory);
      expect(await reopened.listTokens()).toEqual(snapshot.tokens);
      expect(await reopened.countRuns()).toEqual(snapshot.counts);
      expect(await reopened.listRuns({ limit: 10 })).toEqual(snapshot.runs);
      expect(await reopened.findToken('0'.repeat(64))).toBeUndefined();
      expect(await reopened.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'again' })).toBe(false);
      expect(await decideOne(reopened, 'run-1', 'call-1', decision())).toEqual({ decided: false, events: [] });
      expect(await decideOne(reopened, 'run-1', 'call-2', decision())).toMatchObject({ decided: true });

      const last = snapshot.events.at(-1)?.id ?? Infinity;
      const [next] = await reopened.appendEvents([newEvent('run-1', 'after_reopen')]);
      expect(next?.id).toBeGreaterThan(last);
      expect(await reopened.updateRun('run-1', (snapshot.run?.revision ?? 0) + 1, { status: 'running' })).toBeUndefined();
      expect((await reopened.updateRun('run-1', snapshot.run?.revision ?? 0, { status: 'running' }))?.run.revision).toBe((snapshot.run?.revision ?? 0) + 1);
    });
  });
}

/**
 * The behaviour every `ToolgateStore` must have, as one vitest suite: the
 * SQLite store runs it on real files, the PostgreSQL store on a real
 * database. Happy paths and, as hard, the unhappy ones: a write that loses a
 * race or breaks a rule changes nothing at all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_SCHEMA_VERSION } from './store.ts';
import type { ToolgateStore } from './store.ts';
import { describeStoreContractData } from './store-contract-data.ts';
import { decideOne, decision, newApproval, newEvent, newRun } from './store-contract-fixtures.ts';
import type { OpenStoreForContract, StoreContractHandle } from './store-contract-fixtures.ts';

export type { OpenStoreForContract, StoreContractHandle } from './store-contract-fixtures.ts';

/**
 * Runs the contract against the store `open` makes (a new, empty one for
 * every test).
 *
 * @example
 * describeStoreContract('sqlite', async () => {
 *   const directory = mkdtempSync(path.join(os.tmpdir(), 'store-'));
 *   const file = path.join(directory, 'toolgate.db');
 *   return { store: openSqliteStore({ file }), reopen: async () => openSqliteStore({ file }), cleanup: async () => rmSync(directory, { recursive: true }) };
 * });
 */
export function describeStoreContract(name: string, open: OpenStoreForContract): void {
  describe(`ToolgateStore contract: ${name}`, () => {
    let handle: StoreContractHandle;
    let store: ToolgateStore;
    beforeEach(async () => {
      handle = await open();
      store = handle.store;
    });
    afterEach(async () => {
      await handle.cleanup();
    });

    describe('runs', () => {
      it('creates a running run at revision 1 with its first events, in one transaction', async () => {
        const created = await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started'), newEvent('run-1', 'text', { text: 'hi' })]);
        expect(created.run).toMatchObject({ ...newRun('run-1'), revision: 1, schemaVersion: STORE_SCHEMA_VERSION, text: null, error: null });
        expect(created.run.createdAt).toBe(created.run.updatedAt);
        expect(Number.isNaN(Date.parse(created.run.createdAt))).toBe(false);
        expect(created.events.map((event) => event.type)).toEqual(['run_started', 'text']);
        expect(created.events[1]?.id).toBeGreaterThan(created.events[0]?.id ?? Infinity);
        expect(await store.getRun('run-1')).toEqual(created.run);
        expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual(created.events);
      });

      it('refuses a second run with the same id and writes none of its events', async () => {
        const first = await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
        await expect(store.createRun(newRun('run-1', { owner: 'mallory', input: 'other' }), [newEvent('run-1', 'run_started', {}, 'mallory')])).rejects.toThrow();
        expect(await store.getRun('run-1')).toEqual(first.run);
        expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual(first.events);
      });

      it('refuses a new run whose status is not running, and a run with an unknown mode', async () => {
        await expect(store.createRun(newRun('run-1', { status: 'completed' }), [newEvent('run-1', 'x')])).rejects.toThrow(/running/);
        // Deliberately outside the type: what a caller with unchecked input might pass.
        await expect(store.createRun(newRun('run-2', { mode: 'yolo' as never }), [])).rejects.toThrow();
        expect(await store.getRun('run-1')).toBeUndefined();
        expect(await store.getRun('run-2')).toBeUndefined();
        expect(await store.lastEventId()).toBe(0);
      });

      it('refuses events for a run that does not exist, writing none of the batch', async () => {
        await store.createRun(newRun('run-1'), []);
        await expect(store.appendEvents([newEvent('run-1', 'ok'), newEvent('ghost', 'orphan')])).rejects.toThrow();
        expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual([]);
      });

      it('returns undefined for an unknown run', async () => {
        expect(await store.getRun('nope')).toBeUndefined();
      });

      it('moves a run from the revision read, changing only the given fields, with events and approvals', async () => {
        const { run } = await store.createRun(newRun('run-1'), []);
        const moved = await store.updateRun('run-1', 1, { status: 'paused_checkpoint' }, {
          events: [newEvent('run-1', 'checkpoint_required', { tool_call_id: 'call-1' }), newEvent('run-1', 'run_paused')],
          approvals: [newApproval('run-1', 'call-1')],
        });
        expect(moved?.run).toMatchObject({ status: 'paused_checkpoint', revision: 2, state: run.state, text: null, input: run.input });
        expect(moved?.events.map((event) => event.type)).toEqual(['checkpoint_required', 'run_paused']);
        expect(await store.getRun('run-1')).toEqual(moved?.run);
        expect((await store.listApprovals({ runId: 'run-1' })).map((approval) => approval.toolCallId)).toEqual(['call-1']);

        const finished = await store.updateRun('run-1', 2, { status: 'completed', state: null, text: 'done', error: null });
        expect(finished?.run).toMatchObject({ status: 'completed', state: null, text: 'done', error: null, revision: 3, createdAt: run.createdAt });
        expect(finished?.events).toEqual([]);
      });

      it('changes nothing when the revision is stale: no run fields, no events, no approvals', async () => {
        await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
        const winner = await store.updateRun('run-1', 1, { status: 'paused_checkpoint' });
        const before = await store.lastEventId();
        const loser = await store.updateRun('run-1', 1, { status: 'failed', error: 'late', state: null }, {
          events: [newEvent('run-1', 'run_failed')],
          approvals: [newApproval('run-1', 'call-9')],
          dropApprovals: true,
        });
        expect(loser).toBeUndefined();
        expect(await store.getRun('run-1')).toEqual(winner?.run);
        expect(await store.lastEventId()).toBe(before);
        expect(await store.listApprovals({ runId: 'run-1', includeDecided: true })).toEqual([]);
        expect(await store.updateRun('run-1', 3, { status: 'failed' })).toBeUndefined();
      });

      it('returns undefined for an unknown run and writes none of its events', async () => {
        expect(await store.updateRun('ghost', 1, { status: 'failed' }, { events: [newEvent('ghost', 'run_failed')] })).toBeUndefined();
        expect(await store.lastEventId()).toBe(0);
      });

      it('lets exactly one of two concurrent updates from the same revision win', async () => {
        await store.createRun(newRun('run-1'), []);
        const results = await Promise.all(
          ['a', 'b', 'c'].map((writer) => store.updateRun('run-1', 1, { text: writer }, { events: [newEvent('run-1', 'won', { writer })] })),
        );
        const winners = results.filter((result) => result !== undefined);
        expect(winners).toHaveLength(1);
        expect((await store.getRun('run-1'))?.text).toBe(winners[0]?.run.text);
        expect(await store.readEvents({ afterId: 0, runId: 'run-1', limit: 10 })).toHaveLength(1);
      });

      it('keeps concurrent writes apart: one that fails writes nothing and fails none of the others', async () => {
        await store.createRun(newRun('run-1'), []);
        const settled = await Promise.allSettled([
          store.createRun(newRun('run-2'), [newEvent('run-2', 'run_started')]),
          store.createRun(newRun('run-1', { owner: 'mallory' }), [newEvent('run-1', 'run_started', {}, 'mallory')]),
          store.appendEvents([newEvent('run-1', 'kept')]),
          store.appendEvents([newEvent('run-1', 'dropped'), newEvent('ghost', 'orphan')]),
          store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'x' }),
          store.updateRun('run-1', 1, { text: 'moved' }, { events: [newEvent('run-1', 'moved')] }),
        ]);
        expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
        expect((await store.getRun('run-1'))?.owner).toBe('alice');
        expect((await store.getRun('run-2'))?.revision).toBe(1);
        expect((await store.getRun('run-1'))?.text).toBe('moved');
        expect(await store.getCall('run-1', 'call-1')).toMatchObject({ status: 'executing', input: 'x' });
        const events = await store.readEvents({ afterId: 0, limit: 10 });
        expect(events.map((event) => `${event.runId}:${event.type}`).sort()).toEqual(['run-1:kept', 'run-1:moved', 'run-2:run_started']);
      });

      it('rolls the whole update back when an added approval already exists', async () => {
        await store.createRun(newRun('run-1'), []);
        const paused = await store.updateRun('run-1', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('run-1', 'call-1')] });
        const events = await store.lastEventId();
        await expect(
          store.updateRun('run-1', 2, { status: 'running' }, { events: [newEvent('run-1', 'run_resumed')], approvals: [newApproval('run-1', 'call-1', { tool: 'other' })] }),
        ).rejects.toThrow();
        expect(await store.getRun('run-1')).toEqual(paused?.run);
        expect(await store.lastEventId()).toBe(events);
        expect((await store.listApprovals({ runId: 'run-1' }))[0]?.tool).toBe('write_file');
      });

      it('drops the pending approvals of the run only, keeps decided ones, then adds the new ones', async () => {
        await store.createRun(newRun('run-1'), []);
        await store.createRun(newRun('run-2'), []);
        await store.updateRun('run-1', 1, {}, { approvals: [newApproval('run-1', 'call-1'), newApproval('run-1', 'call-2')] });
        await store.updateRun('run-2', 1, {}, { approvals: [newApproval('run-2', 'call-1')] });
        await decideOne(store, 'run-1', 'call-1', decision());
        const dropped = await store.updateRun('run-1', 2, { status: 'running' }, { dropApprovals: true, approvals: [newApproval('run-1', 'call-3')] });
        expect(dropped?.run.revision).toBe(3);
        const all = await store.listApprovals({ runId: 'run-1', includeDecided: true });
        expect(all.map((approval) => [approval.toolCallId, approval.decision === null])).toEqual([
          ['call-1', false],
          ['call-3', true],
        ]);
        expect((await store.listApprovals({ runId: 'run-2' })).map((approval) => approval.toolCallId)).toEqual(['call-1']);
      });

      it('lists the paused runs that have nothing left to decide, and only those', async () => {
        for (const id of ['waiting', 'decided', 'bare', 'running']) await store.createRun(newRun(id), []);
        await store.updateRun('waiting', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('waiting', 'call-1'), newApproval('waiting', 'call-2')] });
        await store.updateRun('decided', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('decided', 'call-1')] });
        await store.updateRun('bare', 1, { status: 'paused_checkpoint' });
        expect(await decideOne(store, 'decided', 'call-1', decision())).toMatchObject({ decided: true });
        expect(await decideOne(store, 'waiting', 'call-1', decision())).toMatchObject({ decided: true });
        expect((await store.decidedPausedRuns()).map((run) => run.runId)).toEqual(['decided', 'bare']);
        await store.updateRun('decided', 2, { status: 'running' });
        expect((await store.decidedPausedRuns()).map((run) => run.runId)).toEqual(['bare']);
      });

      it('counts runs by status, every status present', async () => {
        expect(await store.countRuns()).toEqual({ running: 0, paused_checkpoint: 0, completed: 0, cancelled: 0, failed: 0 });
        for (const id of ['a', 'b', 'c', 'd']) await store.createRun(newRun(id), []);
        await store.updateRun('a', 1, { status: 'paused_checkpoint' });
        await store.updateRun('b', 1, { status: 'completed' });
        await store.updateRun('c', 1, { status: 'failed' });
        expect(await store.countRuns()).toEqual({ running: 1, paused_checkpoint: 1, completed: 1, cancelled: 0, failed: 1 });
      });
    });

    describe('approvals', () => {
      beforeEach(async () => {
        await store.createRun(newRun('run-1'), []);
        await store.createRun(newRun('run-2', { owner: 'carol' }), []);
        await store.updateRun('run-1', 1, { status: 'paused_checkpoint' }, {
          approvals: [newApproval('run-1', 'call-1', { groupId: 'group-1' }), newApproval('run-1', 'call-2', { groupId: 'group-1' })],
        });
        await store.updateRun('run-2', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('run-2', 'call-1', { owner: 'carol', tool: 'shell' })] });
      });

      it('lists the pending ones in the order they were added, by run, by owner or all', async () => {
        const ids = (list: Array<{ runId: string; toolCallId: string }>) => list.map((approval) => `${approval.runId}/${approval.toolCallId}`);
        expect(ids(await store.listApprovals({}))).toEqual(['run-1/call-1', 'run-1/call-2', 'run-2/call-1']);
        expect(ids(await store.listApprovals({ runId: 'run-1' }))).toEqual(['run-1/call-1', 'run-1/call-2']);
        expect(ids(await store.listApprovals({ owner: 'carol' }))).toEqual(['run-2/call-1']);
        expect(ids(await store.listApprovals({ owner: 'nobody' }))).toEqual([]);
        const [first] = await store.listApprovals({ runId: 'run-1' });
        expect(first).toMatchObject({ ...newApproval('run-1', 'call-1', { groupId: 'group-1' }), decision: null, schemaVersion: STORE_SCHEMA_VERSION });
      });

      it("lists a run's approvals in the order they were added, not by their ids, decided ones too", async () => {
        await store.createRun(newRun('run-3'), []);
        await store.updateRun('run-3', 1, { status: 'paused_checkpoint' }, { approvals: ['call-z', 'call-a', 'call-m'].map((id) => newApproval('run-3', id)) });
        await decideOne(store, 'run-3', 'call-a', decision());
        const order = async (query: { runId: string; includeDecided?: boolean }) => (await store.listApprovals(query)).map((approval) => approval.toolCallId);
        expect(await order({ runId: 'run-3', includeDecided: true })).toEqual(['call-z', 'call-a', 'call-m']);
        expect(await order({ runId: 'run-3' })).toEqual(['call-z', 'call-m']);
      });

      it("lists a run's decisions: each of its approvals as listApprovals has it, but for the request, in the order they were added", async () => {
        await store.createRun(newRun('run-3'), []);
        await store.updateRun('run-3', 1, { status: 'paused_checkpoint' }, { approvals: ['call-z', 'call-a', 'call-m'].map((id) => newApproval('run-3', id)) });
        await decideOne(store, 'run-3', 'call-a', decision());
        const full = await store.listApprovals({ runId: 'run-3', includeDecided: true });
        const decisions = await store.listRunDecisions('run-3');
        expect(decisions).toEqual(full.map(({ request: _request, ...rest }) => rest));
        expect(decisions.map((approval) => [approval.toolCallId, approval.decision?.approved ?? null])).toEqual([
          ['call-z', null],
          ['call-a', true],
          ['call-m', null],
        ]);
        expect(decisions.every((approval) => !('request' in approval))).toBe(true);
        expect(await store.listRunDecisions('no-such-run')).toEqual([]);
      });

      it('pages through the pending ones, oldest first, each once, by owner or all', async () => {
        const ids = (list: Array<{ runId: string; toolCallId: string }>) => list.map((approval) => `${approval.runId}/${approval.toolCallId}`);
        const first = await store.listPendingApprovals({ limit: 2 });
        expect(ids(first.approvals)).toEqual(['run-1/call-1', 'run-1/call-2']);
        expect(first.next).not.toBeNull();
        const second = await store.listPendingApprovals({ limit: 2, after: first.next! });
        expect(ids(second.approvals)).toEqual(['run-2/call-1']);
        expect(second.next).toBeNull();
        expect(ids((await store.listPendingApprovals({ limit: 10, owner: 'carol' })).approvals)).toEqual(['run-2/call-1']);
        await decideOne(store, 'run-1', 'call-1', decision());
        expect(ids((await store.listPendingApprovals({ limit: 10 })).approvals)).toEqual(['run-1/call-2', 'run-2/call-1']);
        await expect(store.listPendingApprovals({ limit: 0 })).rejects.toThrow();
      });

      it('pages through the same pending ones with each request as the very text it was stored as', async () => {
        const parsed = async (query: { limit: number; owner?: string; after?: string }) => store.listPendingApprovals(query);
        const texts = async (query: { limit: number; owner?: string; after?: string }) => store.listPendingApprovalTexts(query);
        for (const query of [{ limit: 2 }, { limit: 10, owner: 'carol' }, { limit: 10, owner: 'nobody' }]) {
          const [withObjects, withTexts] = [await parsed(query), await texts(query)];
          expect(withTexts.next).toBe(withObjects.next);
          expect(withTexts.approvals).toEqual(
            withObjects.approvals.map(({ request, decision: _decision, ...rest }) => ({ ...rest, requestText: JSON.stringify(request) })),
          );
        }
        const first = await texts({ limit: 2 });
        expect((await texts({ limit: 2, after: first.next! })).approvals.map((approval) => approval.toolCallId)).toEqual(['call-1']);
        await expect(texts({ limit: 0 })).rejects.toThrow();
      });

      it('decides an undecided call once, with its events; the second decision is refused and writes nothing', async () => {
        const edited = decision({ approved: false, reason: 'not that file', scope: 'session', editedArgs: { path: 'b.txt', lines: [1, 2] }, stop: true });
        const first = await decideOne(store, 'run-1', 'call-1', edited, [newEvent('run-1', 'decision', { approved: false })]);
        expect(first.decided).toBe(true);
        expect(first.events.map((event) => event.type)).toEqual(['decision']);
        const events = await store.lastEventId();
        const second = await decideOne(store, 'run-1', 'call-1', decision({ decidedBy: 'mallory' }), [newEvent('run-1', 'decision')]);
        expect(second).toEqual({ decided: false, events: [] });
        expect(await store.lastEventId()).toBe(events);
        const [decided] = await store.listApprovals({ runId: 'run-1', includeDecided: true });
        expect(decided?.decision).toEqual(edited);
        expect((await store.listApprovals({ runId: 'run-1' })).map((approval) => approval.toolCallId)).toEqual(['call-2']);
      });

      it('refuses to decide a call that does not exist, writing nothing', async () => {
        expect(await decideOne(store, 'run-1', 'call-404', decision(), [newEvent('run-1', 'decision')])).toEqual({ decided: false, events: [] });
        expect(await decideOne(store, 'ghost', 'call-1', decision())).toEqual({ decided: false, events: [] });
        expect(await store.lastEventId()).toBe(0);
      });

      it('lets exactly one of concurrent decisions on the same call win', async () => {
        const results = await Promise.all(['bob', 'dave', 'erin'].map((who) => decideOne(store, 'run-2', 'call-1', decision({ decidedBy: who }))));
        expect(results.filter((result) => result.decided)).toHaveLength(1);
      });

      it('decides a group in one transaction and claims the run with the last decision, one claimer only', async () => {
        const resume = { revision: 2, events: [newEvent('run-1', 'run_resumed')] };
        const group = await store.decideApprovals('run-1', [{ toolCallId: 'call-1', events: [newEvent('run-1', 'decided-1')] }, { toolCallId: 'call-2', events: [newEvent('run-1', 'decided-2')] }], decision(), resume);
        expect(group).toMatchObject({ decided: ['call-1', 'call-2'], waiting: [] });
        expect(group.events.map((event) => event.type)).toEqual(['decided-1', 'decided-2']);
        expect(group.resumed?.run).toMatchObject({ status: 'running', revision: 3 });
        expect(group.resumed?.events.map((event) => event.type)).toEqual(['run_resumed']);
        expect(group.resumed!.events[0]!.id).toBeGreaterThan(group.events[1]!.id);
        expect(await store.getRun('run-1')).toEqual(group.resumed?.run);
        // Nothing left to decide: a second claim of the same revision finds nothing and writes nothing.
        const events = await store.lastEventId();
        expect(await store.decideApprovals('run-1', [{ toolCallId: 'call-1' }], decision(), resume)).toEqual({ decided: [], waiting: [], events: [] });
        expect(await store.lastEventId()).toBe(events);
      });

      it('decides without claiming while calls still wait, and claims with the decision that leaves none', async () => {
        const first = await store.decideApprovals('run-1', [{ toolCallId: 'call-1' }], decision(), { revision: 2, events: [newEvent('run-1', 'run_resumed')] });
        expect(first).toEqual({ decided: ['call-1'], waiting: ['call-2'], events: [] });
        expect((await store.getRun('run-1'))?.status).toBe('paused_checkpoint');
        const last = await store.decideApprovals('run-1', [{ toolCallId: 'call-2' }], decision({ approved: false }), { revision: 2, events: [] });
        expect(last.resumed?.run.status).toBe('running');
      });

      it('records the decision but does not claim from a revision that moved, or when a named call was decided already', async () => {
        const stale = await store.decideApprovals('run-2', [{ toolCallId: 'call-1' }], decision(), { revision: 1, events: [newEvent('run-2', 'run_resumed', {}, 'carol')] });
        expect(stale).toEqual({ decided: ['call-1'], waiting: [], events: [] });
        expect((await store.getRun('run-2'))).toMatchObject({ status: 'paused_checkpoint', revision: 2 });
        expect(await store.lastEventId()).toBe(0);
        await decideOne(store, 'run-1', 'call-1', decision({ decidedBy: 'dave' }));
        const partly = await store.decideApprovals('run-1', [{ toolCallId: 'call-1' }, { toolCallId: 'call-2' }], decision(), { revision: 2, events: [newEvent('run-1', 'run_resumed')] });
        expect(partly).toMatchObject({ decided: ['call-2'], waiting: [] });
        expect(partly.resumed).toBeUndefined();
        expect((await store.listApprovals({ runId: 'run-1', includeDecided: true })).map((approval) => approval.decision?.decidedBy)).toEqual(['dave', 'bob']);
      });

      it('decides calls in the order named, a call named twice once (with the first one\'s events), and does not claim then', async () => {
        const resume = { revision: 2, events: [newEvent('run-1', 'run_resumed')] };
        const twice = await store.decideApprovals('run-1', [{ toolCallId: 'call-2', events: [newEvent('run-1', 'first')] }, { toolCallId: 'call-2', events: [newEvent('run-1', 'again')] }], decision(), resume);
        expect(twice).toEqual({ decided: ['call-2'], waiting: ['call-1'], events: [expect.objectContaining({ type: 'first' })] });
        await store.createRun(newRun('run-4'), []);
        await store.updateRun('run-4', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('run-4', 'call-a'), newApproval('run-4', 'call-b')] });
        const reversed = await store.decideApprovals('run-4', [{ toolCallId: 'call-b' }, { toolCallId: 'call-a' }], decision(), { revision: 2, events: [] });
        expect(reversed).toMatchObject({ decided: ['call-b', 'call-a'], waiting: [], resumed: { run: { status: 'running' } } });
      });

      it('lets exactly one of concurrent deciders of the last call claim the run', async () => {
        const results = await Promise.all(
          ['bob', 'dave', 'erin'].map((who) => store.decideApprovals('run-2', [{ toolCallId: 'call-1' }], decision({ decidedBy: who }), { revision: 2, events: [newEvent('run-2', 'run_resumed', {}, 'carol')] })),
        );
        expect(results.filter((result) => result.resumed !== undefined)).toHaveLength(1);
        expect(results.filter((result) => result.decided.length === 1)).toHaveLength(1);
        expect((await store.getRun('run-2'))?.revision).toBe(3);
      });

      it('keeps a decision without the optional fields without them', async () => {
        await decideOne(store, 'run-1', 'call-2', decision());
        const decided = (await store.listApprovals({ runId: 'run-1', includeDecided: true })).find((approval) => approval.toolCallId === 'call-2');
        expect(decided?.decision).toEqual(decision());
        expect(decided?.decision).not.toHaveProperty('editedArgs');
      });
    });

    describe('the notifications outbox', () => {
      const delivery = (id: string, extra: Partial<{ channel: string; runId: string; toolCallId: string; body: string }> = {}) => ({ id, channel: 'ops', runId: 'run-1', toolCallId: 'call-1', body: `{"n":"${id}"}`, mac: `mac-of-${id}`, ...extra });

      it('enqueues each delivery once by its id, and keeps it across a reopen', async () => {
        expect(await store.outbox.enqueueDeliveries([delivery('d1'), delivery('d2')])).toBe(2);
        expect(await store.outbox.enqueueDeliveries([delivery('d1', { body: '{"changed":true}' }), delivery('d3')])).toBe(1);
        expect(await store.outbox.enqueueDeliveries([])).toBe(0);
        expect(await store.outbox.countDeliveries()).toEqual({ pending: 3, delivered: 0, dead: 0 });
        const reopened = await handle.reopen();
        const listed = await reopened.outbox.listDeliveries({ limit: 10 });
        expect(listed.map((item) => item.id)).toEqual(['d3', 'd2', 'd1']);
        // The first enqueue's body stands: an id names one delivery, whatever is enqueued under it later.
        expect(listed.find((item) => item.id === 'd1')).toMatchObject({ status: 'pending', attempts: 0, body: '{"n":"d1"}', mac: 'mac-of-d1', channel: 'ops', runId: 'run-1', toolCallId: 'call-1', lastError: null, deliveredAt: null });
      });

      it('leases what it claims: a second claim gets nothing until the lease ends, then the same delivery with one more attempt', async () => {
        await store.outbox.enqueueDeliveries([delivery('d1')]);
        const now = new Date(Date.now() + 60_000).toISOString();
        const leaseUntil = new Date(Date.now() + 120_000).toISOString();
        expect((await store.outbox.claimDeliveries({ now, leaseUntil, limit: 10 })).map((item) => [item.id, item.attempts])).toEqual([['d1', 1]]);
        expect(await store.outbox.claimDeliveries({ now, leaseUntil, limit: 10 })).toEqual([]);
        const later = new Date(Date.now() + 180_000).toISOString();
        expect((await store.outbox.claimDeliveries({ now: later, leaseUntil: new Date(Date.now() + 240_000).toISOString(), limit: 10 })).map((item) => [item.id, item.attempts])).toEqual([['d1', 2]]);
      });

      it('of two claims at once, each delivery goes to one', async () => {
        await store.outbox.enqueueDeliveries(Array.from({ length: 20 }, (_, index) => delivery(`d${index}`)));
        const now = new Date(Date.now() + 60_000).toISOString();
        const leaseUntil = new Date(Date.now() + 120_000).toISOString();
        const claims = await Promise.all([0, 1, 2].map(() => store.outbox.claimDeliveries({ now, leaseUntil, limit: 8 })));
        const ids = claims.flat().map((item) => item.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(20);
      });

      it('retries at the time it is told, marks delivered or dead, and a finished delivery is never claimed or reopened', async () => {
        await store.outbox.enqueueDeliveries([delivery('retry'), delivery('done'), delivery('dead')]);
        // Nothing is due before it was enqueued.
        expect(await store.outbox.claimDeliveries({ now: '2000-01-01T00:00:00.000Z', leaseUntil: '2000-01-01T00:00:30.000Z', limit: 10 })).toEqual([]);
        const now = new Date(Date.now() + 1000).toISOString();
        const all = await store.outbox.claimDeliveries({ now, leaseUntil: new Date(Date.now() + 30_000).toISOString(), limit: 10 });
        expect(all.map((item) => item.id)).toEqual(['retry', 'done', 'dead']);
        const retryAt = new Date(Date.now() + 3_600_000).toISOString();
        await store.outbox.finishDelivery('retry', { status: 'pending', retryAt, error: 'HTTP 503 from the receiver' });
        await store.outbox.finishDelivery('done', { status: 'delivered', at: now, receipt: '{"ts":"1700000000.000100"}' });
        await store.outbox.finishDelivery('dead', { status: 'dead', error: 'gave up after 8 tries: HTTP 500' });
        // A late answer for a finished delivery changes nothing.
        await store.outbox.finishDelivery('done', { status: 'pending', retryAt: now, error: 'late' });
        await store.outbox.finishDelivery('dead', { status: 'pending', retryAt: now, error: 'late' });
        expect(await store.outbox.countDeliveries()).toEqual({ pending: 1, delivered: 1, dead: 1 });
        expect(await store.outbox.claimDeliveries({ now: new Date(Date.now() + 60_000).toISOString(), leaseUntil: new Date(Date.now() + 90_000).toISOString(), limit: 10 })).toEqual([]);
        const due = await store.outbox.claimDeliveries({ now: new Date(Date.now() + 3_700_000).toISOString(), leaseUntil: new Date(Date.now() + 3_800_000).toISOString(), limit: 10 });
        expect(due.map((item) => [item.id, item.attempts, item.lastError])).toEqual([['retry', 2, 'HTTP 503 from the receiver']]);
        expect(await store.outbox.listDeliveries({ status: 'dead', limit: 10 })).toMatchObject([{ id: 'dead', status: 'dead', lastError: 'gave up after 8 tries: HTTP 500' }]);
        expect(await store.outbox.listDeliveries({ status: 'delivered', limit: 10 })).toMatchObject([{ id: 'done', deliveredAt: now, lastError: null, receipt: '{"ts":"1700000000.000100"}' }]);
        expect(await store.outbox.findDelivery('done')).toMatchObject({ id: 'done', status: 'delivered', receipt: '{"ts":"1700000000.000100"}' });
        expect(await store.outbox.findDelivery('retry')).toMatchObject({ receipt: null });
        expect(await store.outbox.findDelivery('nothing')).toBeUndefined();
      });
    });

    describeStoreContractData(() => ({ store, handle }));
  });
}

import { describe, expect, it } from 'vitest';
import type { Authorization } from '../../core/types.ts';
import { createCallRecords } from './call-records.ts';

const allow = (args: unknown): Authorization => ({ decision: 'allow', source: 'policy', rule: null, reason: 'allowed', args, stop: false, trace: [] }) as unknown as Authorization;

describe('createCallRecords', () => {
  it('keeps the most recent records within its bound and forgets the oldest', () => {
    const records = createCallRecords({ maxEntries: 10 });
    for (let index = 0; index < 25; index++) records.set({ toolCallId: `call-${index}`, tool: 'add', modelArgs: { index }, authorization: allow({ index }) });
    expect(records.get('call-24')?.modelArgs).toEqual({ index: 24 });
    expect(records.get('call-20')?.modelArgs).toEqual({ index: 20 });
    expect(records.get('call-0')).toBeUndefined();
    expect(records.get('call-9')).toBeUndefined();
    const kept = Array.from({ length: 25 }, (_, index) => records.get(`call-${index}`)).filter((record) => record !== undefined);
    expect(kept.length).toBeGreaterThanOrEqual(5);
    expect(kept.length).toBeLessThanOrEqual(10);
  });

  it('runs a record at most once, also after the run list has rolled over', () => {
    const records = createCallRecords({ maxEntries: 4 });
    records.set({ toolCallId: 'first', tool: 'add', modelArgs: {}, authorization: allow({}) });
    expect(records.consume('first')).toBe(false);
    expect(records.get('first')).toBeUndefined();
    expect(records.hasRun('first')).toBe(true);
    // Re-arming a call that ran is refused.
    records.set({ toolCallId: 'first', tool: 'add', modelArgs: {}, authorization: allow({}) });
    expect(records.get('first')).toBeUndefined();
    expect(records.consume('first')).toBe(false);
  });

  it('remembers edited arguments of a consumed call', () => {
    const records = createCallRecords();
    records.set({ toolCallId: 'edited', tool: 'send', modelArgs: { to: 'a' }, authorization: allow({ to: 'b' }) });
    expect(records.consume('edited')).toBe(true);
    expect(records.editOf('edited')).toEqual({ args: { to: 'b' } });
  });

  it('remembers that a call ran as long as a record set at that moment would be kept', () => {
    const records = createCallRecords({ maxEntries: 4 });
    records.set({ toolCallId: 'a', tool: 'add', modelArgs: {}, authorization: allow({}) });
    records.set({ toolCallId: 'b', tool: 'add', modelArgs: {}, authorization: allow({}) });
    // 'a' is among the older records when it runs; running makes it recent again.
    expect(records.consume('a')).toBe(false);
    records.set({ toolCallId: 'c', tool: 'add', modelArgs: {}, authorization: allow({}) });
    records.set({ toolCallId: 'd', tool: 'add', modelArgs: {}, authorization: allow({}) });
    expect(records.hasRun('a')).toBe(true);
    records.set({ toolCallId: 'a', tool: 'add', modelArgs: {}, authorization: allow({}) });
    expect(records.get('a')).toBeUndefined();
    expect(records.get('b')).toBeUndefined();
    expect(records.get('c')?.tool).toBe('add');
  });
});

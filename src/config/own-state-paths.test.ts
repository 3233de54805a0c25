import { describe, expect, it } from 'vitest';
import { ownStateConcern } from './own-state-paths.ts';

const ownPaths = ['/p/ws/state/approvals.json', '/p/toolgate.yaml', '/p/.toolgate'];

describe('ownStateConcern', () => {
  it('blocks a change to an own file and to anything inside one', () => {
    expect(ownStateConcern({ absolute: '/p/ws/state/approvals.json', operation: 'write', ownPaths })?.decision).toBe('block');
    expect(ownStateConcern({ absolute: '/p/.toolgate/audit.jsonl', operation: 'delete', ownPaths })?.decision).toBe('block');
  });

  it('blocks renaming, deleting or replacing every folder above an own file, existing or not', () => {
    for (const folder of ['/p/ws/state', '/p/ws', '/p']) {
      for (const operation of ['write', 'delete'] as const) {
        const concern = ownStateConcern({ absolute: folder, operation, ownPaths });
        expect(concern?.decision, `${operation} ${folder}`).toBe('block');
        expect(concern?.reason).toContain("a folder above toolgate's own file");
      }
    }
  });

  it('asks before writing or deleting files of unknown names in a folder above an own file (tar -x -C, find -delete)', () => {
    expect(ownStateConcern({ absolute: '/p/ws', operation: 'write', into: true, ownPaths })?.decision).toBe('ask');
    expect(ownStateConcern({ absolute: '/p/ws/state', operation: 'delete', into: true, ownPaths })?.reason).toContain('could replace or remove');
    expect(ownStateConcern({ absolute: '/p/ws/other', operation: 'write', into: true, ownPaths })).toBeUndefined();
  });

  it('asks for any file named like a policy and anything in a .toolgate folder, in every folder, case-insensitively', () => {
    for (const candidate of ['/q/sub/toolgate.yaml', '/q/sub/toolgate.yml', '/q/sub/TOOLGATE.json', '/q/sub/.toolgate', '/q/sub/.toolgate/approvals.json', '/q/.ToolGate/x/y']) {
      const concern = ownStateConcern({ absolute: candidate, operation: 'write', ownPaths });
      expect(concern?.decision, candidate).toBe('ask');
      expect(concern?.reason).toMatch(/toolgate loads as the (policy|approvals)/);
    }
    expect(ownStateConcern({ absolute: '/q/sub/toolgate.yaml', operation: 'delete', ownPaths })?.decision).toBe('ask');
  });

  it('says nothing about reads, unrelated paths, or names that only look alike', () => {
    expect(ownStateConcern({ absolute: '/p/ws/state', operation: 'read', ownPaths })).toBeUndefined();
    for (const candidate of ['/p/ws/other', '/p/ws/state2', '/q/toolgate.yaml.bak', '/q/.toolgate-notes', '/p/ws/stat']) {
      expect(ownStateConcern({ absolute: candidate, operation: 'write', ownPaths }), candidate).toBeUndefined();
    }
  });

  it("finds the own files among a sandbox profile's hidden rules marked protected, not among credentials", () => {
    const hidden = [
      { path: '/p/ws/state/approvals.json', source: 'protected' },
      { path: '/p/ws/keys/.ssh', source: 'credentials' },
    ];
    expect(ownStateConcern({ absolute: '/p/ws/state', operation: 'delete', hidden })?.decision).toBe('block');
    expect(ownStateConcern({ absolute: '/p/ws/keys', operation: 'delete', hidden })).toBeUndefined();
    // Hidden by the operator's sandbox.profile as well: still toolgate's own.
    expect(ownStateConcern({ absolute: '/p/ws/state', operation: 'delete', hidden: [{ path: '/p/ws/state/approvals.json', source: 'protected ∩ operator hidden' }] })?.decision).toBe('block');
  });
});

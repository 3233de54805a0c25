import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';
import { assertSingleLinkOrApproved, atLeastAsk, fileIdentity, regularFileConcern } from './regular-file-check.ts';

let root: string;
const at = (name: string) => path.join(root, name);

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-regular-')));
  writeFileSync(at('plain.txt'), 'plain');
  writeFileSync(at('linked.txt'), 'linked');
  linkSync(at('linked.txt'), at('other-name.txt'));
  mkdirSync(at('directory'));
  execFileSync('mkfifo', [at('pipe')]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('regularFileConcern', () => {
  it('says nothing about a plain file or a missing one', () => {
    expect(regularFileConcern({ absolute: at('plain.txt'), shown: 'plain.txt', operation: 'read' })).toBeUndefined();
    expect(regularFileConcern({ absolute: at('missing.txt'), shown: 'missing.txt', operation: 'write' })).toBeUndefined();
  });

  it('blocks a FIFO and a directory without opening them', () => {
    const started = performance.now();
    expect(regularFileConcern({ absolute: at('pipe'), shown: 'pipe', operation: 'read' })).toMatchObject({ decision: 'block', reason: expect.stringMatching(/pipe is a FIFO \(named pipe\).*regular files only/) });
    // Opening the FIFO would wait for a writer forever; the bound only has to tell that from a loaded machine's slowest stat.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(regularFileConcern({ absolute: at('directory'), shown: 'directory', operation: 'read' })).toMatchObject({ decision: 'block', reason: expect.stringMatching(/is a directory.*list_dir/) });
    expect(regularFileConcern({ absolute: '/dev/null', shown: '/dev/null', operation: 'write' })).toMatchObject({ decision: 'block', reason: expect.stringMatching(/character device/) });
  });

  it('asks for a file with more than one hard link, saying why', () => {
    expect(regularFileConcern({ absolute: at('linked.txt'), shown: 'linked.txt', operation: 'read' })).toEqual({
      decision: 'ask',
      links: 2,
      file: fileIdentity(lstatSync(at('linked.txt'))),
      reason: 'linked.txt has 2 hard links: it is the same file as another name that may lie outside the zones or in a read-only zone, and reading it reads that file, so a person decides',
    });
  });
});

describe('atLeastAsk', () => {
  it('raises allow to ask and keeps ask and block', () => {
    expect([atLeastAsk('allow'), atLeastAsk('ask'), atLeastAsk('block')]).toEqual(['ask', 'ask', 'block']);
  });
});

describe('assertSingleLinkOrApproved', () => {
  it('lets one name through, and several only when this very file was approved', () => {
    const identity = '2049:77';
    const approved = (file?: string) => ({ decision: 'approved' as const, payload: { zone: 'ws', path: 'a', ...(file === undefined ? {} : { file }) } });
    expect(() => assertSingleLinkOrApproved({ links: 1, identity, shown: 'a', operation: 'read', authorization: { decision: 'allow' } })).not.toThrow();
    expect(() => assertSingleLinkOrApproved({ links: 2, identity, shown: 'a', operation: 'read', authorization: approved(identity) })).not.toThrow();
    expect(() => assertSingleLinkOrApproved({ links: 2, identity, shown: 'a', operation: 'write', authorization: { decision: 'allow' } })).toThrow(FsPathRejectedError);
    expect(() => assertSingleLinkOrApproved({ links: 3, identity, shown: 'a', operation: 'read', authorization: undefined })).toThrow(/3 hard links.*2 other names/);
    // Another hard-linked file under the approved name, or an approval that never saw a hard link, is not covered.
    expect(() => assertSingleLinkOrApproved({ links: 2, identity, shown: 'a', operation: 'read', authorization: approved('2049:78') })).toThrow(/not the file that was approved/);
    expect(() => assertSingleLinkOrApproved({ links: 2, identity, shown: 'a', operation: 'read', authorization: approved() })).toThrow(/call again so a person can decide/);
    expect(() => assertSingleLinkOrApproved({ links: 2, identity, shown: 'a', operation: 'read', authorization: { decision: 'approved' } })).toThrow(FsPathRejectedError);
  });
});

/**
 * The gitlinks of a repository's index: the paths git treats as embedded
 * repositories (submodules, with or without `.gitmodules`, since
 * `git add sub` on a directory holding a repository records one). git
 * status and git diff go into each of them and run what its own
 * configuration names (`core.fsmonitor`), so their configurations are
 * checked like the outer one. Reads the index format (versions 2 to 4,
 * SHA-1 or SHA-256 names, a split index's shared part) just enough to list
 * the entries whose mode is a gitlink.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** An index larger than this is not read: the caller asks. */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;

const GITLINK_MODE = 0o160000;

export type GitlinkList = { paths: string[] } | { reason: string };

/**
 * The gitlink paths (relative to the work tree's top) recorded in `indexFile`.
 * A missing index has none; one this reader cannot follow gives a reason.
 *
 * @example
 * gitlinkPaths({ indexFile: '/p/ws/.git/index', hashBytes: 20 }) // { paths: ['vendor/lib'] }
 */
export function gitlinkPaths(options: { indexFile: string; hashBytes: number }): GitlinkList {
  const { indexFile, hashBytes } = options;
  const status = statSync(indexFile, { throwIfNoEntry: false });
  if (status === undefined) return { paths: [] };
  if (!status.isFile()) return { reason: `${indexFile} is not a regular file` };
  if (status.size > MAX_INDEX_BYTES) return { reason: `${indexFile} is larger than ${MAX_INDEX_BYTES} bytes and is not read` };
  const data = readFileSync(indexFile);
  const parsed = readIndex(data, hashBytes);
  if ('reason' in parsed) return { reason: `${indexFile} ${parsed.reason}` };
  if (parsed.sharedIndex === undefined) return { paths: parsed.paths };
  // A split index keeps most entries in `sharedindex.<hash>` beside it.
  const shared = gitlinkPaths({ indexFile: path.join(path.dirname(indexFile), `sharedindex.${parsed.sharedIndex}`), hashBytes });
  if ('reason' in shared) return shared;
  return { paths: [...new Set([...parsed.paths, ...shared.paths])] };
}

function readIndex(data: Buffer, hashBytes: number): { paths: string[]; sharedIndex: string | undefined } | { reason: string } {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return { reason: 'is not an index git writes' };
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return { reason: `is index version ${version}, which this check does not read` };
  const count = data.readUInt32BE(8);
  const paths: string[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let entry = 0; entry < count; entry++) {
    const start = at;
    // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the object name, 2 bytes of flags.
    if (at + 40 + hashBytes + 2 > data.length) return { reason: 'ends in the middle of an entry' };
    const mode = data.readUInt32BE(at + 24);
    const flags = data.readUInt16BE(at + 40 + hashBytes);
    at += 40 + hashBytes + 2;
    if ((flags & 0x4000) !== 0) {
      if (version < 3) return { reason: 'has an extended entry in a version 2 index' };
      at += 2;
    }
    let name: Buffer;
    if (version === 4) {
      // The name is the previous one with some bytes cut off its end, then a NUL-terminated suffix.
      let strip = 0;
      let byte: number;
      let shift = 0;
      do {
        if (at >= data.length || shift > 28) return { reason: 'has an entry name this check cannot read' };
        byte = data[at++]!;
        strip = shift === 0 ? byte & 0x7f : ((strip + 1) << 7) | (byte & 0x7f);
        shift += 7;
      } while ((byte & 0x80) !== 0);
      const end = data.indexOf(0, at);
      if (end === -1 || strip > previous.length) return { reason: 'has an entry name this check cannot read' };
      name = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(at, end)]);
      at = end + 1;
    } else {
      const end = data.indexOf(0, at);
      if (end === -1) return { reason: 'ends in the middle of an entry' };
      name = data.subarray(at, end);
      // Entries are padded with NULs to a multiple of 8 bytes (at least one NUL).
      at = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    previous = name;
    if ((mode & 0o170000) === GITLINK_MODE) paths.push(name.toString('utf8'));
  }
  let sharedIndex: string | undefined;
  // Extensions: a 4-byte signature and a 4-byte size each, until the trailing checksum.
  while (at + 8 <= data.length - hashBytes) {
    const signature = data.toString('latin1', at, at + 4);
    const size = data.readUInt32BE(at + 4);
    if (signature === 'link') sharedIndex = data.subarray(at + 8, at + 8 + hashBytes).toString('hex');
    at += 8 + size;
  }
  return { paths, sharedIndex };
}

import { createReadStream } from 'node:fs';

const EMPTY = Buffer.alloc(0);

/** One line of a file: its bytes (not yet decoded: most lines of a transcript are looked into, not read), or (past the bound) only its length, never held. `line` counts from 1. */
export type BoundedLine = { line: number; bytes: Buffer } | { line: number; tooLong: number };

/**
 * The lines of a file, each at most `maxBytes` long; a longer one is
 * skipped as it streams by (reported with its length), so one enormous line
 * never holds more than `maxBytes` in memory. Written here because
 * `node:readline` keeps a line whole however long it is.
 *
 * @example
 * for await (const item of readBoundedLines({ file: 'a.jsonl', maxBytes: 1 << 24 })) if ('bytes' in item) handle(item.bytes.toString('utf8'));
 */
export async function* readBoundedLines(options: { file: string; maxBytes: number }): AsyncGenerator<BoundedLine, void, undefined> {
  const { maxBytes } = options;
  let parts: Buffer[] = [];
  let held = 0;
  // Bytes of the current line seen past the bound: it is being skipped.
  let skipped = 0;
  let line = 0;
  const finish = (tail: Buffer): BoundedLine => {
    line += 1;
    if (skipped > 0) {
      const length = skipped;
      skipped = 0;
      return { line, tooLong: length };
    }
    // A copy: the stream may reuse its buffer once this generator goes on.
    const bytes = parts.length === 0 ? Buffer.from(tail) : Buffer.concat([...parts, tail]);
    parts = [];
    held = 0;
    return { line, bytes: bytes.at(-1) === 13 ? bytes.subarray(0, -1) : bytes };
  };
  for await (const chunk of createReadStream(options.file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, end);
      if (skipped > 0) skipped += tail.length;
      else if (held + tail.length > maxBytes) skipLine(tail.length);
      yield finish(skipped > 0 ? EMPTY : tail);
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) continue;
    if (skipped > 0) skipped += rest.length;
    else if (held + rest.length > maxBytes) skipLine(rest.length);
    else {
      // A copy: the stream may reuse its buffer.
      parts.push(Buffer.from(rest));
      held += rest.length;
    }
  }
  if (held > 0 || skipped > 0) yield finish(EMPTY);

  function skipLine(more: number): void {
    skipped += held + more;
    parts = [];
    held = 0;
  }
}

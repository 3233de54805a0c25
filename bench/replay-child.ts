/**
 * A child process of the replay bench (bench/suites/replay-bench.ts), so
 * that its time and its peak RSS are its own:
 *
 *   node bench/replay-child.ts floor DIR
 *     reads every .jsonl file below DIR line by line and JSON.parses every
 *     line, judging nothing: the floor of any reader of these files.
 *   node bench/replay-child.ts engine POLICY DIR
 *     replay's engine in this process: the calls of every file
 *     (historyCalls, the files walked as `toolgate replay` walks them),
 *     judged by createHistoryJudge and tallied by replayHistory.
 *
 * Prints one JSON object: what it read, `ms` from the first file opened to
 * the last line handled (no process start, no module load) and
 * `maxRSSkB` (process.resourceUsage().maxRSS: the peak of the whole process).
 */
import { createReadStream, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const [mode, ...rest] = process.argv.slice(2);

/** The .jsonl files below a folder in name order, links not followed: as `toolgate replay` walks a folder (replay-command.ts, filesOf). */
function filesBelow(directory: string): string[] {
  const found: string[] = [];
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...filesBelow(file));
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push(file);
  }
  return found;
}

/** Every line of a file through JSON.parse: 1 MiB reads, lines cut at each newline (a line across two reads joined). */
async function parseLines(file: string): Promise<{ lines: number; objects: number }> {
  let lines = 0;
  let objects = 0;
  let carry: Buffer | undefined;
  const parse = (bytes: Buffer, start: number, end: number) => {
    if (end <= start) return;
    lines += 1;
    const value = JSON.parse(bytes.toString('utf8', start, end)) as unknown;
    if (typeof value === 'object' && value !== null) objects += 1;
  };
  for await (const read of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const chunk = carry === undefined ? read : Buffer.concat([carry, read]);
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      parse(chunk, start, end);
      start = end + 1;
    }
    carry = start < chunk.length ? Buffer.from(chunk.subarray(start)) : undefined;
  }
  if (carry !== undefined) parse(carry, 0, carry.length);
  return { lines, objects };
}

if (mode === 'floor') {
  const [directory] = rest as [string];
  const started = performance.now();
  const files = filesBelow(directory);
  let lines = 0;
  let objects = 0;
  let bytes = 0;
  for (const file of files) {
    const counted = await parseLines(file);
    lines += counted.lines;
    objects += counted.objects;
    bytes += statSync(file).size;
  }
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ files: files.length, lines, objects, bytes, ms, maxRSSkB: process.resourceUsage().maxRSS })}\n`);
} else if (mode === 'engine') {
  const [policyFile, directory] = rest as [string, string];
  const { loadPolicyFile } = await import('../src/config/load-policy-file.ts');
  const { historyCalls } = await import('../src/replay/history-calls.ts');
  const { createHistoryJudge, replayHistory } = await import('../src/replay/replay-history.ts');
  const env = process.env;
  const loaded = await loadPolicyFile(path.resolve(policyFile));
  const started = performance.now();
  const policy = await createHistoryJudge({ loaded, env });
  const files = filesBelow(directory);
  function* items() {
    for (const file of files) yield* historyCalls({ file, env });
  }
  const summary = await replayHistory({ items: items(), policy });
  await policy.close();
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ files: files.length, calls: summary.calls, unseen: summary.unseen.reduce((sum, entry) => sum + entry.count, 0), malformed: summary.malformed.count, totals: summary.policies[0]?.totals, ms, maxRSSkB: process.resourceUsage().maxRSS })}\n`);
} else {
  process.stderr.write('usage: node bench/replay-child.ts floor DIR | engine POLICY DIR\n');
  process.exitCode = 2;
}

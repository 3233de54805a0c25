import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const NODE = path.resolve('node_modules/.bin/node');
const MODULE = path.resolve('src/cli/young-generation-cap.ts');

/** A process that keeps some 80 MB of small objects, checking the cap as it goes, and says how large V8's young generation became. */
function youngGenerationAfterKeeping(options: { hold: boolean }): number {
  const program = `
import v8 from 'node:v8';
import { capYoungGeneration, holdYoungGeneration } from ${JSON.stringify(MODULE)};
if (${options.hold}) holdYoungGeneration();
const cap = capYoungGeneration();
const kept = [];
for (let index = 0; index < 1_000_000; index++) {
  cap.check();
  kept.push({ index, text: 'a verdict kept for later ' + index });
}
const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
cap.release();
process.stdout.write(String(young));`;
  const result = spawnSync(NODE, ['--input-type=module', '-e', program], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stderr, 'V8 knew the flag').toBe('');
  return Number(result.stdout);
}

describe('capYoungGeneration', () => {
  it('lets V8 grow its young generation to 16 MB for a pass that keeps what it makes, and no further', () => {
    const capped = youngGenerationAfterKeeping({ hold: true });
    const free = youngGenerationAfterKeeping({ hold: false });
    expect(capped).toBeGreaterThan(1 << 20);
    expect(capped).toBeLessThanOrEqual(16 << 20);
    // Not held (a command run in-process, as the tests run them), the cap does nothing: V8 grows it as it likes.
    expect(free).toBeGreaterThan(16 << 20);
  }, 60_000);
});

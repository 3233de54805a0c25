import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const directory = path.dirname(new URL(import.meta.url).pathname);

describe('src/sandbox', () => {
  it('imports nothing from the layers above it: it takes plain data (SandboxZone, SandboxProfile)', () => {
    const upward: string[] = [];
    for (const file of readdirSync(directory).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
      const text = readFileSync(path.join(directory, file), 'utf8');
      for (const match of text.matchAll(/from '(\.\.\/[^']+)'/g)) {
        const target = match[1]!;
        if (!target.startsWith('../core/') && !target.startsWith('../filesystem/')) upward.push(`${file} imports ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});

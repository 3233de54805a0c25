/**
 * No module of src/ imports itself back through others (issue 37): a circle
 * makes the order modules run in depend on which is imported first, and
 * the layers (core below tools below runtime...) stop pointing one way.
 * Read from the sources as Node loads them: a value import, an
 * `import { type X }` (which still loads its module) or an `export … from`
 * is an edge; `import type` is not (it is erased).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './server-harness.ts';

/** Every .ts module of a folder, tests and declarations left out. */
function modulesBelow(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The modules of `modules` each one loads (relative specifiers; a dynamic import() loads later, when called, and is not one). */
function importGraph(modules: readonly string[]): Map<string, string[]> {
  const known = new Set(modules);
  const graph = new Map<string, string[]>();
  for (const module of modules) {
    const text = readFileSync(module, 'utf8');
    const loaded = [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+'(\.{1,2}\/[^']+)'|^import\s+'(\.{1,2}\/[^']+)'/gm)].map((match) => path.join(path.dirname(module), match[1] ?? match[2]!));
    graph.set(module, loaded.filter((target) => known.has(target)));
  }
  return graph;
}

/** Each group of modules that reach each other (Tarjan's strongly connected components), of two or more. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (module: string): void => {
    order.set(module, counter);
    lowest.set(module, counter++);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!order.has(target)) {
        visit(target);
        lowest.set(module, Math.min(lowest.get(module)!, lowest.get(target)!));
      } else if (onStack.has(target)) lowest.set(module, Math.min(lowest.get(module)!, order.get(target)!));
    }
    if (lowest.get(module) !== order.get(module)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(path.relative(ROOT, member));
    } while (member !== module);
    if (group.length > 1) found.push(group.sort());
  };
  for (const module of graph.keys()) if (!order.has(module)) visit(module);
  return found;
}

describe('the modules of src/', () => {
  it('import one another in no circle', () => {
    expect(circles(importGraph(modulesBelow(path.join(ROOT, 'src'))))).toEqual([]);
  });

  it('are read as Node loads them: a circle written into a scratch graph is found', () => {
    const graph = new Map([
      ['/r/a.ts', ['/r/b.ts']],
      ['/r/b.ts', ['/r/c.ts']],
      ['/r/c.ts', ['/r/a.ts']],
      ['/r/d.ts', ['/r/a.ts']],
    ]);
    expect(circles(graph).map((group) => group.length)).toEqual([3]);
  });
});

/**
 * Every TypeScript snippet in README.md, as a user would paste it into a
 * project of their own (issue 39): the packed package installed in a scratch
 * project, each snippet type-checked there by tsc (strict, against the
 * package's own type declarations) and run on Node 24, its output asserted.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedToolgate, type PackedInstall } from './packed-package.ts';
import { NODE, ROOT } from './server-harness.ts';

/** The README's ```ts blocks, in order, with the line each starts on. */
function readmeSnippets(): Array<{ line: number; code: string }> {
  const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const snippets: Array<{ line: number; code: string }> = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```ts') continue;
    const end = lines.indexOf('```', index + 1);
    snippets.push({ line: index + 1, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return snippets;
}

const snippets = readmeSnippets();
let parent: string;
let packed: PackedInstall;
beforeAll(() => {
  parent = mkdtempSync(path.join(os.tmpdir(), 'toolgate-readme-'));
  packed = installPackedToolgate(parent, { devPackages: ['@types/node'] });
  snippets.forEach((snippet, index) => writeFileSync(path.join(packed.project, `readme-${index + 1}.ts`), `${snippet.code}\n`));
  writeFileSync(
    path.join(packed.project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], erasableSyntaxOnly: true, verbatimModuleSyntax: true }, include: ['readme-*.ts'] }),
  );
}, 120_000);
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** What a snippet prints when run in the scratch project. */
function run(index: number): string {
  const result = spawnSync(NODE, [`readme-${index + 1}.ts`], { cwd: packed.project, encoding: 'utf8', timeout: 60_000 });
  expect(result.status, `README.md line ${snippets[index]!.line}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

describe("README.md's TypeScript snippets, in a project of their own", () => {
  it('are the two the README has (a snippet added here needs its run asserted below)', () => {
    expect(snippets.map((snippet) => snippet.code.split('\n')[0])).toEqual(["import { createGate, parsePolicy, type Approver } from 'toolgate';", "import { generateText, stepCountIs, tool } from 'ai';"]);
  });

  it('type-check with tsc --strict against the installed package', () => {
    const tsc = spawnSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', packed.project], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('"In a program": mail inside the company is sent, the approver refuses the other, and the reason is there to tell the model', () => {
    expect(run(0).trim().split('\n')).toEqual(['sent to ann@example.com', 'denied: denied by a person: not sending mail outside the company (send_email)']);
  });

  it('"With the Vercel AI SDK": the approver is asked, refuses, the model reads the refusal and the loop finishes', () => {
    expect(run(1).trim()).toBe("finished [ 'send_email' ] done");
  });
});

// The toolgate that tsc type-checks the snippets against is the installed one, not this checkout's sources.
it('the snippets import the installed package', () => {
  expect(execFileSync(NODE, ['-e', "console.log(import.meta.resolve('toolgate'))", '--input-type=module'], { cwd: packed.project, encoding: 'utf8' })).toContain(`${packed.project}/node_modules/toolgate/`);
});

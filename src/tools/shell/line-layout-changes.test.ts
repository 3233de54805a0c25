import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { decideLayoutChanges } from './line-layout-changes.ts';

let root: string;
let ws: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-layout-')));
  ws = path.join(root, 'ws');
  mkdirSync(path.join(ws, 'src'), { recursive: true });
  writeFileSync(path.join(ws, 'a.txt'), 'a');
  symlinkSync('src', path.join(ws, 'src-link'));
  writeFileSync(path.join(ws, 'linked.txt'), 'linked');
  linkSync(path.join(ws, 'linked.txt'), path.join(root, 'linked-elsewhere.txt'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const subjects = async (line: string) => (await decideLayoutChanges({ analysis: analyzeCommand(line), cwd: ws, home: path.join(root, 'home'), source: line })).map((finding) => finding.subject);

describe('decideLayoutChanges', () => {
  it.each([
    ['ln -s ../docs d; tee d/x', ['tee d/x']],
    ['ln -s ../docs d && echo x > d/x', ['> d/x']],
    ['tee d/x | ln -s ../docs d', ['tee d/x']],
    ['ln -s ../docs d; cd d && touch y', ['cd d', 'touch y']],
    ['mv src-link moved; cat moved/x', ['cat moved/x']],
    ['mv src moved && cat moved/x', ['cat moved/x']],
    ['mv missing.txt b.txt && cat b.txt', ['cat b.txt']],
    // A file with two names keeps both when moved: the new name is not a plain file.
    ['mv linked.txt moved.txt && cat moved.txt', ['cat moved.txt']],
    ['rm src-link; cat src-link/x', ['cat src-link/x']],
    // src-link is a symlink: removed and made again as a real directory, it leads elsewhere.
    ['rm src-link && mkdir src-link && tee src-link/x', ['mkdir src-link', 'tee src-link/x']],
    ['find . -delete; tee src-link/x', ['tee src-link/x']],
    ['unlink src-link && tee src-link', ['tee src-link']],
    ['cat src-link/x & rm src-link', ['cat src-link/x']],
    ['tar xf a.tar; cat anything', ['cat anything']],
    ['tar -xf a.tar -C src; cat src/x', ['cat src/x']],
    ['unzip a.zip && cat README', ['cat README']],
    ['cp -r src copy && cat copy/x', ['cat copy/x']],
    ['cp -a a.txt b.txt && cat b.txt', ['cat b.txt']],
    ['ln a.txt hard.txt && echo x >> hard.txt', ['>> hard.txt']],
    ['git checkout other && cat a.txt', ['cat a.txt']],
    ['git stash; cat a.txt', ['cat a.txt']],
    ['patch -p1 < fix.patch && cat a.txt', ['cat a.txt']],
    ['make && cat a.txt', ['cat a.txt']],
    ['python3 gen.py; cat out.txt', ['cat out.txt']],
    ['ln -s ../docs d && cat *', ['cat *']],
    ['for i in 1 2; do cat d/x; ln -s ../docs d; done', ['cat d/x']],
    ['eval "ln -s ../docs d"; tee d/x', ['ln -s ../docs d', 'tee d/x']],
    ['nice ln -s ../docs d && echo x > d/x', ['> d/x']],
    ['ln -s ../docs src-link; tee src/docs/x', ['tee src/docs/x']],
  ])('%s asks for %j', async (line, expected) => {
    expect(await subjects(line)).toEqual(expected);
  });

  it.each([
    'echo x > a.txt && cat a.txt',
    'mkdir -p build/x && cp a.txt build/x/ && cat build/x/a.txt',
    'cp a.txt b.txt && cat b.txt',
    'cp -p a.txt b.txt; cat b.txt',
    'touch new.txt; tee -a new.txt < a.txt',
    'rm -f old.txt; cat a.txt',
    'ln -s a.txt alias.txt',
    'tar czf out.tgz src && ls -la out.tgz',
    'git status && git diff > changes.patch',
    'git add a.txt && git commit -m "x" && cat a.txt',
    'npm test > out.txt',
    'sort a.txt | uniq > sorted.txt && wc -l sorted.txt',
    'sed -n 1p a.txt; grep -r x src',
    'read -r line < a.txt; echo "$line"',
    // Removing real files and directories changes nothing a later path relies on.
    'rm -rf src && mkdir src && cp a.txt src/',
    'rm -f a.txt; echo x > a.txt',
    'cat src/x | rm -r src',
    'mv a.txt b.txt && cat b.txt',
    'install -m 644 a.txt src/ && cat src/a.txt',
    // A plain list runs in the order written: a change reaches only what comes after it.
    'cat d/x && ln -s ../docs d',
    'tee d/x; ln -s ../docs d',
    'cd src && npm test',
    'cat a.txt; git checkout other',
  ])('%s asks for nothing', async (line) => {
    expect(await subjects(line)).toEqual([]);
  });

  it('numbers only top-level commands: one a wrapper runs can share the text of a later one', async () => {
    // The ln env runs has the same text as the top-level one written after tee, but runs before it.
    expect(await subjects('env ln -s ../docs d; tee d/x; ln -s ../docs d')).toContain('tee d/x');
  });

  it('without the line, or with the order uncertain, any other command counts', async () => {
    const unordered = await decideLayoutChanges({ analysis: analyzeCommand('cat d/x && ln -s ../docs d'), cwd: ws, home: root });
    expect(unordered.map((finding) => finding.subject)).toEqual(['cat d/x']);
    for (const line of ['cd src && npm test | cat', 'for i in 1; do cat d/x; ln -s ../docs d; done', 'cat d/x; ln -s ../docs d &', 'cat d/x $(echo y); ln -s ../docs d', 'cat d/x; cat d/x; ln -s ../docs d']) {
      expect((await subjects(line)).length, line).toBeGreaterThan(0);
    }
  });

  it('says which command changes what, in the reason', async () => {
    const [finding] = await decideLayoutChanges({ analysis: analyzeCommand('ln -s ../docs d; tee d/x'), cwd: ws, home: root });
    expect(finding).toMatchObject({ decision: 'ask', reason: expect.stringMatching(/"d\/x" goes through .*\/ws\/d, which "ln -s \.\.\/docs d" in the same line changes/) });
    const [unknown] = await decideLayoutChanges({ analysis: analyzeCommand('frobnicate; cat a.txt'), cwd: ws, home: root });
    expect(unknown).toMatchObject({ decision: 'ask', reason: expect.stringMatching(/"frobnicate" \(what it does to files is not modelled\) in the same line can change where "a.txt" leads/) });
  });
});

/**
 * Commands judged as readers that write, delete or run programs: fd's
 * `-x`/`-X` run commands (judged by the rules like find -exec), go's
 * writing subcommands and flags, readers' writing options (`tree -o`,
 * `file -C`, `info -o`, `cloc --report-file`), `ldd` (which can run what
 * it inspects), system changers (`date -s`, `hostname NAME`, `dmesg -C`),
 * `ffprobe URL`, npm's registry changes, and the bare operands of an
 * unknown command that name files (`trash Makefile`). Judged by the shell
 * tool; `file -C` also executed through the gate (auto_deny) without a
 * sandbox and in real bubblewrap. And every known reader has had its
 * options looked at, so the list cannot rot.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../src/runtime/create-runtime-gate.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';
import { optionHazards, readerOptionsReviewed } from '../src/tools/shell/option-hazards.ts';
import { analyzeCommand } from '../src/tools/shell/analyze-command.ts';
import { knownReaders } from '../src/tools/shell/unknown-command-paths.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

const RULES = ['fd', 'fdfind', 'go', 'npm', 'npm config', 'npm c', 'tree', 'file', 'info', 'cloc', 'ldd', 'date', 'hostname', 'dmesg', 'ffprobe', 'trash', 'cat', 'wc', 'man', 'identify', 'shellcheck'];

let root: string;
let ws: string;

function policyText(options: { sandbox: 'off' | 'required'; network: boolean }): string {
  return [
    'mode: auto_deny',
    'fs:',
    '  zones:',
    '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: block } }',
    'shell:',
    '  default: ask',
    `  network: ${options.network}`,
    '  rules:',
    '    - { match: rm, decision: block }',
    ...RULES.map((match) => `    - { match: ${match}, decision: allow }`),
    `sandbox: { os: ${options.sandbox} }`,
    '',
  ].join('\n');
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-readers-write-')));
  ws = path.join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(path.join(ws, 'Makefile'), 'all:\n');
  writeFileSync(path.join(ws, 'magic'), '0 string TOOLGATE toolgate file\n');
  writeFileSync(path.join(ws, 'x'), '#!/bin/sh\n');
  writeFileSync(path.join(root, 'toolgate.yaml'), policyText({ sandbox: 'off', network: true }));
  writeFileSync(path.join(root, 'toolgate-offline.yaml'), policyText({ sandbox: 'off', network: false }));
  writeFileSync(path.join(root, 'toolgate-bwrap.yaml'), policyText({ sandbox: 'required', network: true }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function toolsFor(policyFile: string) {
  const loaded = await loadPolicyFile(path.join(root, policyFile));
  const { tools } = await createBuiltinTools({ loaded, cwd: root });
  return { loaded, tools: tools as BuiltinTool[] };
}

async function decide(command: string, policyFile = 'toolgate.yaml'): Promise<{ decision: string; reasons: string }> {
  const { tools } = await toolsFor(policyFile);
  const shell = tools.find((tool) => tool.name === 'shell') as unknown as { decide(args: { command: string; cwd: string }): Promise<{ decision: string; reasons: string[] }> };
  const verdict = await shell.decide({ command, cwd: 'ws' });
  return { decision: verdict.decision, reasons: verdict.reasons.join('\n') };
}

describe('fd -x and -X run commands, judged by the rules like find -exec', () => {
  it.each(['fd -x rm', 'fd . -x rm {}', 'fd -X rm', 'fd --exec rm {} ;', 'fd --exec-batch rm', 'fdfind -x rm', 'fd -e txt -x sh -c "rm x"', 'fd -H -x rm', 'fd -x cat {} \\; -x rm'])('%s blocks: rm is blocked', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision).toBe('block');
    expect(verdict.reasons).toMatch(/"rm" is blocked/);
  });

  it.each(['fd -x touch new.txt', 'fd -x python3 x.py', 'fd -x', 'fd -x cat', 'fd -t f -t l -x cat'])('%s does not run unasked', async (command) => {
    expect((await decide(command)).decision).not.toBe('allow');
  });

  it.each(['fd txt', 'fd -e md', 'fd -t f -x cat', 'fd -tf -x cat', 'fd --type=file -x cat', 'fd -t f -x wc -l'])('%s is allowed: what it runs is allowed and only reads regular files', async (command) => {
    expect((await decide(command)).decision).toBe('allow');
  });
});

describe('readers and build tools whose options write or run programs ask under a rule that names only the tool', () => {
  it.each([
    'go build -o out ./...', 'go build ./...', 'go fmt ./...', 'go fix ./...', 'go mod vendor', 'go mod tidy', 'go get example.com/x', 'go install ./...', 'go clean -cache', 'go env -w GOFLAGS=-x',
    'go vet -vettool=./x ./...', 'go test -coverprofile=c.out ./...', 'go generate ./...',
    'tree -o listing.txt', 'file -C -m magic', 'info -o out.txt ls', 'cloc --report-file=report.txt .', 'cloc --extract-with=./x .', 'ldd ./x', 'date -s 2020-01-01', 'date --set=2020-01-01',
    'hostname evil', 'hostname -F name.txt', 'dmesg -C', 'dmesg --clear', 'ffprobe http://example.com/x.mp4', 'ffprobe -report x',
    'npm access set status=public', 'npm token create', 'npm owner add bob pkg', 'npm dist-tag add pkg@1 latest', 'npm publish', 'npm deprecate pkg msg', 'npm unpublish pkg', 'npm login',
    // An option before the subcommand takes the next word as its value: this runs `npm install`.
    'npm --editor ls install', 'npm --foo view test',
    // npm runs the editor, browser or viewer an npmrc names (a project's .npmrc can name any program), and config set/delete/fix write npmrc files.
    'npm config edit', 'npm c edit', 'npm config --editor get edit', 'npm edit lodash', 'npm config set editor=./x', 'npm config set --location=project browser ./x', 'npm c set x=y', 'npm config delete editor', 'npm config rm editor', 'npm config fix',
    'npm docs', 'npm docs lodash', 'npm home', 'npm bugs', 'npm issues', 'npm repo', 'npm help install', 'npm fund lodash',
    'trash Makefile', 'trash x',
    // Readers that read files the line does not name: a man page's `.so /etc/shadow` prints it; ImageMagick's text:, msl: and
    // ephemeral: coders read any file, run a script or delete the file; ffprobe's protocols and filters; cloc --vcs runs a command.
    'man -l page.1', 'man ./page.1', 'man --local-file=page.1', 'man -M ./man ls', 'man -p r ls', 'identify text:/etc/shadow', 'identify msl:x.msl', 'identify ephemeral:x',
    'identify @list.txt', "ffprobe 'concat:x|y.mp4'", 'ffprobe subfile:x', 'ffprobe -f lavfi movie=x.mp4', 'cloc --vcs=./x', 'cloc --vcs git', 'cloc --config=opts.txt .', 'cloc --list-file=list.txt',
    'shellcheck -x x', 'shellcheck --external-sources x', 'shellcheck -P lib x',
    // Walks that follow the symlinks they meet, any of which can lead out of the zones.
    'fd -L x', 'fd --follow x', 'fd -HL x', 'tree -l', 'tree -al', 'cloc --follow-links .',
  ])('%s asks', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('ask');
  });

  it.each([
    'go version', 'go list ./...', 'go env GOPATH', 'go vet ./...', 'go mod graph', 'go build -o /dev/null ./...', 'tree -L 2', 'file x', 'cloc .', 'ldd /usr/bin/ls', 'date +%s', 'hostname', 'hostname -f', 'dmesg',
    'ffprobe x', 'fd -H x', 'tree -a', 'man ls', 'man 5 crontab', 'identify x', 'shellcheck x', 'npm access list', 'npm token list', 'npm owner ls pkg', 'npm dist-tag ls pkg', 'npm ls', 'npm view pkg', 'trash does-not-exist',
    'npm -g ls', 'npm --json ls', 'npm --loglevel=warn ls', 'npm config get editor', 'npm config list', 'npm config ls --json', 'npm c get registry', 'npm get editor', 'npm help', 'npm fund', 'npm help-search config',
  ])('%s is allowed', async (command) => {
    const verdict = await decide(command);
    expect(verdict.decision, verdict.reasons).toBe('allow');
  });

  it.each(['npm whoami --registry=http://127.0.0.1:9/', 'npm who', 'npm profile get', 'npm token list', 'npm docs', 'npm repo lodash', 'npm fund lodash', 'npm cache add lodash', 'npm diff'])(
    '%s talks to the registry (or opens a web page): it blocks with the network off',
    async (command) => {
      const verdict = await decide(command, 'toolgate-offline.yaml');
      expect(verdict.decision, verdict.reasons).toBe('block');
      expect(verdict.reasons).toMatch(/uses the network, and network is off/);
    },
  );

  it.each(['npm ls', 'npm config get registry', 'npm fund', 'npm sbom'])('%s stays local: it is allowed with the network off', async (command) => {
    const verdict = await decide(command, 'toolgate-offline.yaml');
    expect(verdict.decision, verdict.reasons).toBe('allow');
  });

  it('npm registry changes block with the network off', async () => {
    for (const command of ['npm access set status=public', 'npm token create', 'npm owner add bob pkg', 'npm dist-tag add pkg@1 latest', 'npm publish', 'npm --editor ls install']) expect((await decide(command, 'toolgate-offline.yaml')).decision, command).toBe('block');
  });
});

describe('ImageMagick and ffmpeg open operands through coders and protocols, whose paths the path check does not see', () => {
  const hazards = (line: string): string[] => {
    const command = analyzeCommand(line).commands[0]!;
    return optionHazards({ name: command.name!, words: command.words }).map((hazard) => hazard.reason);
  };

  // `convert text:/etc/shadow out.png` renders the file into the zone; `ffmpeg -i concat:/etc/shadow -c copy out.bin` copies it.
  it.each(['convert text:/etc/shadow out.png', 'magick msl:x.msl', 'montage ephemeral:a.txt out.png', 'convert @list.txt out.png', "convert -size 10x10 'label:@/etc/shadow' out.png",
    'convert a.png png:/tmp/x.png', 'mogrify -format jpg text:/etc/passwd', 'ffmpeg -i concat:/etc/shadow -c copy out.bin', 'ffmpeg -f lavfi -i anullsrc out.wav', 'ffplay subfile:x'])('%s has a hazard', (line) => {
    expect(hazards(line).join('\n')).toMatch(/coder|protocol|filter graph/);
  });

  it.each(['convert a.png -resize 50% b.png', 'convert -size 10x10 xc:white out.png', 'magick a.png b.jpg', 'ffmpeg -i a.mp4 -map 0:a -c:a aac out.m4a', 'ffmpeg -ss 00:01:00 -i a.mp4 out.mp4'])('%s has none', (line) => {
    expect(hazards(line)).toEqual([]);
  });
});

describe('every known reader has had its options looked at', () => {
  it('each is in the option-hazard table or marked as having no options that write or run programs', () => {
    const unreviewed = knownReaders().filter((name) => !readerOptionsReviewed(name));
    expect(unreviewed).toEqual([]);
    expect(knownReaders().length).toBeGreaterThan(150);
  });

  it('a name that is not a reviewed reader is not taken as one', () => {
    expect(readerOptionsReviewed('definitely-not-a-reader')).toBe(false);
  });
});

for (const sandboxed of [false, true]) {
  describe(`file -C executed through the gate (auto_deny) ${sandboxed ? 'in real bubblewrap' : 'without a sandbox'}`, () => {
    beforeAll(async () => {
      if (sandboxed) await requireWorkingBwrap();
    });

    it('does not run, and no compiled magic file appears; file alone runs', async () => {
      const { loaded, tools } = await toolsFor(sandboxed ? 'toolgate-bwrap.yaml' : 'toolgate.yaml');
      const gate = createRuntimeGate({ loaded, tools, mode: 'auto_deny' });
      const shell = tools.find((tool) => tool.name === 'shell')!;
      const run = async (command: string) => {
        const authorization = await gate.authorize({ tool: 'shell', args: { command, cwd: 'ws' }, callId: `${command}-${sandboxed}` }, { sessionId: 'readers' });
        if (authorization.decision !== 'allow') return { ran: false, stdout: '' };
        const result = (await shell.execute({ command, cwd: 'ws' } as never, { authorization: { decision: 'allow' } })) as { stdout: string };
        return { ran: true, stdout: result.stdout };
      };
      try {
        expect((await run('file -C -m magic')).ran).toBe(false);
        expect(readdirSync(ws).filter((name) => name.endsWith('.mgc'))).toEqual([]);
        expect(await run('file Makefile')).toMatchObject({ ran: true, stdout: expect.stringContaining('Makefile') });
        expect(existsSync(path.join(ws, 'Makefile'))).toBe(true);
      } finally {
        await gate.close?.();
      }
    });
  });
}

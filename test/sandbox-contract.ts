/**
 * The sandbox contract, written once and run against every layer that
 * confines shell commands (STYLE habit 9): the policy layer (the shell tool's
 * decision through the gate) and the OS sandbox layer (bwrap, with the policy
 * bypassed on purpose). Each layer alone must keep the promises below; that
 * is what "the OS sandbox is never weaker than the policy" means in practice.
 *
 * Outcomes are judged on the host, not on what the layer says: a write is
 * prevented when the file did not appear on the host (a write that lands in
 * the sandbox's private /tmp never reaches the host), a read when the secret
 * is not in the output, the network when the test's server saw no connection.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../src/sandbox/find-executable.ts';
import { createSandboxFixture, type SandboxFixture } from './sandbox-fixture.ts';

/** What one layer did with one shell command. */
export interface ContractRunResult {
  /** The layer refused the command before it ran (a block or a denial). */
  stoppedBeforeRunning: boolean;
  /** null when it did not run or was killed. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a shell command (sh syntax) in `cwd` under the fixture's policy, confined by one layer. */
export interface SandboxContractExecutor {
  run(options: { fixture: SandboxFixture; command: string; cwd: string }): Promise<ContractRunResult>;
}

export interface SandboxContractOptions {
  /** Shown in the test names: `policy layer`, `bwrap sandbox`. */
  layer: string;
  executor: SandboxContractExecutor;
  /** Runs before the fixture is created, e.g. to fail fast when bwrap is missing. */
  before?: () => Promise<void>;
  /**
   * Cases this layer is known to fail today, by test name, with why. They run
   * as `it.fails`: not skipped, and the day the layer is fixed the test fails
   * until the entry is removed, so a gap can neither hide nor linger.
   */
  knownGaps?: Readonly<Record<string, string>>;
}

/**
 * Registers the contract's cases for one layer.
 *
 * @example
 * registerSandboxContract({ layer: 'bwrap sandbox', executor: bwrapExecutor, before: requireWorkingBwrap });
 */
export function registerSandboxContract(options: SandboxContractOptions): void {
  const { executor } = options;
  const knownGaps = new Map(Object.entries(options.knownGaps ?? {}));
  const caseNames = new Set<string>();
  const contractCase = (name: string, body: () => Promise<void>): void => {
    caseNames.add(name);
    const gap = knownGaps.get(name);
    if (gap === undefined) it(name, body);
    else it.fails(`${name} [known gap: ${gap}]`, body);
  };
  describe(`sandbox contract: ${options.layer}`, () => {
    let fixture: SandboxFixture;
    let server: Server;
    let port = 0;
    let connections = 0;

    beforeAll(async () => {
      await options.before?.();
      fixture = await createSandboxFixture();
      server = createServer((_request, response) => {
        response.end('toolgate-network-reached');
      });
      server.on('connection', () => {
        connections += 1;
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      fixture?.cleanup();
      if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const run = (command: string, cwd?: string) => executor.run({ fixture, command, cwd: cwd ?? fixture.workspace });

    /** Runs a write and checks the host: the target must not have appeared (or changed). */
    async function expectWritePrevented(options: { command: string; hostTarget: string; cwd?: string }): Promise<ContractRunResult> {
      const before = existsSync(options.hostTarget) ? readFileSync(options.hostTarget, 'utf8') : undefined;
      let result: ContractRunResult;
      try {
        result = await run(options.command, options.cwd);
      } finally {
        const after = existsSync(options.hostTarget) ? readFileSync(options.hostTarget, 'utf8') : undefined;
        // Undo a layer's failure before reporting it, so a broken layer cannot leave files in /etc or $HOME.
        if (before === undefined && after !== undefined) rmSync(options.hostTarget, { force: true });
        if (before !== undefined && after !== before) writeFileSync(options.hostTarget, before);
        expect(after, `${options.command} changed ${options.hostTarget} on the host`).toBe(before);
      }
      return result;
    }

    describe('writing outside rw zones is prevented', () => {
      const cases: { name: string; command: (fixture: SandboxFixture) => string; target: (fixture: SandboxFixture) => string }[] = [
        { name: 'into a read-only zone', command: (f) => `echo pwned > ${f.docs}/${f.probeName}`, target: (f) => path.join(f.docs, f.probeName) },
        { name: 'into the parent directory of the zones', command: (f) => `echo pwned > ${f.root}/${f.probeName}`, target: (f) => path.join(f.root, f.probeName) },
        { name: 'out of the zone with ..', command: (f) => `echo pwned > ../${f.probeName}`, target: (f) => path.join(f.root, f.probeName) },
        { name: 'into a directory outside every zone', command: (f) => `echo pwned > ${f.outside}/${f.probeName}`, target: (f) => path.join(f.outside, f.probeName) },
        { name: 'into $HOME', command: (f) => `echo pwned > ${os.homedir()}/${f.probeName}`, target: (f) => path.join(os.homedir(), f.probeName) },
        { name: 'into /etc', command: (f) => `echo pwned > /etc/${f.probeName}`, target: (f) => path.join('/etc', f.probeName) },
        { name: 'through a symlink in the rw zone that leads outside', command: (f) => `echo pwned > link-to-outside/${f.probeName}`, target: (f) => path.join(f.outside, f.probeName) },
        { name: 'through a symlink in the rw zone that leads to /etc', command: (f) => `echo pwned > link-to-etc/${f.probeName}`, target: (f) => path.join('/etc', f.probeName) },
        { name: 'through a symlink in the rw zone that leads to the ro zone', command: (f) => `echo pwned > link-to-docs/${f.probeName}`, target: (f) => path.join(f.docs, f.probeName) },
        { name: 'over a file outside the zones through a symlink', command: () => 'echo pwned > link-to-secret', target: (f) => f.secretFile },
        { name: 'by copying into the ro zone', command: (f) => `cp existing.txt ${f.docs}/${f.probeName}`, target: (f) => path.join(f.docs, f.probeName) },
      ];
      for (const entry of cases) {
        contractCase(entry.name, async () => {
          await expectWritePrevented({ command: entry.command(fixture), hostTarget: entry.target(fixture) });
        });
      }
    });

    describe('reading a secret outside zones is prevented', () => {
      const cases: { name: string; command: (fixture: SandboxFixture) => string; secret: (fixture: SandboxFixture) => string }[] = [
        { name: 'a file in a directory outside every zone', command: (f) => `cat ${f.secretFile}`, secret: (f) => f.secretText },
        { name: 'an ~/.ssh-like key outside every zone', command: (f) => `cat ${f.sshKeyFile}`, secret: (f) => f.sshKeyText },
        { name: 'through a symlink in the rw zone', command: () => 'cat link-to-secret', secret: (f) => f.secretText },
        { name: 'through .. from the zone', command: () => 'cat ../outside/secret.txt', secret: (f) => f.secretText },
        { name: 'by searching the parent directory', command: (f) => `grep -r TOP-SECRET ${f.root}`, secret: (f) => f.secretText },
      ];
      for (const entry of cases) {
        contractCase(entry.name, async () => {
          const result = await run(entry.command(fixture));
          expect(result.stdout).not.toContain(entry.secret(fixture));
          expect(result.stderr).not.toContain(entry.secret(fixture));
        });
      }
    });

    contractCase('network is prevented when off', async () => {
      const before = connections;
      const curl = findExecutable({ name: 'curl', searchPath: process.env.PATH });
      const command =
        curl === undefined
          ? `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected'`
          : `curl -s -m 5 http://127.0.0.1:${port}/`;
      const result = await run(command);
      expect(result.stdout).not.toContain('toolgate-network-reached');
      expect(result.stdout).not.toContain('connected');
      expect(connections - before, 'the test server saw a connection').toBe(0);
    });

    contractCase('writing inside a rw zone is possible', async () => {
      const target = path.join(fixture.workspace, `${fixture.probeName}.txt`);
      const result = await run(`echo hello > ${target}`);
      expect(result.stoppedBeforeRunning, result.stderr).toBe(false);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe('hello\n');
    });

    contractCase('reading inside a ro zone is possible', async () => {
      const result = await run(`cat ${fixture.docs}/readme.txt`);
      expect(result.stoppedBeforeRunning, result.stderr).toBe(false);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain(fixture.docsText);
    });

    it('lists known gaps only under names of real cases', () => {
      expect([...knownGaps.keys()].filter((name) => !caseNames.has(name))).toEqual([]);
    });
  });
}

/**
 * One `toolgate serve` per SQLite store (issue 32): a second server on a
 * store in use exits 1 and names the holder; the CLI's token commands keep
 * working beside it; a killed holder (kill -9) never blocks a restart. Real
 * processes on a real file.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, createServerProject, NODE, ROOT, SERVER_FIXTURES, startServerProcess, type ServerProcess, type ServerProject } from './server-harness.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function newProject(): ServerProject {
  const project = createServerProject({ policy: 'crash-policy.yaml' });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  return project;
}

async function start(project: ServerProject): Promise<ServerProcess> {
  const server = await startServerProcess({ project, script: 'append-once.yaml' });
  cleanup.push(() => server.kill9());
  return server;
}

/** The CLI to its end: exit code and output. */
function cli(project: ServerProject, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [path.join(ROOT, 'src/cli/main.ts'), ...args], { cwd: project.directory, env: { ...process.env, TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const serveArgs = (project: ServerProject) => ['serve', '--policy', project.policyFile, '--port', '0', '--store', project.storeFile, '--model', `script:${path.join(SERVER_FIXTURES, 'append-once.yaml')}`];

describe('one toolgate serve per SQLite store', () => {
  it('refuses a second server on a store in use, naming the holder; token commands still work beside it', async () => {
    const project = newProject();
    const first = await start(project);
    const second = await cli(project, serveArgs(project));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is in use by toolgate serve (pid ${first.pid}, since `);
    expect(second.stderr).toContain('[STORE_IN_USE]');
    expect(second.stdout).not.toContain('listening on');
    // The first server serves on, untouched.
    expect((await api(first.url, 'GET', '/healthz')).status).toBe(200);
    const created = await cli(project, ['token', 'create', 'ci-bot', '--role', 'submitter', '--store', project.storeFile]);
    expect(created.code, created.stderr).toBe(0);
    const listed = await cli(project, ['token', 'list', '--store', project.storeFile]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('ci-bot');
  }, 120_000);

  it('of two servers started on one store at once, exactly one serves', async () => {
    const project = newProject();
    const children = [0, 1].map(() => spawn(NODE, [path.join(ROOT, 'src/cli/main.ts'), ...serveArgs(project)], { cwd: project.directory, env: { ...process.env, TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] }));
    cleanup.push(() => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    });
    const outcomes = await Promise.all(
      children.map(
        (child) =>
          new Promise<'listening' | 'refused'>((resolve, reject) => {
            let stdout = '';
            let stderr = '';
            child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
              stdout += chunk;
              if (stdout.includes('listening on')) resolve('listening');
            });
            child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
            child.once('exit', (code) => (code === 1 && stderr.includes('[STORE_IN_USE]') ? resolve('refused') : reject(new Error(`exited ${code}: ${stderr}`))));
          }),
      ),
    );
    expect(outcomes.sort()).toEqual(['listening', 'refused']);
  }, 120_000);

  it('a server killed with kill -9 never blocks the next start', async () => {
    const project = newProject();
    const first = await start(project);
    await first.kill9();
    const second = await start(project);
    expect((await api(second.url, 'GET', '/healthz')).status).toBe(200);
    expect(second.pid).not.toBe(first.pid);
  }, 120_000);
});

/**
 * The gateway's audit ordering with the durable log: a call's record is
 * written before the call is forwarded, the fdatasync runs while the server
 * works, and nothing goes back to the client before the record is durable.
 * Real parts: the fixture server over stdio, the real audit log on a real
 * file (its datasync held or failed on purpose), and for the crash case the
 * gateway as its own process, killed with SIGKILL.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuditLog, type AuditLog, type AuditLogFileSystem } from '../src/audit/audit-log.ts';
import { eventually, fixtureServer, makeScratch, MCP_ENTRY, NODE, readAudit, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

/** The real file system, with every datasync held until `release` (or failed, with `fail`). */
function heldSyncs() {
  const events: string[] = [];
  let releases: (() => void)[] = [];
  let failing = false;
  const fileSystem: AuditLogFileSystem = {
    mkdir: (target, options) => mkdir(target, options),
    async open(target, flags, mode) {
      const handle = await open(target, flags, mode);
      if (flags !== 'a') return handle;
      const datasync = handle.datasync.bind(handle);
      Object.assign(handle, {
        async datasync() {
          events.push('sync started');
          await new Promise<void>((resolve) => releases.push(resolve));
          if (failing) {
            events.push('sync failed');
            throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
          }
          await datasync();
          events.push('sync done');
        },
      });
      return handle;
    },
  };
  return {
    fileSystem,
    events,
    waiting: () => releases.length,
    release() {
      for (const resolve of releases) resolve();
      releases = [];
    },
    fail() {
      failing = true;
      this.release();
    },
  };
}

const fixturePolicy = (audit: { enabled: boolean }) => () => ({
  audit,
  mcp: { servers: { fixture: { ...fixtureServer(), tools: { echo: 'allow', hang: 'allow', pid: 'block' } } } },
});

let harness: GatewayHarness | undefined;
let log: AuditLog | undefined;
let held: ReturnType<typeof heldSyncs> | undefined;
afterEach(async () => {
  held?.release();
  held = undefined;
  await harness?.close();
  harness = undefined;
  await log?.close().catch(() => undefined);
  log = undefined;
});

describe('MCP gateway with the durable audit log', () => {
  it('forwards a call once its record is written, and answers only once the record is durable', async () => {
    const syncs = (held = heldSyncs());
    const { directory } = makeScratch('toolgate-audit-order-');
    const file = path.join(directory, 'audit.jsonl');
    log = createAuditLog({ path: file, fileSystem: syncs.fileSystem });
    harness = await startGatewayHarness({ policy: fixturePolicy({ enabled: false }), gateway: { audit: log } });
    const { gateway, client } = harness;

    let answered = false;
    const call = client.callTool({ name: 'echo', arguments: { text: 'hello' } }).then((result) => {
      answered = true;
      syncs.events.push('result');
      return result;
    });
    // The server has answered (the gateway counts a forwarded call when its result comes back) while the sync is held.
    await eventually(async () => (gateway.stats().forwarded === 1 ? true : undefined));
    syncs.events.push('upstream answered');
    expect(readAudit(file).map((entry) => [entry.tool, entry.decision])).toEqual([['echo', 'allow']]);
    expect(syncs.waiting()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);

    syncs.release();
    expect(resultText(await call)).toBe('hello');
    expect(syncs.events).toEqual(['sync started', 'upstream answered', 'sync done', 'result']);
  });

  it('withholds the result when the record cannot be made durable', async () => {
    const syncs = (held = heldSyncs());
    const { directory } = makeScratch('toolgate-audit-order-');
    log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem: syncs.fileSystem });
    harness = await startGatewayHarness({ policy: fixturePolicy({ enabled: false }), gateway: { audit: log } });
    const call = harness.client.callTool({ name: 'echo', arguments: { text: 'the secret result' } });
    await eventually(async () => (harness!.gateway.stats().forwarded === 1 ? true : undefined));
    syncs.fail();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('could not make the record of this call durable');
    expect(resultText(result)).not.toContain('the secret result');
  });

  it('holds a refusal back until its record is durable too', async () => {
    const syncs = (held = heldSyncs());
    const { directory } = makeScratch('toolgate-audit-order-');
    log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem: syncs.fileSystem });
    harness = await startGatewayHarness({ policy: fixturePolicy({ enabled: false }), gateway: { audit: log } });
    let answered = false;
    const call = harness.client.callTool({ name: 'pid', arguments: {} }).then((result) => {
      answered = true;
      return result;
    });
    await eventually(async () => (syncs.waiting() === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    syncs.release();
    expect((await call).isError).toBe(true);
    expect(harness.gateway.stats().forwarded).toBe(0);
  });

  it('leaves the record of a forwarded call on disk when the gateway process is killed', async () => {
    const { directory, workspace } = makeScratch('toolgate-audit-crash-');
    mkdirSync(workspace, { recursive: true });
    const policyPath = path.join(directory, 'toolgate.json');
    writeFileSync(policyPath, JSON.stringify(fixturePolicy({ enabled: true })()));
    const transport = new StdioClientTransport({ command: NODE, args: [MCP_ENTRY, '--policy', policyPath, '--no-terminal'], stderr: 'ignore' });
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(transport);
    const auditFile = path.join(directory, '.toolgate', 'audit.jsonl');
    try {
      // `hang` never answers: the call is forwarded and still running upstream when the gateway dies.
      const call = client.callTool({ name: 'hang', arguments: {} }).then(
        () => 'answered',
        () => 'failed',
      );
      await eventually(async () => (readAudit(auditFile).some((entry) => entry.tool === 'hang') ? true : undefined));
      process.kill(transport.pid!, 'SIGKILL');
      expect(await call).toBe('failed');
      const lines = readFileSync(auditFile, 'utf8').split('\n').filter((line) => line !== '');
      expect(lines.map((line) => (JSON.parse(line) as { tool: string; decision: string }).decision)).toEqual(['allow']);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});

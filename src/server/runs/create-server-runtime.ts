/**
 * Builds what the server's runs share from a policy file: the built-in tools,
 * one audit log and "approve always" (files beside the policy, or the store
 * when servers share it), the store's session memory, a gate per mode, the models a
 * run may name, the ledger and the sealer.
 */
import { createHostJudge, type HostJudge } from '../../hooks/decide-host-call.ts';
import type { LanguageModel } from 'ai';
import { Gauge, type Registry } from 'prom-client';
import { loadStoreApprovals } from '../../approvals/store-approvals.ts';
import { createAuditLog } from '../../audit/audit-log.ts';
import { createStoreAuditLog } from '../../audit/store-audit-log.ts';
import { readAuditLog, readStoredAudit } from '../../audit/read-audit-log.ts';
import { createAttentionMeter } from './attention-meter.ts';
import { type LoadedPolicy, auditLogPath, approvalsFilePath } from '../../config/load-policy-file.ts';
import { createGateMetrics } from '../../metrics/create-metrics.ts';
import { resolveModelConnection } from '../../models/resolve-model.ts';
import { createBuiltinTools } from '../../runtime/create-builtin-tools.ts';
import { createRuntimeGate, type RuntimeGate } from '../../runtime/create-runtime-gate.ts';
import { DEFAULT_SYSTEM_PROMPT } from '../../runtime/run-agent.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import { RUN_STATUSES, type ServerRunMode, type ToolgateStore } from '../../store/store.ts';
import type { Logger } from '../log.ts';
import { createSealer } from '../seal.ts';
import { recordKey } from '../../store/record-mac.ts';
import { createStoreLedger } from './store-ledger.ts';
import { loadStoreMemory } from './store-memory.ts';
import { createDriveSlots, gateModeOf, type KeptAlways, type KeptAlwaysRecord, type ServerRuntime } from './server-runtime.ts';
import { openApprovalsFile, scopeOfRecord } from '../../approvals/approvals-file.ts';
import type { StoredAlwaysApproval } from '../../store/store.ts';

/** Runs driven at once unless `server.max_concurrent_runs` says otherwise. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 16;

export interface ServerRuntimeParts {
  runtime: ServerRuntime;
  registry: Registry;
  listeners: Set<() => void>;
  /** Reads "approve always" again from a shared store (another server or the CLI changed them); nothing to do otherwise. */
  refreshAlways(): Promise<void>;
  /** Closes the gates' audit log. */
  close(): Promise<void>;
}

/**
 * @example
 * const { runtime, registry, listeners } = await createServerRuntime({ loaded, store, secret, modelIds: ['script:demo'], env, logger });
 */
export async function createServerRuntime(options: {
  loaded: LoadedPolicy;
  store: ToolgateStore;
  secret: string;
  /** The model ids a run may name; the first is the default. */
  modelIds: readonly string[];
  env: NodeJS.ProcessEnv;
  /** `--base-url`: the server of the models' provider. */
  baseUrl?: string;
  logger: Logger;
  /** The project root relative tool paths resolve against (default: the policy's directory). */
  cwd?: string;
}): Promise<ServerRuntimeParts> {
  const { loaded, store, logger } = options;
  const { policy } = loaded;
  const cwd = options.cwd ?? loaded.directory;
  const builtins = await createBuiltinTools({ loaded, cwd });
  const tools = builtins.tools.filter((tool): tool is BuiltinTool => 'execute' in tool && typeof tool.execute === 'function');
  // On a store servers share, "approve always" and the audit trail live in it; a lone server keeps them in files beside its policy.
  const { shared } = store;
  const audit =
    policy.document.audit?.enabled === false
      ? undefined
      : shared !== undefined
        ? createStoreAuditLog(shared)
        : createAuditLog({ path: auditLogPath(loaded) });
  // Records the store holds that this server's secret did not sign are never used (a row written straight into the database).
  const key = recordKey(options.secret);
  const always =
    shared === undefined
      ? undefined
      : await loadStoreApprovals({
          shared,
          key,
          redactKeys: policy.redact.keys,
          onRefused: (refused) => logger.error('refused "approve always" records that do not verify', { ids: refused.map((record) => record.id) }),
        });
  // What people list and revoke: the same approvals the gates read (a file the gates re-read when it changes, or the store they refresh from).
  const keptAlways: KeptAlways =
    shared !== undefined
      ? {
          where: 'the store servers share',
          list: async () => (await shared.listAlways()).map(withoutMac),
          async revoke(ids) {
            const removed = await shared.revokeAlways(ids);
            await always?.refresh();
            return removed.map(withoutMac);
          },
        }
      : (() => {
          const file = openApprovalsFile({ path: approvalsFilePath(loaded), redactKeys: policy.redact.keys });
          return { where: file.path, list: async () => file.list().map(withoutMac), revoke: async (ids) => file.revoke(ids).map(withoutMac) };
        })();
  const memory = await loadStoreMemory(store, { key, onRefused: (memoryKey) => logger.error('refused a remembered session decision that does not verify', { key: memoryKey }) });
  const metrics = createGateMetrics();
  storeGauges(store, metrics.registry);
  const gates = new Map<string, RuntimeGate>();
  const gateFor = (mode: ServerRunMode): RuntimeGate => {
    const gateMode = gateModeOf(mode);
    const key = gateMode ?? 'policy';
    let gate = gates.get(key);
    if (gate === undefined) {
      gate = createRuntimeGate({
        loaded,
        tools: builtins.tools,
        memory,
        observer: metrics,
        ...(audit === undefined ? {} : { audit }),
        ...(always === undefined ? {} : { always }),
        ...(gateMode === undefined ? {} : { mode: gateMode }),
      });
      gates.set(key, gate);
    }
    return gate;
  };
  const models = new Map<string, LanguageModel>();
  for (const id of options.modelIds) {
    if (models.has(id)) continue;
    models.set(id, (await resolveModelConnection({ id, env: options.env, cwd: loaded.directory, ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }) })).model);
  }
  const sealer = createSealer(options.secret);
  const listeners = new Set<() => void>();
  let hostJudge: Promise<HostJudge> | undefined;
  const runtime: ServerRuntime = {
    keptAlways,
    // Agent hosts' calls share the server's audit trail, session memory and "approve always" (issue 33).
    hostJudge: () =>
      (hostJudge ??= createHostJudge({
        loaded,
        env: options.env,
        memory,
        observer: metrics,
        ...(audit === undefined ? {} : { audit }),
        ...(always === undefined ? {} : { always }),
      })),
    ...(audit === undefined ? {} : { audit }),
    ...(audit === undefined
      ? {}
      : { readAudit: shared !== undefined ? { items: () => readStoredAudit(shared), where: 'the shared store' } : { items: () => readAuditLog({ path: auditLogPath(loaded) }), where: auditLogPath(loaded) } }),
    attention: createAttentionMeter(),
    store,
    policy,
    tools,
    gateFor,
    models,
    defaultModel: options.modelIds[0],
    secret: options.secret,
    recordKey: key,
    sealer,
    ledger: createStoreLedger({ store, sealer }),
    memory,
    maxSteps: policy.document.server?.max_steps ?? 30,
    system: DEFAULT_SYSTEM_PROMPT,
    logger,
    notify: () => {
      for (const listener of listeners) listener();
    },
    active: new Map(),
    slots: createDriveSlots(policy.document.server?.max_concurrent_runs ?? DEFAULT_MAX_CONCURRENT_RUNS),
  };
  return {
    runtime,
    registry: metrics.registry,
    listeners,
    refreshAlways: async () => always?.refresh(),
    close: async () => {
      for (const controller of runtime.active.values()) controller.abort(new Error('the server is stopping'));
      await memory.flush();
      await audit?.close();
    },
  };
}

/** A stored approval as people read it: its MAC is the server's business. */
function withoutMac(record: Omit<StoredAlwaysApproval, 'mac'> & { mac?: string }): KeptAlwaysRecord {
  const { mac: _mac, fingerprint: _fingerprint, ...shown } = record;
  // A scope (issue 38) is listed as the rule it amounts to, when its kept record is intact.
  const rule = scopeOfRecord(record)?.rule;
  return rule === undefined ? shown : { ...shown, rule };
}

/** The store's gauges on the /metrics page: each read from the store when it is scraped (prom-client collects them concurrently), never kept up to date by hand. */
function storeGauges(store: ToolgateStore, registry: Registry): void {
  new Gauge({
    name: 'toolgate_runs',
    help: 'Runs in the store, by status (paused_checkpoint: waiting for a person).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = await store.countRuns();
      for (const status of RUN_STATUSES) this.set({ status }, counts[status]);
    },
  });
  new Gauge({
    name: 'toolgate_paused_runs',
    help: 'Runs waiting for approval.',
    registers: [registry],
    async collect() {
      this.set((await store.countRuns()).paused_checkpoint);
    },
  });
  new Gauge({
    name: 'toolgate_notifications',
    help: 'Notifications of pending approvals in the outbox, by status (dead: given up on after every retry).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = await store.outbox.countDeliveries();
      for (const status of ['pending', 'delivered', 'dead'] as const) this.set({ status }, counts[status]);
    },
  });
}

/**
 * Everything the server's runs share: the store, the policy, one gate per
 * mode, the built-in tools, the models a run may name, the secret that signs
 * approvals and seals stored state, and who to tell when events are stored.
 */
import type { NotificationChannel } from '../notify/notification-channel.ts';
import type { StoredApproval } from '../../store/store.ts';
import type { AuditLogItem } from '../../audit/read-audit-log.ts';
import type { AttentionMeter } from './attention-meter.ts';
import type { AuditSink } from '../../core/audit-entry.ts';
import type { LanguageModel, ModelMessage } from 'ai';
import type { RunState } from '../../adapters/ai-sdk/run-state.ts';
import type { Policy } from '../../core/policy/policy.ts';
import type { GateContext, RunMode } from '../../core/types.ts';
import type { RuntimeGate } from '../../runtime/create-runtime-gate.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import type { NewEvent, ServerRunMode, StoredAlwaysApproval, StoredEvent, StoredRun, ToolgateStore } from '../../store/store.ts';
import type { Logger } from '../log.ts';
import type { Sealer } from '../seal.ts';
import type { StoreMemory } from './store-memory.ts';
import type { StoreLedger } from './store-ledger.ts';
import type { HostJudge } from '../../hooks/decide-host-call.ts';
import { scopedSession } from '../../core/scoped-session.ts';

export { scopedSession };

export interface ServerRuntime {
  /** The judge of agent hosts' calls (`POST /hooks/:host`), made at the first one. */
  hostJudge(): Promise<HostJudge>;
  /** The server's audit trail (none when the policy turns it off): agent hosts' hooks report what they decided on their own into it. */
  audit?: AuditSink;
  /** Each person's decisions in the last hour, against the policy's attention budget (`attention.asks_per_hour`). */
  attention: AttentionMeter;
  /** The audit trail read back, oldest first (the inbox's attention page), and where it is; absent when the policy turns it off. */
  readAudit?: { items(): AsyncIterable<AuditLogItem>; where: string };
  store: ToolgateStore;
  policy: Policy;
  /** The built-in tools that run (refused ones are declared on the gates and block). */
  tools: BuiltinTool[];
  /** One gate per mode a run may have; `daemon` runs use the policy's own mode with the daemon flag. */
  gateFor(mode: ServerRunMode): RuntimeGate;
  /** Model ids a run may choose, to the model; the first is the default. Empty: the server serves agent hosts' hooks and the inbox only. */
  models: ReadonlyMap<string, LanguageModel>;
  defaultModel: string | undefined;
  secret: string;
  /** Signs and verifies the records the server acts on later: decisions, session memory, "approve always" (`record-mac.ts`); derived from `secret`. */
  recordKey: Buffer;
  sealer: Sealer;
  ledger: StoreLedger;
  memory: StoreMemory;
  maxSteps: number;
  system: string;
  logger: Logger;
  /** Tells SSE streams that events were stored. */
  notify(): void;
  /** The policy's notification channels (`server.channels`), for the routes that answer them (Slack's interactivity). */
  channels?: ReadonlyMap<string, NotificationChannel>;
  /** Told of every decision this server records (its notifier updates what channels sent); absent without channels. */
  onDecided?: (calls: ReadonlyArray<{ runId: string; toolCallId: string; approved: boolean; decidedBy: string; via: string | null; reason: string | null }>, approvals?: readonly StoredApproval[]) => Promise<void>;
  /** Runs driven by this process (waiting for a slot or running): their abort controllers, so a cancel stops them. */
  active: Map<string, AbortController>;
  /** How many runs are driven at once (`server.max_concurrent_runs`); the rest wait, claimed, in order. */
  slots: DriveSlots;
  /** "Approve always", as people list and revoke it (the approvals file beside the policy, or the store servers share). */
  keptAlways: KeptAlways;
}

/** The "approve always" decisions a server keeps, listed and revoked by people. */
export interface KeptAlways {
  /** The file or store they are in. */
  where: string;
  list(): Promise<KeptAlwaysRecord[]>;
  /** Removes the approvals with these ids (or id prefixes of at least 6 characters); the ones removed. */
  revoke(ids: readonly string[]): Promise<KeptAlwaysRecord[]>;
}

/** One "approve always", as people read it: what the store keeps, without what matches calls (its fingerprint) and signs them (its MAC). */
export type KeptAlwaysRecord = Omit<StoredAlwaysApproval, 'mac' | 'fingerprint'> & {
  /** For an approval of a chosen scope: the rule it amounts to (`shell.rules: { match: "git log", … }`). */
  rule?: string;
};

export interface DriveSlots {
  acquire(): Promise<void>;
  release(): void;
  /** Runs waiting for a slot. */
  readonly waiting: number;
}

/**
 * A counting semaphore: at most `limit` runs are driven at once, so that
 * approving a thousand runs does not start a thousand models and tools
 * together (and the API stays responsive while they work); the others wait
 * their turn, first come first served.
 *
 * @example
 * await slots.acquire();
 * try { await drive(); } finally { slots.release(); }
 */
export function createDriveSlots(limit: number): DriveSlots {
  let busy = 0;
  const queue: Array<() => void> = [];
  return {
    acquire() {
      if (busy < limit) {
        busy++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => queue.push(resolve));
    },
    release() {
      // The slot passes straight to the next waiter, or frees.
      const next = queue.shift();
      if (next !== undefined) next();
      else busy--;
    },
    get waiting() {
      return queue.length;
    },
  };
}

/** A stored run's state column, sealed: the messages to continue from, or the signed state of a pause. */
/**
 * A run's sealed state: its start, or its pause. `seq` is the number its
 * next model call gets (`step-recorder.ts`); absent in a pause sealed by a
 * toolgate from before steps were recorded.
 */
export type RunEnvelope =
  | { v: 1; kind: 'messages'; messages: ModelMessage[] }
  | { v: 1; kind: 'paused'; state: RunState; seq?: number }
  /** A call of an agent host (`POST /hooks/:host`) waiting for a person: no model, nothing to drive; deciding it ends it. */
  | { v: 1; kind: 'hook'; host: string; fingerprint: string; /** A remote ask's arguments as they came (the card shows them masked): an edit keeps what it did not change. */ args?: unknown };

/** Whether a waiting run is a remote ask (`POST /asks`, its host `ask:<caller>`) rather than an agent host's call: said in this one place. */
export function isAskEnvelope(envelope: RunEnvelope): envelope is Extract<RunEnvelope, { kind: 'hook' }> {
  return envelope.kind === 'hook' && envelope.host.startsWith(ASK_HOST_PREFIX);
}

/** The host of a remote ask's run: `ask:` and who asked. */
export const ASK_HOST_PREFIX = 'ask:';

export function sealEnvelope(runtime: ServerRuntime, envelope: RunEnvelope): string {
  return runtime.sealer.seal(JSON.stringify(envelope));
}

export function openEnvelope(runtime: ServerRuntime, sealed: string): RunEnvelope {
  const envelope = JSON.parse(runtime.sealer.unseal(sealed)) as RunEnvelope;
  if (envelope?.v !== 1 || (envelope.kind !== 'messages' && envelope.kind !== 'paused' && envelope.kind !== 'hook')) throw new Error('the run\'s stored state has an unknown shape');
  return envelope;
}

/**
 * The gate context of a run. Sessions are scoped by the run's owner, so one
 * principal can never reuse another's "approve for session" by naming its session.
 */
export function gateContextOf(run: Pick<StoredRun, 'runId' | 'owner' | 'sessionId' | 'chatId' | 'mode'>): GateContext {
  return {
    sessionId: scopedSession(run.owner, run.sessionId),
    ...(run.chatId === null ? {} : { chatId: run.chatId }),
    runId: run.runId,
    caller: run.owner,
    ...(run.mode === 'daemon' ? { daemon: true } : {}),
  };
}

/** The gate mode of a run's mode: `daemon` and `interactive` leave the policy's mode (asks pause the run). */
export function gateModeOf(mode: ServerRunMode): RunMode | undefined {
  return mode === 'daemon' || mode === 'interactive' ? undefined : mode;
}

/** Appends events and tells the streams. */
export async function appendEvents(runtime: ServerRuntime, events: readonly NewEvent[]): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const stored = await runtime.store.appendEvents(events);
  runtime.notify();
  return stored;
}

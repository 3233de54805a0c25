/**
 * `toolgate serve`, as a function: opens the store, builds the runs'
 * runtime from the policy, recovers runs a crash left running, serves the
 * HTTP API and the web inbox, and times out approvals nobody decides.
 */
import { createHmac, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadPolicyFile, stateDirectory, type LoadedPolicy } from '../config/load-policy-file.ts';
import { durationMs } from '../core/policy/normalize-policy.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { chooseModel } from '../models/choose-model.ts';
import { ModelNotChosenError } from '../models/errors/model-not-chosen-error.ts';
import { openStore } from '../store/open-store.ts';
import { describeStoreLocation } from '../store/store-location.ts';
import type { ToolgateStore } from '../store/store.ts';
import { createServerApp } from './http/create-server-app.ts';
import { defaultAllowedHosts } from './http/browser-guard.ts';
import { startHttpServer } from './http/start-http-server.ts';
import type { WebAssets } from './http/web-routes.ts';
import { createLogger, type Logger, type LogLevel } from './log.ts';
import { ApiError, type RunService } from './run-service.ts';
import { channelsFromPolicy } from './notify/notification-channel.ts';
import { recordKey } from '../store/record-mac.ts';
import { startNotifier } from './notify/notifier.ts';
import { watchApprovalTimeouts } from './runs/approval-timeouts.ts';
import { createRunService } from './runs/create-run-service.ts';
import { createServerRuntime } from './runs/create-server-runtime.ts';
import { keepLease, takeOverStrandedRuns } from './runs/instance-lease.ts';
import { findStrandedRuns, recoverLeftovers } from './runs/recover-runs.ts';
import { loadServerSecrets } from './server-secrets.ts';
import { hashToken } from './tokens.ts';

/** What a store keeps of the server's secret: an HMAC of a fixed text, from which the secret cannot be found. */
function secretFingerprint(secret: string): string {
  return createHmac('sha256', secret).update('toolgate store secret fingerprint v1').digest('hex');
}

/** How long a server's lease on its runs lasts without renewal (`server.instance_lease`): how soon another server takes over the runs of one that died. */
export const DEFAULT_INSTANCE_LEASE_MS = 30_000;
import { setTracingEnabled } from './tracing.ts';

export interface StartServerOptions {
  policyFile: string;
  /**
   * The policy in `policyFile`, when the caller has loaded it already:
   * `toolgate serve` does, to say which file it serves (and warn about a
   * planted one) before starting. Served as it was announced, not read again.
   */
  loaded?: LoadedPolicy;
  /** A SQLite file, or a `postgres://` URL (default: `.toolgate/toolgate.db` beside the policy). */
  storeFile?: string;
  host?: string;
  /** 0 picks a free port. Default 8787. */
  port?: number;
  /**
   * The model runs use by default (`toolgate run`'s ids); the policy's
   * `server.models` may add more. Without one (no flag, TOOLGATE_MODEL or
   * provider key, and no `server.models`) the server runs no agents: it is
   * the inbox of agent hosts' hooks, and refuses `POST /runs` saying so.
   */
  model?: string;
  /** The server of the models' provider (`--base-url`), as for `toolgate run`. */
  baseUrl?: string;
  /** The demo: the demo script is a model runs may use. */
  demo?: boolean;
  /** Overrides TOOLGATE_ADMIN_TOKEN and `.toolgate/server-token`. */
  adminToken?: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  heartbeatMs?: number;
  web?: WebAssets;
  /** Where relative tool paths resolve (default: the policy's directory). */
  cwd?: string;
}

export interface RunningToolgateServer {
  url: string;
  /** Opening it logs a browser in to the inbox (the token is in the fragment, never sent to the server). */
  loginUrl: string;
  adminToken: string;
  adminTokenSource: string;
  storeFile: string;
  store: ToolgateStore;
  service: RunService;
  /** No model: it serves agent hosts' hooks and the inbox, and refuses runs. */
  hooksOnly: boolean;
  /** Runs the last stop left under way (running, or decided but not resumed), found at the start and driven on in the background. */
  recovering: number;
  /** Settles when they are: how many of them this server drove on. */
  recovery: Promise<number>;
  close(): Promise<void>;
}

/**
 * @example
 * const server = await startToolgateServer({ policyFile: 'toolgate.yaml', port: 0, model: 'script:demo', demo: true });
 * console.log(`listening on ${server.url}`);
 */
export async function startToolgateServer(options: StartServerOptions): Promise<RunningToolgateServer> {
  const env = options.env ?? process.env;
  const loaded = options.loaded ?? (await loadPolicyFile(options.policyFile));
  const settings = loaded.policy.document.server ?? {};
  const logger =
    options.logger ??
    createLogger({ level: (settings.log_level ?? 'info') as LogLevel, verbose: settings.verbose_logging ?? false, redactKeys: [...loaded.policy.redact.keys] });
  setTracingEnabled(settings.trace_enabled ?? false);
  const state = stateDirectory(loaded.directory);
  const secrets = loadServerSecrets({ stateDirectory: state, env });
  const adminToken = options.adminToken ?? secrets.adminToken;
  const model = chooseModelIfAny({ flag: options.model, env, demo: options.demo === true });
  const modelIds = [...(model === undefined ? [] : [model]), ...(settings.models ?? [])];
  const storeLocation = options.storeFile ?? path.join(state, 'toolgate.db');
  // This server's id among servers sharing a PostgreSQL store (a SQLite store has one server).
  const instance = `${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const store = await openStore({ location: storeLocation, instance, server: true, onWarning: (message) => logger.warn('store', { error: message }) });
  // What is printed and logged: a PostgreSQL URL without its password.
  const storeFile = describeStoreLocation(storeLocation);
  let closeRuntime = async () => {};
  let closeLease = async () => {};
  // Servers sharing a store must seal runs under one secret: a server with another is refused before it touches a run.
  if (store.adoptSecret !== undefined && !(await store.adoptSecret(secretFingerprint(secrets.secret)).catch(async (error: unknown) => {
    await store.close();
    throw error;
  }))) {
    await store.close();
    throw new ToolgateError({
      code: 'USAGE',
      message: `the runs in ${describeStoreLocation(storeLocation)} are sealed under another secret than this server's (${secrets.secretSource}): every server sharing a store needs the same TOOLGATE_SERVER_SECRET`,
    });
  }
  let closeWatch = async () => {};
  let recovering = false;
  try {
    // The channels are read before anything is served: a secret that is missing stops the start, naming its key.
    const { channels, route } = channelsFromPolicy({ loaded, env, linkKey: recordKey(secrets.secret) });
    const parts = await createServerRuntime({ loaded, store, secret: secrets.secret, modelIds, env, logger, ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }), ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    closeRuntime = parts.close;
    const { runtime } = parts;
    runtime.channels = channels;
    const service = createRunService({
      runtime,
      listeners: parts.listeners,
      metrics: async () => {
        if (settings.metrics_enabled === false) throw new ApiError(404, 'metrics are disabled (server.metrics_enabled: false in the policy)');
        return parts.registry.metrics();
      },
      close: async () => {},
    });
    const allowedHosts: string[] = [...(settings.allowed_hosts ?? [])];
    const app = createServerApp({
      service,
      store,
      adminTokenHash: hashToken(adminToken),
      allowedHosts,
      logger,
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.web === undefined ? {} : { web: options.web }),
      recovering: () => recovering,
    });
    // On a shared store: the lease first (the runs this server claims are stamped with it), then
    // other servers' events wake this one's streams and their remembered decisions reach this one's
    // memory, and runs of servers that stopped are taken over.
    const leaseMs = durationMs(settings.instance_lease) ?? DEFAULT_INSTANCE_LEASE_MS;
    if (leaseMs < 1000) throw new ToolgateError({ code: 'USAGE', message: `server.instance_lease in ${loaded.path} is ${leaseMs} ms; it must be at least 1s (a lease renewed every third of it)` });
    closeLease = await keepLease(runtime, leaseMs);
    const stopWatch = store.watch?.((change) => {
      if (change.kind === 'events' || change.kind === 'resync') runtime.notify();
      if (change.kind === 'always' || change.kind === 'resync') {
        parts.refreshAlways().catch((error: unknown) => logger.warn('could not read "approve always" again', { error: String(error) }));
      }
      if (change.kind === 'memory' || change.kind === 'resync') {
        runtime.memory.refresh(change.kind === 'memory' ? change.key : null).catch((error: unknown) => logger.warn('could not read remembered decisions again', { error: String(error) }));
      }
    });
    closeWatch = stopWatch ?? closeWatch;
    // What the last stop left under way is found before anyone is answered (a run started after this is
    // never taken for one), and driven on after the server listens: a thousand runs to recover once took
    // longer than a client waits for a server to start.
    const stranded = await findStrandedRuns(runtime);
    const decided = await store.decidedPausedRuns();
    const host = options.host ?? '127.0.0.1';
    const http = await startHttpServer({ app, host, port: options.port ?? 8787 });
    allowedHosts.push(...defaultAllowedHosts({ host, port: http.port }));
    const stopTimeouts = watchApprovalTimeouts(runtime);
    // Every change in the store (a run paused, here or on another server) may be a call to tell people of.
    const notifier = channels.size === 0 ? undefined : startNotifier({ runtime, channels, route, publicUrl: settings.public_url ?? http.url });
    if (notifier !== undefined) {
      parts.listeners.add(notifier.poke);
      runtime.onDecided = notifier.decided;
      notifier.poke();
    }
    const found = stranded.length + decided.length;
    recovering = found > 0;
    logger.info('listening', { url: http.url, store: store.kind, recovering: found });
    let stopTakeover = () => {};
    const stopRecovery = new AbortController();
    const recovery = recoverLeftovers({ runtime, stranded, decided, signal: stopRecovery.signal });
    void recovery.finally(() => {
      recovering = false;
      // Then, on a shared store, whatever servers that stop leave behind, and decisions nobody resumed.
      if (!stopRecovery.signal.aborted) stopTakeover = takeOverStrandedRuns(runtime, leaseMs);
    });
    return {
      url: http.url,
      loginUrl: `${http.url}/login#token=${encodeURIComponent(adminToken)}`,
      adminToken,
      adminTokenSource: options.adminToken === undefined ? secrets.adminTokenSource : 'the caller',
      storeFile,
      store,
      service,
      hooksOnly: modelIds.length === 0,
      recovering: found,
      recovery,
      close: async () => {
        stopRecovery.abort();
        await recovery;
        stopTakeover();
        stopTimeouts();
        if (notifier !== undefined) {
          parts.listeners.delete(notifier.poke);
          await notifier.stop();
        }
        await http.close();
        await closeWatch();
        await closeRuntime();
        // Last: other servers take this one's running runs as soon as the lease ends.
        await closeLease();
        await store.close();
      },
    };
  } catch (error) {
    await closeWatch();
    await closeRuntime();
    await closeLease();
    await store.close();
    throw error;
  }
}

/** The model chosen by flag, environment or demo; none chosen is a server for hooks only, any other problem (a bad id) is thrown. */
function chooseModelIfAny(options: Parameters<typeof chooseModel>[0]): string | undefined {
  try {
    return chooseModel(options).id;
  } catch (error) {
    if (error instanceof ModelNotChosenError) return undefined;
    throw error;
  }
}

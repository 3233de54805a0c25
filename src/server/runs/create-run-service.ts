/**
 * The server's runs: started from `POST /runs`, driven in deferred mode,
 * paused durably on approvals, resumed by decisions, cancelled, recovered
 * after a restart, and timed out when nobody answers. Implements RunService.
 */
import type { StoredEvent } from '../../store/store.ts';
import type { Principal, RunService } from '../run-service.ts';
import { maySeeEvent } from './run-views.ts';
import type { ServerRuntime } from './server-runtime.ts';
import { deliveryOperations } from './delivery-operations.ts';
import { hostOperations } from './host-operations.ts';
import { memoryOperations } from './memory-operations.ts';
import { runOperations } from './run-operations.ts';

export interface RunServiceOptions {
  runtime: ServerRuntime;
  /** Prometheus text (the gate's counters and the server's gauges). */
  metrics: () => Promise<string>;
  /** Tells the service's SSE listeners; the runtime calls it through `notify`. */
  listeners: Set<() => void>;
  close: () => Promise<void>;
}

/**
 * The run service: the server's operations, each group in a module of its
 * own (runs, notifications and links, remembered decisions, agent hosts).
 *
 * @example
 * const service = createRunService({ runtime, metrics, listeners, close });
 * const { run_id } = await service.startRun(principal, { input: 'Tidy the notes' });
 */
export function createRunService(options: RunServiceOptions): RunService {
  const { runtime } = options;
  return {
    ...runOperations(runtime, options.listeners),
    ...deliveryOperations(runtime),
    ...memoryOperations(runtime),
    ...hostOperations(runtime),
    maySee: (principal: Principal, event: StoredEvent) => maySeeEvent(principal, event),
    metrics: options.metrics,
    close: options.close,
  };
}

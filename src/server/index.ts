/**
 * `toolgate/server`: `toolgate serve` as a library — the HTTP approval API
 * and web inbox over a durable store, the store itself (SQLite; the
 * interface any other store implements), API tokens, and the run service
 * the HTTP layer speaks to.
 */
export { startToolgateServer } from './start-server.ts';
export type { RunningToolgateServer, StartServerOptions } from './start-server.ts';
export { ApiError } from './run-service.ts';
export type { ApproveInput, ApproveResult, PendingView, Principal, RunService, RunSummaryView, RunView, StartRunInput } from './run-service.ts';
export { createApiToken, hashToken, newToken } from './tokens.ts';
export { createSealer } from './seal.ts';
export { verifyWebhookSignature, webhookSignature } from './notify/webhook-channel.ts';
export type { Sealer } from './seal.ts';
export { openSqliteStore } from '../store/sqlite-store.ts';
export { openStore } from '../store/open-store.ts';
export { STORE_SCHEMA_VERSION, RUN_STATUSES, isFinished } from '../store/store.ts';
export type {
  CallStatus,
  NewApproval,
  NewEvent,
  NewRun,
  RunChange,
  RunStatus,
  ServerRunMode,
  StoredApproval,
  StoredCall,
  StoredDecision,
  StoredEvent,
  StoredRun,
  StoredToken,
  TokenRole,
  ToolgateStore,
} from '../store/store.ts';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalMemory } from '../core/approval-memory.ts';
import type { Approver } from '../core/approver.ts';
import type { AuditSink } from '../core/audit-entry.ts';
import type { GateObserver } from '../core/gate.ts';
import type { RunMode } from '../core/types.ts';
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import type { NamespacingMode } from './assign-client-names.ts';
import type { DefinitionChange } from './definition-change.ts';
import type { RestartPolicy } from './upstream-connection.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';

/** The default deadline of one forwarded request (tools/call, resources/read...). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** The values of `toolgate mcp --approver`, and `auto`. */
export type ApproverChoice = 'auto' | 'elicitation' | 'terminal' | 'server' | 'none';

export interface McpGatewayOptions {
  /** The policy, with the directory its relative paths (cwd, audit, approvals) resolve against. */
  loaded: LoadedPolicy;
  /** Overrides the policy's `mode`. */
  mode?: RunMode;
  /** `collisions` (default): prefix names only where two servers share one; `always`: prefix every name. */
  namespacing?: NamespacingMode;
  /** Deadline of each forwarded request, cancelled upstream when it passes (default 60 s). */
  callTimeoutMs?: number;
  /** Deadline of an upstream's initialize handshake and list requests (default 30 s). */
  connectTimeoutMs?: number;
  /** Backoff for restarting upstream servers that stop (0.5 s doubling to 30 s by default). */
  restart?: RestartPolicy;
  /**
   * How a person is asked (`--approver`): `auto` (default) by MCP
   * elicitation when the client supports it, else the terminal, else
   * `approver`; `elicitation` by elicitation only; `terminal` by the
   * terminal only (for clients that answer elicitation on their own);
   * `server`: `approver` only (toolgate serve's inbox), never elicitation or
   * the terminal; `none`: nobody, every ask is denied with a message saying
   * how to decide.
   */
  approverChoice?: ApproverChoice;
  /**
   * A terminal to ask in, when the client cannot elicit. For a stdio gateway
   * it must be built on /dev/tty: stdin and stdout carry the protocol.
   */
  terminalApprover?: Approver;
  /**
   * Any other way to ask a person (the web inbox, a callback), used when the
   * client cannot elicit and no terminal is attached. Without any of them an
   * ask is denied with a message saying how to approve.
   */
  approver?: Approver;
  /**
   * Where audit records go; by default the policy's audit log (`audit.path`), unless `audit.enabled: false`.
   * A sink with `recordInStages` (an `AuditLog`) gets the gateway's ordering: forwarded once written, answered once durable.
   */
  audit?: AuditSink;
  memory?: ApprovalMemory;
  observer?: GateObserver;
  /**
   * Called when an upstream server changes a tool's definition. When the
   * gateway writes the policy's audit log itself (no `audit` given), the
   * change is also recorded there as a `definition_changed` line.
   */
  onDefinitionChanged?: (change: DefinitionChange) => void | Promise<void>;
  /** Gateway messages and upstream stderr lines (default: process.stderr). */
  log?: (line: string) => void;
  /**
   * Relay every stderr line of every server and every message of the
   * gateway's MCP clients (`--verbose`). By default a server's stderr is
   * shown only with the report of a failed start until it is ready, and
   * expected messages (roots no client shares, a message lost to a stopped
   * server) are one line per server.
   */
  verbose?: boolean;
  /** toolgate's environment (default `process.env`): where `env_from` and `${VAR}` are read, and what a failed start's report compares with. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** How the gateway introduces itself to clients and to upstream servers. */
  serverInfo?: Implementation;
  /** Builds upstream transports (tests inject in-memory ones); default: process group stdio or Streamable HTTP. */
  createTransport?: (config: UpstreamServerConfig) => Transport;
}

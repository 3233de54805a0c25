import path from 'node:path';
import { findPolicyFile, loadPolicyFile, type LoadedPolicy, auditLogPath } from '../../config/load-policy-file.ts';
import { announcePolicy, type PolicyOrigin } from '../../config/policy-discovery.ts';
import { createDemoWorkspace } from '../../runtime/demo-workspace.ts';
import { webAssets } from '../../server/web/web-assets.ts';
import { startToolgateServer, type RunningToolgateServer } from '../../server/start-server.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { StoreError } from '../../store/sqlite-store-error.ts';
import { resolveStoreLocation } from '../../store/store-location.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { quoteShellWord } from '../../core/quote-shell-word.ts';

export const SERVE_HELP = `Usage: toolgate serve [options]

Runs agents as a service: an HTTP API (seed 004's /runs, /runs/:id/events,
/runs/:id/approve ...), a web inbox where people approve tool calls, and
paused runs kept in a store, so a restart loses no pending approval and runs
no approved call twice.

Options:
  --policy FILE      the policy (default: toolgate.yaml in this directory)
  --host HOST        address to listen on (default 127.0.0.1; anything else
                     exposes the API beyond this machine: list the names
                     clients use in the policy's server.allowed_hosts)
  --port PORT        port (default 8787; 0 picks a free one)
  --store FILE|URL   where runs are kept: a SQLite file (default
                     .toolgate/toolgate.db beside the policy), or a PostgreSQL
                     database, postgres://USER[:PASSWORD]@HOST[:PORT]/DB
                     (default TOOLGATE_STORE_URL when set)
  --model ID         the model runs use: script:FILE, openai:<model>,
                     anthropic:<model>, openai-compatible:<model>
                     (default TOOLGATE_MODEL, else the provider whose key is set);
                     the policy's server.models lists more a run may choose.
                     With none, the server is the inbox of agent hosts' hooks
                     (toolgate install --approver server) and runs no agents
  --base-url URL     the server of the model's provider (Ollama, vLLM, a proxy)
  --demo             a fresh demo workspace, the scripted demo model, and a
                     demo run that soon waits for approval (no key needed)
  -h, --help         this help

On start it prints \`listening on http://HOST:PORT\` and the inbox's login
URL: opening it logs the browser in. Every endpoint but GET /healthz needs
\`Authorization: Bearer TOKEN\`. The admin token is TOOLGATE_ADMIN_TOKEN when
set, else one generated on first start and kept in .toolgate/server-token
(mode 0600). More tokens: toolgate token create NAME --role submitter|approver|admin.
The key that signs approvals and seals stored runs is TOOLGATE_SERVER_SECRET,
else .toolgate/server-secret (every server sharing a store needs the same).
Either file, when you write it yourself, must be a regular file you own with
mode 0600, and as long as the variable would have to be (16 characters for the
token, 32 bytes for the secret).

Examples:
  toolgate serve --demo
  toolgate serve --policy toolgate.yaml --model openai:gpt-4o
  curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
       -d '{"input":"Tidy the notes"}' http://127.0.0.1:8787/runs

Exit codes:
  0  stopped (Ctrl-C or SIGTERM)   2  usage error
  3  the policy file is missing or invalid
  1  the server could not start (port in use, store unreadable or in use
     by another server, database unreachable, ...)
`;

/** `--store` (else TOOLGATE_STORE_URL): a postgres:// URL as it is, else a SQLite file relative to where toolgate was started. */
function storeOption(value: string | undefined, cwd: string): { storeFile?: string } {
  if (value === undefined) return {};
  const resolved = resolveStoreLocation(value, cwd, path.resolve);
  if ('problem' in resolved) throw new UsageError(resolved.problem);
  return { storeFile: resolved.location };
}

const DEMO_TASK = 'Work through the open tasks in ws/notes.txt.';

/**
 * `toolgate serve`: serves until SIGINT or SIGTERM, then closes cleanly.
 *
 * @example
 * process.exitCode = await runServeCommand(['--demo'], processIo());
 */
export async function runServeCommand(argv: string[], io: CliIo, options: { stopSignal?: AbortSignal } = {}): Promise<number> {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: false,
    options: {
      policy: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      store: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      demo: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(SERVE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments (got ${JSON.stringify(positionals[0])})`);
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535, not ${JSON.stringify(values.port)}`);
  if (values.demo === true && values.policy !== undefined) throw new UsageError('--demo brings its own workspace and policy; leave out --policy');
  let policyFile: string;
  let cwd = io.cwd;
  let origin: PolicyOrigin = 'demo';
  if (values.demo === true) {
    const workspace = createDemoWorkspace();
    policyFile = workspace.policyFile;
    cwd = workspace.root;
    io.stderr.write(`toolgate demo: a fresh workspace in ${workspace.root}\n`);
  } else {
    const found = values.policy ?? findPolicyFile(io.cwd);
    if (found === undefined) throw new UsageError(`no policy: pass --policy FILE, run \`toolgate init\` to write a starter toolgate.yaml in ${io.cwd}, or try \`toolgate serve --demo\``);
    policyFile = path.resolve(io.cwd, found);
    origin = values.policy === undefined ? 'found' : 'flag';
  }
  const loaded = await loadPolicyFile(policyFile);
  // Which file, and whether an earlier run's agent could have planted it (src/config/policy-discovery.ts);
  // recorded, since the served runs' agents write in its zones too.
  announcePolicy({ loaded, origin, cwd, env: io.env, write: (text) => io.stderr.write(text), record: true });
  let server: RunningToolgateServer;
  try {
    server = await startToolgateServer({
      policyFile,
      loaded,
      ...storeOption(values.store ?? io.env.TOOLGATE_STORE_URL, io.cwd),
      ...(values.host === undefined ? {} : { host: values.host }),
      port,
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
      demo: values.demo === true,
      env: io.env,
      web: webAssets(),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      io.stderr.write(`toolgate serve: port ${port} is in use; choose another with --port (0 picks a free one)\n`);
      return 1;
    }
    if (error instanceof StoreError) {
      io.stderr.write(`toolgate serve: ${sanitizeTerminalText(error.message)} [${error.code}]\n`);
      return 1;
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      io.stderr.write(`toolgate serve: cannot listen on ${sanitizeTerminalText(values.host ?? '')}: no such address on this machine\n`);
      return 1;
    }
    throw error;
  }
  io.stdout.write(`listening on ${server.url}\n`);
  io.stdout.write(`open the inbox: ${server.loginUrl}\n`);
  io.stderr.write(`admin token from ${server.adminTokenSource}; runs are kept in ${sanitizeTerminalText(server.storeFile)}${server.store.shared === undefined ? '' : ' (with "approve always" and the audit trail: every server on it shares them)'}${server.recovering > 0 ? `; ${server.recovering} runs left under way by the last stop are driven on now` : ''}\n`);
  io.stderr.write(`${describeAuditLog({ loaded, shared: server.store.shared !== undefined })}\n`);
  if (server.hooksOnly) {
    io.stderr.write('no model: serving agent hosts\' hooks and the inbox only (POST /runs is refused); to run agents too, restart with --model ID, TOOLGATE_MODEL, OPENAI_API_KEY or ANTHROPIC_API_KEY\n');
  }
  if (values.demo === true) {
    const { run_id } = await server.service.startRun({ name: 'admin', role: 'admin' }, { input: DEMO_TASK });
    io.stderr.write(`demo run ${run_id} started: it will soon wait for your approval in the inbox\n`);
  }
  await waitForStop(options.stopSignal);
  io.stderr.write('stopping...\n');
  await server.close();
  return EXIT.ok;
}

/**
 * Where this server's decisions are recorded and the command that reads
 * them from any directory: the demo's log is in a temporary workspace, where
 * a bare `toolgate audit` would not look.
 */
function describeAuditLog(options: { loaded: LoadedPolicy; shared: boolean }): string {
  const { loaded } = options;
  if (loaded.policy.document.audit?.enabled === false) return 'audit log: off (audit.enabled: false in the policy)';
  // The URL may carry a password: the person has it already, toolgate does not print it.
  if (options.shared) return 'audit trail: in the shared store, with every server\'s decisions (read it: toolgate audit --store URL)';
  const log = auditLogPath(loaded);
  return `audit log: every decision is recorded in ${sanitizeTerminalText(log)} (read it: toolgate audit --policy ${sanitizeTerminalText(quoteShellWord(loaded.path))})`;
}

function waitForStop(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}


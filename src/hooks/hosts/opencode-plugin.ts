/**
 * The opencode plugin `toolgate install opencode` writes: opencode has no
 * command hook, and runs the JavaScript modules of its plugins folder in its
 * own process (Bun). The plugin is toolgate's hook command, one line of JSON
 * (which install, uninstall and doctor read back), and a fixed body that
 * hands each call to that command as Claude Code hands one to its hook, and
 * fails closed: the call runs only on an answer of "allow" from a hook that
 * exited 0, with the arguments it judged — another plugin that changes them
 * while the hook decides, or after, makes the call fail instead.
 */
/** The line that holds the hook's command and timeout; nothing else in the file is read. */
const HOOK_LINE = /^const TOOLGATE_HOOK = (\{.*\});$/m;
/** The first line of every plugin toolgate writes: a file without it is someone else's. */
const MARKER = '// toolgate: this plugin hands each tool call of opencode to `toolgate hook opencode`.';

export interface OpencodeHook {
  /** The hook command line, run with /bin/sh -c (as every host runs its hook). */
  command: string;
  timeoutSeconds: number;
}

/**
 * The plugin's source for `hook`.
 *
 * @example
 * opencodePluginSource({ command: "/usr/bin/node /opt/toolgate/bin/toolgate.js hook opencode || exit 2", timeoutSeconds: 600 })
 */
export function opencodePluginSource(hook: OpencodeHook): string {
  return `${MARKER}
// Written by \`toolgate install opencode\`; \`toolgate uninstall opencode\` removes it, \`toolgate doctor\` checks it.
// Edits are lost when install runs again. A failure of any kind blocks the call.
const TOOLGATE_HOOK = ${JSON.stringify({ command: hook.command, timeoutSeconds: hook.timeoutSeconds })};
${PLUGIN_BODY}`;
}

/** The hook a plugin file holds; undefined for a file that is not toolgate's plugin, `unreadable` for one of toolgate's whose hook line cannot be read. */
export function readOpencodePlugin(text: string): OpencodeHook | 'unreadable' | undefined {
  if (!text.startsWith(MARKER)) return undefined;
  const line = HOOK_LINE.exec(text);
  let hook: unknown;
  try {
    hook = line === null ? undefined : JSON.parse(line[1]!);
  } catch {
    hook = undefined;
  }
  const { command, timeoutSeconds } = (typeof hook === 'object' && hook !== null ? hook : {}) as Record<string, unknown>;
  return typeof command === 'string' && typeof timeoutSeconds === 'number' ? { command, timeoutSeconds } : 'unreadable';
}

/**
 * The plugin's code, the same in every install. It is plain JavaScript that
 * opencode's Bun runs as it is (no build, no imports but Node's built-ins),
 * so it is written here as text.
 */
const PLUGIN_BODY = String.raw`import { spawn } from 'node:child_process';

// Variables that make a Node load code before toolgate runs: the hook starts without them.
const CODE_VARIABLES = ['NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_PATH'];
// Past the hook's own deadline (it answers before its timeout), a hook that has not answered is killed.
const GRACE_MS = 5000;

function deepFreeze(value) {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

function ask(payload) {
  return new Promise((resolve) => {
    const env = { ...process.env };
    for (const name of CODE_VARIABLES) delete env[name];
    let child;
    try {
      child = spawn('/bin/sh', ['-c', TOOLGATE_HOOK.command], { cwd: payload.directory, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (error) {
      resolve({ code: null, stdout: '', stderr: String(error && error.message || error) });
      return;
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => { if (stdout.length < 1048576) stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk) => { if (stderr.length < 65536) stderr += chunk; });
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    }, TOOLGATE_HOOK.timeoutSeconds * 1000 + GRACE_MS);
    child.once('error', (error) => { clearTimeout(timer); resolve({ code: null, stdout, stderr: String(error && error.message || error) }); });
    child.once('close', (code, signal) => { clearTimeout(timer); resolve({ code: signal === null ? code : null, signal, stdout, stderr }); });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function answerOf(stdout) {
  const line = stdout.trim().split('\n').pop();
  try {
    const answer = JSON.parse(line);
    return typeof answer === 'object' && answer !== null ? answer : undefined;
  } catch {
    return undefined;
  }
}

export const ToolgatePlugin = async ({ directory, worktree }) => ({
  'tool.execute.before': async (input, output) => {
    const judged = JSON.stringify(output.args ?? {});
    const payload = { event: 'tool.execute.before', tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: JSON.parse(judged), directory, worktree };
    const result = await ask(payload);
    const answer = answerOf(result.stdout);
    if (answer && answer.decision === 'allow' && result.code === 0) {
      // What runs is what was judged: arguments another plugin changed meanwhile fail the call, and none can change them after.
      if (JSON.stringify(output.args ?? {}) !== judged) throw new Error('toolgate: another opencode plugin changed this call\'s arguments while toolgate judged it: the call is blocked');
      // The arguments toolgate runs it with instead (sandbox.hosts: wrap: the command inside its OS sandbox).
      if (typeof answer.args === 'object' && answer.args !== null && !Array.isArray(answer.args)) {
        for (const key of Object.keys(output.args)) if (!(key in answer.args)) delete output.args[key];
        Object.assign(output.args, answer.args);
      }
      deepFreeze(output.args);
      Object.defineProperty(output, 'args', { value: output.args, writable: false, configurable: false, enumerable: true });
      return;
    }
    if (answer && typeof answer.reason === 'string' && answer.reason !== '') throw new Error(answer.reason);
    const why = result.code === null ? (result.signal ? 'was killed (' + result.signal + ')' : 'could not run') : 'exited ' + result.code + ' with no answer';
    throw new Error('toolgate: the hook ' + why + (result.stderr.trim() ? ': ' + result.stderr.trim().slice(0, 500) : '') + ': the call is blocked');
  },
});
`;

import { createHash } from 'node:crypto';
import path from 'node:path';
import { PolicyError, type PolicyIssue } from '../core/errors/policy-error.ts';
import { formatPath, normalizeDecision, patterns, toolRule, type PathIssue } from '../core/policy/normalize-policy.ts';
import type { LabelledPattern, Policy, ToolRule } from '../core/policy/policy.ts';
import type { Decision } from '../core/types.ts';
import { ENV_NAME, interpolateEnv } from './interpolate-env.ts';
import { readAccessPolicy, type AccessDocument, type AccessPolicy } from './mcp-access-policy.ts';

/** How the gateway reaches one upstream server. */
export type UpstreamTransportConfig =
  | { kind: 'stdio'; command: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd: string }
  | { kind: 'http'; url: URL; headers: Readonly<Record<string, string>> };

/** One `mcp.servers.<name>` entry, read and compiled for the gateway. */
export interface UpstreamServerConfig {
  /** The key under `mcp.servers`. */
  name: string;
  transport: UpstreamTransportConfig;
  /**
   * sha256 of the server's name and how it is started (command, args and cwd
   * as written, or url) and of the values its `${VAR}`s, env and headers
   * resolve to: approvals are bound to it, so pointing the same name at
   * another program, or giving it another credential, forgets them.
   */
  identity: string;
  /** Prefix for this server's tool and prompt names when they are namespaced. */
  namespace: string;
  /** For tools with no rule anywhere. */
  defaultDecision: Decision;
  /** Where the default came from, for traces: `mcp.servers.files.default`. */
  defaultLabel: string;
  trustAnnotations: boolean;
  /** Rules keyed by the tool's name on the server (not the namespaced name). */
  tools: ReadonlyMap<string, ToolRule>;
  /** `ask_when`: the server's tools whose name on the server matches one always ask. */
  askWhen: readonly LabelledPattern[];
  /** `ask_always`: every call to the server's tools asks (unless blocked). */
  askAlways: boolean;
  /** Matched against the tool's name on the server. */
  filter: { allow: readonly LabelledPattern[] | undefined; deny: readonly LabelledPattern[] };
  /** The policy's `redact.keys` and the server's own, lowercased. */
  redactKeys: ReadonlySet<string>;
  /** Who may read, subscribe to and complete which resources (`mcp-access-policy.ts`). */
  resources: AccessPolicy;
  /** Who may get and complete which prompts. */
  prompts: AccessPolicy;
  /** Whether the server may have the client's model write (`sampling/createMessage`). */
  sampling: AccessPolicy;
  /** Whether the server may ask the person through the client (`elicitation/create`). */
  elicitation: AccessPolicy;
}

/** Characters a namespace may use: it becomes part of tool names, which clients restrict. */
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Reads `mcp.servers` from a loaded policy: compiles each server's tool rules
 * and filter with the same code as the top-level ones, resolves `cwd` (and a
 * relative `command` path) against the policy's directory, and checks what the
 * schema cannot (exactly one of `command` and `url`, a usable namespace).
 * Throws `PolicyError` listing every problem.
 *
 * @example
 * const servers = readUpstreamServers({ policy: loaded.policy, directory: loaded.directory });
 */
export function readUpstreamServers(options: { policy: Policy; directory: string; env?: Readonly<Record<string, string | undefined>> }): UpstreamServerConfig[] {
  const { policy, directory } = options;
  const env = options.env ?? process.env;
  const issues: PathIssue[] = [];
  const servers: UpstreamServerConfig[] = [];
  for (const [name, entry] of Object.entries(policy.document.mcp?.servers ?? {})) {
    const base = ['mcp', 'servers', name];
    const transport = readTransport({ name, entry, directory, base, issues, env });
    const namespace = entry.namespace ?? name;
    if (!NAMESPACE.test(namespace)) {
      issues.push({
        path: entry.namespace === undefined ? base : [...base, 'namespace'],
        atKey: entry.namespace === undefined,
        message: `the namespace ${JSON.stringify(namespace)} cannot prefix tool names`,
        expected: 'letters, digits, "_", "-" or "." (set `namespace:` when the server name has other characters)',
        found: JSON.stringify(namespace),
      });
    }
    const tools = new Map<string, ToolRule>();
    for (const [toolName, toolEntry] of Object.entries(entry.tools ?? {})) {
      const rule = toolRule(toolName, toolEntry, [...base, 'tools', toolName], issues, { policyDirectory: directory });
      if (rule !== undefined) tools.set(toolName, rule);
    }
    const filter = {
      allow: entry.filter?.allow === undefined ? undefined : patterns(entry.filter.allow, [...base, 'filter', 'allow'], issues),
      deny: patterns(entry.filter?.deny ?? [], [...base, 'filter', 'deny'], issues),
    };
    const askWhen = patterns(entry.ask_when ?? [], [...base, 'ask_when'], issues);
    if (transport === undefined) continue;
    const defaultDecision: Decision = entry.default !== undefined ? normalizeDecision(entry.default) : policy.unknownTools.decision === 'block' ? 'block' : 'ask';
    const defaultLabel = entry.default !== undefined ? formatPath([...base, 'default']) : policy.unknownTools.decision === 'block' ? 'unknown_tools.decision' : `${formatPath(base)} (no default: ask)`;
    const fallback = { decision: defaultDecision, label: defaultLabel };
    servers.push({
      name,
      transport,
      identity: serverIdentity(name, entry, transport),
      namespace,
      // A policy that blocks unknown tools blocks unconfigured MCP tools too; otherwise they ask.
      defaultDecision,
      defaultLabel,
      trustAnnotations: entry.trust_annotations ?? false,
      tools,
      askWhen,
      askAlways: entry.ask_always ?? false,
      filter,
      redactKeys: new Set([...policy.redact.keys, ...(entry.redact?.keys ?? []).map((key) => key.toLowerCase())]),
      resources: readAccessPolicy({ document: entry.resources as AccessDocument, field: 'uri', path: [...base, 'resources'], fallback, issues }),
      prompts: readAccessPolicy({ document: entry.prompts as AccessDocument, field: 'name', path: [...base, 'prompts'], fallback, issues }),
      sampling: readAccessPolicy({ document: entry.sampling, field: 'name', path: [...base, 'sampling'], fallback, issues }),
      // The person sees an elicitation and may decline it: ask is allow; only a block (the server's, or its own) keeps it from them.
      elicitation: readAccessPolicy({
        document: entry.elicitation === 'ask' ? 'allow' : entry.elicitation,
        field: 'name',
        path: [...base, 'elicitation'],
        fallback: defaultDecision === 'block' ? fallback : { decision: 'allow', label: `${formatPath(base)}.elicitation (allowed unless the server is blocked)` },
        issues,
      }),
    });
  }
  if (issues.length > 0) {
    throw new PolicyError({ file: policy.source, issues: issues.map((issue): PolicyIssue => ({ ...issue, path: formatPath(issue.path) })) });
  }
  return servers;
}

type ServerEntry = NonNullable<NonNullable<Policy['document']['mcp']>['servers']>[string];

function readTransport(options: {
  name: string;
  entry: ServerEntry;
  directory: string;
  base: (string | number)[];
  issues: PathIssue[];
  env: Readonly<Record<string, string | undefined>>;
}): UpstreamTransportConfig | undefined {
  const { entry, directory, base, issues } = options;
  const resolve = (text: string, at: (string | number)[]): string => {
    const resolved = interpolateEnv(text, options.env);
    if ('value' in resolved) return resolved.value;
    issues.push({ path: at, message: resolved.problem, expected: resolved.expected });
    return text;
  };
  const resolveRecord = (record: Readonly<Record<string, string>> | undefined, key: string): Record<string, string> =>
    Object.fromEntries(Object.entries(record ?? {}).map(([name, value]) => [name, resolve(value, [...base, key, name])]));
  if ((entry.command === undefined) === (entry.url === undefined)) {
    issues.push({
      path: base,
      atKey: true,
      message: entry.command === undefined ? 'the server has neither `command` nor `url`' : 'the server has both `command` and `url`',
      expected: 'exactly one: `command` (with optional args, env, cwd) for a local server, or `url` (with optional headers) for a remote one',
    });
    return undefined;
  }
  if (entry.url !== undefined) {
    const stdioOnly = (['args', 'env', 'env_from', 'cwd'] as const).filter((key) => entry[key] !== undefined);
    if (stdioOnly.length > 0) {
      issues.push({ path: [...base, stdioOnly[0]!], atKey: true, message: `\`${stdioOnly[0]}\` applies only to servers started with \`command\``, expected: 'no args, env, env_from or cwd with url' });
    }
    let url: URL;
    try {
      url = new URL(entry.url);
    } catch {
      issues.push({ path: [...base, 'url'], message: 'not a URL', expected: 'an http:// or https:// URL', found: JSON.stringify(entry.url) });
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      issues.push({ path: [...base, 'url'], message: 'only Streamable HTTP servers are supported', expected: 'an http:// or https:// URL', found: JSON.stringify(entry.url) });
      return undefined;
    }
    return { kind: 'http', url, headers: resolveRecord(entry.headers, 'headers') };
  }
  if (entry.headers !== undefined) {
    issues.push({ path: [...base, 'headers'], atKey: true, message: '`headers` applies only to servers reached by `url`', expected: 'no headers with command' });
  }
  const command = entry.command!;
  if (command.trim() === '') {
    issues.push({ path: [...base, 'command'], message: 'the command is empty', expected: 'a program name or path' });
    return undefined;
  }
  const cwd = path.resolve(directory, entry.cwd ?? '.');
  // A bare name is looked up on PATH; a relative path is relative to the policy, like every other path in it.
  const resolvedCommand = command.includes('/') && !path.isAbsolute(command) ? path.resolve(directory, command) : command;
  const passed: Record<string, string> = {};
  (entry.env_from ?? []).forEach((variable, index) => {
    const at = [...base, 'env_from', index];
    if (!ENV_NAME.test(variable)) issues.push({ path: at, message: `${JSON.stringify(variable)} is not a variable name`, expected: 'letters, digits and _, not starting with a digit' });
    else if (options.env[variable] === undefined) issues.push({ path: at, message: `${variable} is not set in the environment toolgate runs in`, expected: `set ${variable} before starting toolgate, or remove it from env_from` });
    else passed[variable] = options.env[variable]!;
  });
  const args = (entry.args ?? []).map((arg, index) => resolve(arg, [...base, 'args', index]));
  // env wins over env_from for a variable named in both: it is the more specific.
  return { kind: 'stdio', command: resolvedCommand, args, env: { ...passed, ...resolveRecord(entry.env, 'env') }, cwd };
}

/**
 * How the server is started as written in the policy (not resolved, so
 * moving the policy directory keeps approvals), and what its arguments,
 * environment and headers resolve to (hashed with the rest, never stored):
 * a rotated token or another endpoint in a variable is another server.
 */
function serverIdentity(name: string, entry: ServerEntry, transport: UpstreamTransportConfig): string {
  const spec = entry.url !== undefined ? ['url', name, entry.url] : ['command', name, entry.command ?? '', entry.args ?? [], entry.cwd ?? null];
  const resolved = transport.kind === 'http' ? [sorted(transport.headers)] : [transport.args, sorted(transport.env)];
  return createHash('sha256').update(JSON.stringify([...spec, ...resolved])).digest('hex').slice(0, 16);
}

function sorted(record: Readonly<Record<string, string>>): Array<[string, string]> {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

import { createHash } from 'node:crypto';
import path from 'node:path';
import { PolicyError, type PolicyIssue } from '../core/errors/policy-error.ts';
import { formatPath, normalizeDecision, patterns, toolRule, type PathIssue } from '../core/policy/normalize-policy.ts';
import type { LabelledPattern, Policy, ToolRule } from '../core/policy/policy.ts';
import type { Decision } from '../core/types.ts';

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
   * as written, or url): approvals are bound to it, so pointing the same name
   * at another program forgets them.
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
  /** Matched against the tool's name on the server. */
  filter: { allow: readonly LabelledPattern[] | undefined; deny: readonly LabelledPattern[] };
  /** The policy's `redact.keys` and the server's own, lowercased. */
  redactKeys: ReadonlySet<string>;
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
export function readUpstreamServers(options: { policy: Policy; directory: string }): UpstreamServerConfig[] {
  const { policy, directory } = options;
  const issues: PathIssue[] = [];
  const servers: UpstreamServerConfig[] = [];
  for (const [name, entry] of Object.entries(policy.document.mcp?.servers ?? {})) {
    const base = ['mcp', 'servers', name];
    const transport = readTransport({ name, entry, directory, base, issues });
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
    if (transport === undefined) continue;
    servers.push({
      name,
      transport,
      identity: serverIdentity(name, entry),
      namespace,
      // A policy that blocks unknown tools blocks unconfigured MCP tools too; otherwise they ask.
      defaultDecision: entry.default !== undefined ? normalizeDecision(entry.default) : policy.unknownTools.decision === 'block' ? 'block' : 'ask',
      defaultLabel: entry.default !== undefined ? formatPath([...base, 'default']) : policy.unknownTools.decision === 'block' ? 'unknown_tools.decision' : `${formatPath(base)} (no default: ask)`,
      trustAnnotations: entry.trust_annotations ?? false,
      tools,
      filter,
      redactKeys: new Set([...policy.redact.keys, ...(entry.redact?.keys ?? []).map((key) => key.toLowerCase())]),
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
}): UpstreamTransportConfig | undefined {
  const { entry, directory, base, issues } = options;
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
    const stdioOnly = (['args', 'env', 'cwd'] as const).filter((key) => entry[key] !== undefined);
    if (stdioOnly.length > 0) {
      issues.push({ path: [...base, stdioOnly[0]!], atKey: true, message: `\`${stdioOnly[0]}\` applies only to servers started with \`command\``, expected: 'no args, env or cwd with url' });
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
    return { kind: 'http', url, headers: { ...(entry.headers ?? {}) } };
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
  return { kind: 'stdio', command: resolvedCommand, args: [...(entry.args ?? [])], env: { ...(entry.env ?? {}) }, cwd };
}

/** As written in the policy (not resolved), so moving the policy directory keeps approvals. */
function serverIdentity(name: string, entry: ServerEntry): string {
  const spec = entry.url !== undefined ? ['url', name, entry.url] : ['command', name, entry.command ?? '', entry.args ?? [], entry.cwd ?? null];
  return createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16);
}

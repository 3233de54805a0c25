import type { PolicySection } from '../core/evaluate-call.ts';
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import type { ToolDeclaration } from '../core/tool-declaration.ts';
import { NAMESPACE_SEPARATOR } from './assign-client-names.ts';
import { createMcpServerSection, type McpToolEntry } from './mcp-tool-declaration.ts';
import { toolIdentity } from './tool-definition.ts';
import { readUpstreamServers, type UpstreamServerConfig } from './upstream-server-config.ts';

/** A call the simulator judges as an MCP server's tool. */
export interface SimulatedMcpTool {
  declaration: ToolDeclaration;
  entry: McpToolEntry;
  /** What the simulation could not know, for the output's note. */
  note: string;
}

/**
 * The MCP gateway's judgement for `toolgate check` and replay, without
 * starting any server: the servers' section of the policy (the very code the
 * gateway's gate runs) and declarations for the tools a call names.
 *
 * A tool is an MCP tool when the call names its server (`--server`, or the
 * `server` of an audit line), or when its name is a server's public
 * namespaced name (`files__write_file`). Its definition is not known here (no
 * server is started): the description, annotations and definition hash a
 * gateway would see are missing, so `trust_annotations` and keywords in a
 * description do not speak, and the identity of "always" approvals is the
 * audit line's when it gives one. Variables of `${VAR}` that are not set here
 * resolve to nothing (the gateway would refuse to start): then the server's
 * identity is not the gateway's, which the note says.
 *
 * @example
 * const mcp = createMcpSimulation({ loaded, env: process.env });
 * const gate = createRuntimeGate({ loaded, sections: [mcp.section], simulate: true });
 * const tool = mcp.resolve({ tool: 'write_file', server: 'files' }); // { declaration, entry, note } or { error }
 */
export function createMcpSimulation(options: { loaded: LoadedPolicy; env: Readonly<Record<string, string | undefined>> }): {
  section: PolicySection;
  servers: readonly UpstreamServerConfig[];
  resolve(call: { tool: string; server?: string | undefined; identity?: string | undefined }): SimulatedMcpTool | { error: string } | undefined;
} {
  const { loaded } = options;
  const unset = new Set<string>();
  const env = new Proxy(options.env, {
    get(target, name) {
      const value = Reflect.get(target, name) as string | undefined;
      if (value !== undefined || typeof name !== 'string') return value;
      unset.add(name);
      return '';
    },
  });
  const servers = readUpstreamServers({ policy: loaded.policy, directory: loaded.directory, env });
  const section = createMcpServerSection({ policy: loaded.policy, changeNote: () => undefined });

  function resolve(call: { tool: string; server?: string | undefined; identity?: string | undefined }): SimulatedMcpTool | { error: string } | undefined {
    let server: UpstreamServerConfig | undefined;
    let upstreamName = call.tool;
    if (call.server !== undefined) {
      server = servers.find((candidate) => candidate.name === call.server);
      if (server === undefined) {
        const names = servers.map((candidate) => candidate.name);
        return { error: `the policy has no MCP server ${JSON.stringify(call.server)} (${names.length === 0 ? 'it names none under mcp.servers' : `its servers: ${names.join(', ')}`})` };
      }
      const prefix = `${server.namespace}${NAMESPACE_SEPARATOR}`;
      // The public name of a namespaced tool is accepted too: `--server files --tool files__write_file`.
      if (call.tool.startsWith(prefix) && call.tool.length > prefix.length) upstreamName = call.tool.slice(prefix.length);
    } else {
      for (const candidate of servers) {
        const prefix = `${candidate.namespace}${NAMESPACE_SEPARATOR}`;
        if (call.tool.startsWith(prefix) && call.tool.length > prefix.length) {
          server = candidate;
          upstreamName = call.tool.slice(prefix.length);
          break;
        }
      }
      if (server === undefined) return undefined;
    }
    const known = call.identity !== undefined && call.identity.startsWith(`mcp:${server.name}:${server.identity}:`);
    const definitionHash = known ? call.identity!.slice(`mcp:${server.name}:${server.identity}:`.length) : 'sha256:unknown (the server was not started)';
    const entry: McpToolEntry = {
      clientName: call.tool,
      server,
      tool: { name: upstreamName, inputSchema: { type: 'object' } },
      definitionHash,
      identity: toolIdentity({ server: server.name, serverIdentity: server.identity, definitionHash }),
    };
    const notes = [
      `judged as ${JSON.stringify(upstreamName)} of MCP server ${JSON.stringify(server.name)} by mcp.servers.${server.name}, as \`toolgate mcp\` would, without starting the server: its description and annotations are not known here (trust_annotations and keywords in a description do not speak)`,
    ];
    if (!known) notes.push('"always" approvals, bound to the tool\'s definition, are not consulted');
    const missing = [...unset].sort();
    if (missing.length > 0) notes.push(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set here: a server that uses ${missing.length === 1 ? 'it' : 'them'} has another identity than under the gateway`);
    return { declaration: section.declare(entry), entry, note: notes.join('; ') };
  }

  return { section: section.section, servers, resolve };
}

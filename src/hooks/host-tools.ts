/**
 * Declarations for the host tools toolgate has no built-in tool for: a web
 * fetch or search (judged by the network rules of the policy, `shell.network`,
 * as the shell's network commands are) and the tools that act only inside
 * the agent (plans, to-do lists, sub-agents). The policy's `tools:` rules
 * name them like any other tool (`web_fetch`, `web_search`,
 * `agent_internal`) and win over what they declare.
 */
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import { blockCall, type ToolDeclaration } from '../core/tool-declaration.ts';
import { AGENT_INTERNAL_TOOL, HOST_PATCH_TOOL, HOST_REWRITTEN_TOOL, HOST_SANDBOX_TOOL, HOST_SEARCH_TOOL, HOST_SHELL_TOOL, HOST_SKILL_TOOL, WEB_FETCH_TOOL, WEB_SEARCH_TOOL } from './host-call.ts';

/**
 * @example
 * const gate = createRuntimeGate({ loaded, tools: [...builtins, ...hostTools(loaded)] });
 */
export function hostTools(loaded: LoadedPolicy): ToolDeclaration[] {
  const network = loaded.policy.document.shell?.network;
  const domains = typeof network === 'object' && network !== null ? network.allow_domains.map((domain) => domain.trim().toLowerCase()).filter((domain) => domain !== '') : undefined;
  const off = 'the network is off in this policy (shell.network)';
  return [
    {
      name: WEB_FETCH_TOOL,
      description: 'Fetch a web page (an agent host tool)',
      checkApproval(call) {
        // One URL (Claude Code's WebFetch), or every URL of one call (Gemini CLI's web_fetch takes up to 20): each judged; any
        // blocked blocks the call, and a person asked sees them all.
        const args = call.args as { url?: unknown; urls?: unknown };
        const urls = Array.isArray(args.urls) ? args.urls : [args.url];
        if (urls.length === 0) return blockCall('no URL to fetch');
        const fetched: string[] = [];
        for (const url of urls) {
          let parsed: URL;
          try {
            parsed = new URL(String(url));
          } catch {
            return blockCall(`the URL ${JSON.stringify(url)} is not a URL`);
          }
          if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return blockCall(`${parsed.protocol} URLs are not fetched; only http and https`);
          if (network !== true && domains === undefined) return blockCall(off);
          const host = parsed.hostname.toLowerCase();
          if (domains !== undefined && !domains.some((pattern) => pattern === host || (pattern.startsWith('*.') && host.endsWith(pattern.slice(1))))) {
            return blockCall(`${host} is not in the policy's allowed domains (shell.network.allow_domains: ${domains.join(', ')})`);
          }
          fetched.push(parsed.href);
        }
        if (domains !== undefined) return null;
        // The whole network is open: a fetch can still carry data out in its URL, so a person sees it.
        return { tool: WEB_FETCH_TOOL, description: `Fetch ${fetched.join(', ')}`, payload: fetched.length === 1 ? { url: fetched[0] } : { urls: fetched } };
      },
    },
    {
      name: WEB_SEARCH_TOOL,
      description: 'Search the web (an agent host tool)',
      checkApproval(call) {
        if (network !== true) return blockCall(network === undefined || network === false ? off : 'a search reaches any site, and the policy allows only some domains (shell.network.allow_domains)');
        const query = (call.args as { query?: unknown }).query;
        return { tool: WEB_SEARCH_TOOL, description: `Search the web for ${JSON.stringify(String(query))}`, payload: { query: String(query) } };
      },
    },
    {
      name: HOST_SHELL_TOOL,
      description: 'A command the agent host runs with a shell that reads it otherwise than bash does, or that starts a program the model can type into unseen',
      checkApproval(call) {
        const { command, shell, why } = call.args as { command: string; shell: string; why: string };
        return { tool: HOST_SHELL_TOOL, description: `Run with ${shell}: ${command} — ${why}`, payload: { command, shell } };
      },
    },
    {
      name: HOST_SANDBOX_TOOL,
      description: "A shell command of an agent host's that sandbox.hosts: wrap cannot run inside toolgate's OS sandbox",
      // Blocked: the policy wants every host command confined, and this one would not be (sandbox.fallback).
      checkApproval: (call) => blockCall(String((call.args as { why?: unknown }).why)),
    },
    {
      name: HOST_SEARCH_TOOL,
      description: "A host's search through every file below a folder that holds a file a zone hides",
      checkApproval(call) {
        const { path, pattern, why } = call.args as { path: string; pattern?: unknown; why: string };
        return { tool: HOST_SEARCH_TOOL, description: `Search ${path}${typeof pattern === 'string' ? ` for ${JSON.stringify(pattern)}` : ''} — ${why}`, payload: { path, pattern } };
      },
    },
    {
      name: HOST_SKILL_TOOL,
      description: 'A Claude Code skill or custom slash command, with the inline commands it runs before the model sees it',
      // Its arguments are toolgate's reading of the skill (decide-host-call.ts), not the model's: what it runs, and what the shell analysis made of it.
      checkApproval(call) {
        const { skill, problem, blocked, files, commands, asks } = call.args as { skill: string; problem?: string; blocked?: string; files?: string[]; commands?: string[]; asks?: string[] };
        if (problem !== undefined) return blockCall(`${problem}; the skill is blocked`);
        if (blocked !== undefined) return blockCall(`the skill ${skill} runs, before the model sees it, ${blocked}`);
        if (asks === undefined || asks.length === 0) return null;
        const shown = (commands ?? []).map((command) => `\`${command}\``).join('; ');
        return {
          tool: HOST_SKILL_TOOL,
          description: `Run the skill ${skill} (${(files ?? []).join(', ')}), which runs before the model sees it: ${shown} — ${asks.join('; ')}`,
          payload: { skill, files, commands },
        };
      },
    },
    {
      name: HOST_PATCH_TOOL,
      description: "Codex's apply_patch: files added, updated, deleted or moved, each judged as the fs change it is",
      // Its arguments are toolgate's reading of the patch (decide-host-call.ts): each file's change judged under the zones.
      checkApproval(call) {
        const { files, patch, problem, blocked, asks } = call.args as { files?: string; patch?: string; problem?: string; blocked?: string; asks?: string[] };
        if (problem !== undefined) return blockCall(`${problem}; the patch is blocked`);
        if (blocked !== undefined) return blockCall(`the patch ${blocked}`);
        if (asks === undefined || asks.length === 0) return null;
        return { tool: HOST_PATCH_TOOL, description: `Apply a patch (${files ?? ''}): ${asks.join('; ')}`, payload: { files, patch } };
      },
    },
    {
      name: HOST_REWRITTEN_TOOL,
      description: "A call that another hook of the host's, from the repository's own settings, can change after toolgate judged it",
      // Blocked, not asked: a person approving it would approve what toolgate saw, and the host would run what the other hook made of it.
      checkApproval(call) {
        const { tool, found, host } = call.args as { tool: string; found: Array<{ file: string; hooks: string[] }>; host: string };
        if (host === 'opencode') {
          const where = found.map((entry) => `${entry.file} (${entry.hooks.join('; ')})`).join(', ');
          return blockCall(
            `the repository's own opencode configuration runs code inside opencode: ${where}. Such code can run commands of its own and replace or change ${tool} after toolgate judged it; ` +
              'start opencode with OPENCODE_DISABLE_PROJECT_CONFIG=1 (your own configuration still applies), or remove it from the repository',
          );
        }
        const event = host === 'gemini' ? 'BeforeTool' : 'PreToolUse';
        const own = host === 'gemini' ? '~/.gemini/settings.json' : host === 'codex' ? '$CODEX_HOME/hooks.json' : '~/.claude/settings.json';
        const where = found.map((entry) => `${entry.file} (${entry.hooks.join('; ')})`).join(', ');
        return blockCall(
          `the repository's own settings add a ${event} hook for ${tool}: ${where}. Such a hook can change the call after toolgate judged it, and the host would run what it made of it; ` +
            `remove it from the repository's settings (or, if you trust it, move it to your own ${own})`,
        );
      },
    },
    // Plans, to-do lists, sub-agents (whose own calls come through the hook too): nothing leaves the agent.
    { name: AGENT_INTERNAL_TOOL, description: "The agent host's own bookkeeping tools (plans, to-do lists, sub-agents)", checkApproval: () => null },
  ];
}

/**
 * The sandbox contract against the policy layer: the shell tool's decision
 * through the gate, in approve_all mode (an ask counts as approved; a block
 * is never overridden), with no OS sandbox behind it. Then the same contract
 * against both layers together, the way toolgate runs shell commands when a
 * sandbox is available.
 */
import { createGate } from '../src/core/gate.ts';
import { wrapWithBwrap } from '../src/sandbox/bwrap-sandbox.ts';
import { createShellTool, type ShellSandbox } from '../src/tools/shell/create-shell-tool.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { registerSandboxContract, type ContractRunResult, type SandboxContractExecutor } from './sandbox-contract.ts';

function gatedShell(options: { sandboxed: boolean }): SandboxContractExecutor {
  let calls = 0;
  return {
    async run({ fixture, command, cwd }): Promise<ContractRunResult> {
      const sandbox: ShellSandbox | undefined = options.sandboxed ? { wrap: (input) => wrapWithBwrap(input) } : undefined;
      const shell = createShellTool({ policy: fixture.policy, zones: fixture.zones, cwd: fixture.root, ...(sandbox === undefined ? {} : { sandbox }) });
      const gate = createGate({ policy: fixture.policy, tools: [shell], mode: 'approve_all' });
      calls += 1;
      const authorization = await gate.authorize({ tool: 'shell', args: { command, cwd }, callId: `contract-${calls}` }, { sessionId: 'sandbox-contract' });
      if (authorization.decision !== 'allow' && authorization.decision !== 'approved') {
        return { stoppedBeforeRunning: true, exitCode: null, stdout: '', stderr: `${authorization.decision}: ${authorization.reason}` };
      }
      try {
        // Passed on as the AI SDK adapter does, so the sandbox gives the call what its decision grants.
        const result = await shell.execute(authorization.args as { command: string; cwd?: string }, { authorization: { decision: authorization.decision } });
        return { stoppedBeforeRunning: false, exitCode: result.exit_code, stdout: result.stdout, stderr: result.stderr };
      } catch (error) {
        return { stoppedBeforeRunning: true, exitCode: null, stdout: '', stderr: String(error) };
      }
    },
  };
}

// The policy layer keeps the whole contract on its own: the shell tool judges every path argument, the
// files redirections read and write, and network commands against the sandbox profile derived from the
// same policy (never weaker than the sandbox). No known gaps, so none are registered.
registerSandboxContract({
  layer: 'policy layer (shell tool through the gate, approve_all)',
  executor: gatedShell({ sandboxed: false }),
});

registerSandboxContract({ layer: 'policy layer and bwrap sandbox together', executor: gatedShell({ sandboxed: true }), before: requireWorkingBwrap });

/**
 * The sandbox contract against the policy layer: the shell tool's decision
 * through the gate, in approve_all mode (an ask counts as approved; a block
 * is never overridden), with no OS sandbox behind it. Then the same contract
 * against both layers together, the way toolgate runs shell commands when a
 * sandbox is available.
 */
import { createGate } from '../src/core/gate.ts';
import { createBwrapWrapper } from '../src/sandbox/bwrap-sandbox.ts';
import { sandboxProfileFromPolicy } from '../src/sandbox/sandbox-profile-from-policy.ts';
import { createShellTool } from '../src/tools/shell/create-shell-tool.ts';
import type { WrapCommand } from '../src/tools/shell/run-shell-command.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { registerSandboxContract, type ContractRunResult, type SandboxContractExecutor } from './sandbox-contract.ts';
import type { SandboxFixture } from './sandbox-fixture.ts';

function gatedShell(options: { sandboxed: boolean }): SandboxContractExecutor {
  let calls = 0;
  return {
    async run({ fixture, command, cwd }): Promise<ContractRunResult> {
      const wrapCommand: WrapCommand | undefined = options.sandboxed ? createBwrapWrapper({ profile: profileOf(fixture) }) : undefined;
      const shell = createShellTool({ policy: fixture.policy, zones: fixture.zones, cwd: fixture.root, ...(wrapCommand === undefined ? {} : { wrapCommand }) });
      const gate = createGate({ policy: fixture.policy, tools: [shell], mode: 'approve_all' });
      calls += 1;
      const authorization = await gate.authorize({ tool: 'shell', args: { command, cwd }, callId: `contract-${calls}` }, { sessionId: 'sandbox-contract' });
      if (authorization.decision !== 'allow' && authorization.decision !== 'approved') {
        return { stoppedBeforeRunning: true, exitCode: null, stdout: '', stderr: `${authorization.decision}: ${authorization.reason}` };
      }
      try {
        const result = await shell.execute(authorization.args as { command: string; cwd?: string });
        return { stoppedBeforeRunning: false, exitCode: result.exit_code, stdout: result.stdout, stderr: result.stderr };
      } catch (error) {
        return { stoppedBeforeRunning: true, exitCode: null, stdout: '', stderr: String(error) };
      }
    },
  };
}

function profileOf(fixture: SandboxFixture) {
  return sandboxProfileFromPolicy({ policy: fixture.policy, policyFile: fixture.policyFile, zones: fixture.zones });
}

// The policy layer keeps the whole contract on its own: the shell tool judges every path argument, the
// files redirections read and write, and network commands against the sandbox profile derived from the
// same policy (never weaker than the sandbox). No known gaps, so none are registered.
registerSandboxContract({
  layer: 'policy layer (shell tool through the gate, approve_all)',
  executor: gatedShell({ sandboxed: false }),
});

registerSandboxContract({ layer: 'policy layer and bwrap sandbox together', executor: gatedShell({ sandboxed: true }), before: requireWorkingBwrap });

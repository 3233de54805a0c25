/**
 * The sandbox contract against the OS sandbox alone: commands go straight
 * through `wrapWithBwrap` and `child_process.spawn`, with no gate and no
 * shell-tool checks in front, so only bubblewrap stands between them and the
 * host.
 */
import { wrapWithBwrap } from '../src/sandbox/bwrap-sandbox.ts';
import { runCommand } from '../src/sandbox/run-command.ts';
import { sandboxProfileFromPolicy } from '../src/tools/shell/sandbox-profile-from-policy.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { registerSandboxContract } from './sandbox-contract.ts';

registerSandboxContract({
  layer: 'bwrap sandbox, policy bypassed',
  before: requireWorkingBwrap,
  executor: {
    async run({ fixture, command, cwd }) {
      const profile = sandboxProfileFromPolicy({ policy: fixture.policy, policyFile: fixture.policyFile, zones: fixture.zones });
      const wrapped = wrapWithBwrap({ profile, command: '/bin/sh', args: ['-c', command], cwd });
      const result = await runCommand({ ...wrapped, timeoutMs: 20_000 });
      return { stoppedBeforeRunning: false, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    },
  },
});

import type { PolicyOrigin } from '../config/policy-discovery.ts';
import { BWRAP_INSTALL_HINT, type SandboxDetection } from '../sandbox/detect-sandbox.ts';
import type { SandboxDecision } from '../sandbox/sandbox-policy.ts';

/**
 * What `toolgate run` says, once, when shell commands will not run in an OS
 * sandbox: why there is none, what that means for this run, how to get one
 * (install bubblewrap), and which line in which file changes the policy's
 * choice. Undefined when commands are sandboxed.
 *
 * @example
 * const notice = describeMissingSandbox({ decision: builtins.sandbox, detection, policyFile: loaded.path, origin });
 * if (notice !== undefined) io.stderr.write(notice);
 */
export function describeMissingSandbox(options: { decision: SandboxDecision; detection: SandboxDetection; policyFile: string; origin: PolicyOrigin }): string | undefined {
  const { decision, detection, policyFile } = options;
  if (decision.mode === 'sandboxed') return undefined;
  const fix = detection.details.fix ?? (detection.details.platform === 'linux' ? BWRAP_INSTALL_HINT : undefined);
  // The detection's reason may end with the same advice: say it once.
  const why = detection.available ? undefined : (detection.reason ?? 'no OS sandbox is available').replace(fix === undefined ? /$^/ : `: ${fix}`, '').replace(fix === undefined ? /$^/ : `; ${fix}`, '');
  // The built-in policy has no file to edit: `toolgate init` writes one.
  const where = options.origin === 'built-in' ? `run \`toolgate init\` to write ${policyFile}, then` : `in ${policyFile},`;
  const lines: string[] = [];
  if (decision.mode === 'refuse-tools') {
    const setting = decision.requirement.defaulted.os ? `${policyFile} has no sandbox line, which means sandbox.os: required` : `${policyFile} says sandbox.os: required`;
    lines.push(
      `no OS sandbox: ${why}.`,
      `  The file and shell tools are refused for this run (the agent cannot read, write or run anything): ${setting}.`,
      ...(fix === undefined ? [] : [`  To get a sandbox: ${fix}.`]),
      `  To run them without one instead, ${decision.requirement.defaulted.os ? 'add this line' : 'change the sandbox line'} in ${policyFile}:  sandbox: { os: preferred }`,
    );
  } else if (decision.requirement.os === 'off') {
    lines.push(
      `no OS sandbox: sandbox.os is off in ${policyFile}.`,
      '  Shell commands that run (allowed by a rule, or approved) are not confined: they can read and write whatever you can, and reach the network.',
      `  To confine them, ${where} change the sandbox line to:  sandbox: { os: required }`,
    );
  } else {
    lines.push(
      `no OS sandbox: ${why}.`,
      '  The file tools work as usual (the policy keeps them in their zones), but the shell commands that run (allowed by a rule, or',
      '  approved by you) are not confined: they can read and write whatever you can, and reach the network.',
      ...(fix === undefined ? [] : [`  To confine them: ${fix}.`]),
      `  To refuse the shell and file tools without a sandbox instead, ${where} set:  sandbox: { os: required, fallback: refuse_tools }`,
    );
  }
  return `toolgate: ${lines.join('\n')}\n`;
}

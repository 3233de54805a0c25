/**
 * ssh's family: ssh (and slogin, its old name), and sftp, clients whose
 * whole purpose is talking to other machines. The options they share with
 * scp: `-F` and `-I` read a configuration or a provider that can run
 * programs, and `-o` values that name a program to run (ProxyCommand,
 * LocalCommand, Match exec...); sftp and scp also run a program as their
 * transport (`-S`, `-D`). What ssh changes lives on the remote host. scp's
 * model (remote-copy.ts) reads the shared options from here.
 */
import { hazardAt, type Hazard } from '../hazard.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, type CommandModel, type OptionHazards } from './command-model.ts';

/** `-F FILE` and `-I PROVIDER`. */
export const SSH_CONFIG = exec('reads a configuration or provider that can run programs', { short: 'FI' });

/** scp's and sftp's options. */
export const SCP_OPTIONS: OptionHazards = { rules: [SSH_CONFIG, exec('runs a program as the transport', { short: 'SD' })], custom: (words) => sshOptionHazards(words) };

export const ssh = sshModel('ssh');

/** ssh under its old name. */
export const slogin = sshModel('slogin');

/** What it changes lives on the remote host, like scp's writes there: no "approve always" scope covers `sftp host`, whose commands come from its input. */
export const sftp: CommandModel = {
  names: ['sftp'],
  connects: () => 'sftp uses the network',
  remoteState: true,
  options: SCP_OPTIONS,
};

/** One model per name, so that each says it uses the network under its own name. */
function sshModel(name: string): CommandModel {
  return { names: [name], connects: () => `${name} uses the network`, remoteState: true, options: { rules: [SSH_CONFIG], custom: sshOptionHazards } };
}

/**
 * `-o` values naming ssh options that run programs (ProxyCommand, LocalCommand, providers, Match exec).
 *
 * @example
 * sshOptionHazards([ssh, -o, ProxyCommand=sh, host]) // [{ index: 1, kind: 'exec', ... }]
 */
export function sshOptionHazards(words: readonly ShellWord[]): Hazard[] {
  const hazards: Hazard[] = [];
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (value === '--') break;
    if (!value.startsWith('-') || value.startsWith('--') || !value.slice(1).includes('o')) continue;
    const attached = value.slice(value.indexOf('o') + 1);
    const option = attached !== '' ? attached : words[index + 1]?.value ?? '';
    if (/command|provider|match|include|proxyuse/i.test(option) || words[index + 1]?.kind === 'dynamic') {
      hazards.push(hazardAt({ index, kind: 'exec', reason: `${words[0]!.value} -o ${option}: this ssh option runs a program` }));
    }
  }
  return hazards;
}

import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../analyze-command.ts';
import { commandScopeOf } from '../command-always-scope.ts';
import { networkUse } from '../network-commands.ts';
import { optionHazards } from '../option-hazards.ts';
import { commandModel } from './command-models.ts';

const words = (line: string) => analyzeCommand(line).commands[0]!.words;
const hazards = (line: string) => optionHazards({ name: words(line)[0]!.value, words: words(line) }).map((hazard) => `${hazard.kind} ${hazard.index}`);

describe("ssh's family", () => {
  it.each(['ssh', 'slogin', 'sftp'])('%s uses the network, and runs what -F, -I and -o ProxyCommand name', (name) => {
    expect(commandModel(name)?.names).toEqual([name]);
    expect(networkUse({ name, words: words(`${name} host`) })).toBe(`${name} uses the network`);
    expect(hazards(`${name} -F conf host`)).toEqual(['exec 1']);
    expect(hazards(`${name} -o ProxyCommand=sh host`)).toEqual(['exec 1']);
    expect(hazards(`${name} -oLocalCommand=id host`)).toEqual(['exec 1']);
    expect(hazards(`${name} -o Port=22 host`)).toEqual([]);
  });

  it('sftp, like scp, runs a program as its transport with -S or -D; ssh takes -S as a control socket', () => {
    expect(hazards('sftp -S ./transport host')).toEqual(['exec 1']);
    expect(hazards('sftp -D ./server host')).toEqual(['exec 1']);
    expect(hazards('ssh -S ./socket host')).toEqual([]);
  });

  it('ssh, slogin and sftp change state on the remote host: no command scope is offered for them', () => {
    expect(commandScopeOf({ analysis: analyzeCommand('ssh host uptime'), zone: 'workspace' })).toBeUndefined();
    expect(commandScopeOf({ analysis: analyzeCommand('slogin host uptime'), zone: 'workspace' })).toBeUndefined();
    expect(commandScopeOf({ analysis: analyzeCommand('sftp -b batch.txt host'), zone: 'workspace' })).toBeUndefined();
    // A local command's scope is still offered: the refusal is the model's, not every command's.
    expect(commandScopeOf({ analysis: analyzeCommand('git log -n 3'), zone: 'workspace' })).toBeDefined();
  });
});

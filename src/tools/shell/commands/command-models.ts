/**
 * Every command toolgate models in a module of its own, by each name it
 * runs under. Adding a command is one module (`commands/NAME.ts`) and one
 * line here.
 */
import { awk } from './awk.ts';
import type { CommandModel } from './command-model.ts';
import { COMPRESSORS } from './compressors.ts';
import { cp, install, ln, mv } from './copy.ts';
import { curl } from './curl.ts';
import { fd } from './fd.ts';
import { find } from './find.ts';
import { grep } from './grep.ts';
import { jq } from './jq.ts';
import { man } from './man.ts';
import { npm } from './npm.ts';
import { PAGERS } from './pagers.ts';
import { rsync, scp } from './remote-copy.ts';
import { rg } from './rg.ts';
import { rm, rmdir, unlink } from './rm.ts';
import { sed } from './sed.ts';
import { sftp, slogin, ssh } from './ssh.ts';
import { tar } from './tar.ts';
import { wget } from './wget.ts';
import { unzip, zip } from './zip.ts';

const MODELS: readonly CommandModel[] = [...COMPRESSORS, ...PAGERS, awk, cp, curl, fd, find, grep, install, jq, ln, man, mv, npm, rg, rm, rmdir, rsync, scp, sed, sftp, slogin, ssh, tar, unlink, unzip, wget, zip];

const BY_NAME: ReadonlyMap<string, CommandModel> = byName(MODELS);

/** The models by each name they run under; a name claimed twice is a mistake in the models, found at load. */
export function byName(models: readonly CommandModel[]): ReadonlyMap<string, CommandModel> {
  const map = new Map<string, CommandModel>();
  for (const model of models) {
    for (const name of model.names) {
      if (map.has(name)) throw new Error(`two command models claim the name ${JSON.stringify(name)}: ${map.get(name)!.names[0]} and ${model.names[0]}`);
      map.set(name, model);
    }
  }
  return map;
}

/**
 * Every model, for the engines that list what the models declare (the known readers).
 *
 * @example
 * commandModels().some((model) => model.names.includes('tar')) // true
 */
export function commandModels(): readonly CommandModel[] {
  return MODELS;
}

/**
 * The model of the command a program name runs, if toolgate has one (none
 * for a name only known at run time).
 *
 * @example
 * commandModel('gtar')?.names[0] // 'tar'
 */
export function commandModel(name: string | undefined): CommandModel | undefined {
  return name === undefined ? undefined : BY_NAME.get(name);
}

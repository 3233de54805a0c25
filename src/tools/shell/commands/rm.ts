/**
 * rm, rmdir and unlink: each deletes the operands it names (unknown
 * options read the generic way), which changes the layout there for a
 * later command of the line. rm's grammar (its options, short and long)
 * lets a rule on `rm -r` match `rm --recursive` and `rm -rf`.
 */
import { operandTargets } from '../path-argument.ts';
import type { CommandModel } from './command-model.ts';
import { level, options, program } from './grammar.ts';

export const rm: CommandModel = {
  names: ['rm'],
  grammar: program(
    level({
      options: options({
        flags: '-f --force -i -I --interactive -r -R --recursive -d --dir -v --verbose --one-file-system --no-preserve-root --preserve-root --help --version',
        synonyms: '-f=--force -r=--recursive -d=--dir -v=--verbose',
      }),
    }),
  ),
  paths: operandTargets({ grammar: { longOptional: ['interactive', 'preserve-root'] }, use: 'delete' }),
  entries: 'moves',
};

export const rmdir: CommandModel = { names: ['rmdir'], paths: operandTargets({ grammar: {}, use: 'delete' }), entries: 'moves' };

export const unlink: CommandModel = { names: ['unlink'], paths: operandTargets({ grammar: {}, use: 'delete' }), entries: 'moves' };

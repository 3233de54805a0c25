/**
 * The compressors (gzip, bzip2, xz, lzma, zstd, lz4, compress, pigz, and
 * the un- names that decompress): each file is written (its compressed or
 * decompressed form lands beside it) unless the output goes to stdout, and
 * most then delete it; xz and lzma `--files=list` work on the files a list
 * names. Deleting and making files beside the ones named changes the layout
 * there for a later command of the line.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { pathUses, unknownOptionReads, type PathArgument, type PathHandler } from '../path-argument.ts';
import type { CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'SoTbDM',
  longValued: ['suffix', 'output', 'threads', 'memlimit', 'format', 'block-size', 'files', 'files0'],
  longFlags: ['keep', 'stdout', 'to-stdout', 'test', 'list', 'recursive', 'rm'],
};
/** Compressors that remove each file once it is (de)compressed, unless told to keep it; the others keep it unless `--rm`. */
const REMOVES_BY_DEFAULT = new Set(['gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'lzma', 'unlzma', 'compress', 'uncompress', 'pigz', 'unpigz']);
/** Those whose `--files=list` names the files to work on. */
const FILE_LISTS = new Set(['xz', 'unxz', 'lzma', 'unlzma']);
/** Those not known to change the layout only where they write and delete (unlz4, unpigz): a later command's paths cannot be judged. */
const UNMODELLED_ENTRIES = new Set(['unlz4', 'unpigz']);

/** One model per name: what a name does differs in its options (lz4's -l, compress's -c) and defaults (zstd keeps its files). */
export const COMPRESSORS: readonly CommandModel[] = ['gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'lzma', 'unlzma', 'zstd', 'unzstd', 'lz4', 'unlz4', 'compress', 'uncompress', 'pigz', 'unpigz'].map(
  (name): CommandModel => ({
    names: [name],
    paths: compressor(name),
    ...(FILE_LISTS.has(name) ? { fileLists: { options: ['--files'] } } : {}),
    ...(UNMODELLED_ENTRIES.has(name) ? {} : { entries: 'moves' as const }),
  }),
);

/**
 * Each file is written (its compressed or decompressed form lands beside
 * it) unless the output goes to stdout. gzip, bzip2, xz, lzma, compress
 * and pigz then delete the file unless `-k` / `--keep`; zstd and lz4 keep
 * it unless `--rm` (which lz4 honours even with `-c`).
 */
function compressor(name: string): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar: GRAMMAR });
    // lz4's -l is its legacy format, not a listing.
    const listing = name === 'lz4' || name === 'unlz4' ? ['--list'] : ['-l', '--list'];
    const readOnly = hasOption(scanned, ['-c', '--stdout', '--to-stdout', '-t', '--test', ...listing]);
    // compress has no way to keep its files but -c.
    const keeps = hasOption(scanned, name === 'compress' || name === 'uncompress' ? ['-c'] : ['-k', '--keep']);
    const deletes = REMOVES_BY_DEFAULT.has(name) ? !readOnly && !keeps : hasOption(scanned, ['--rm']) && (name === 'lz4' || name === 'unlz4' || !readOnly);
    const into = hasOption(scanned, ['-r', '--recursive']);
    const paths: PathArgument[] = [...pathUses(scanned.operands, readOnly ? 'read' : 'write')];
    if (deletes) paths.push(...scanned.operands.map((word): PathArgument => ({ word, use: 'delete', ...(into ? { into: true } : {}) })));
    return { paths: [...paths, ...pathUses(optionValues(scanned, ['-o', '--output']), 'write'), ...unknownOptionReads(words, scanned)], unsure: [] };
  };
}

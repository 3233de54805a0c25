import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { commandPaths } from './path-arguments.ts';

function paths(line: string): { uses: string[]; unsure: string[] } {
  const [command] = analyzeCommand(line).commands;
  const found = commandPaths({ name: command!.name!, words: command!.words });
  return { uses: found.paths.map((entry) => `${entry.use}${entry.into === true ? '-into' : ''}${entry.onlyIfExists === true ? '-if-exists' : ''}:${entry.word.value}`), unsure: found.unsure };
}

describe('unknown means writer', () => {
  it('writes and deletes the operands of a command no grammar knows', () => {
    expect(paths('convert a.png b.png').uses).toEqual(['read:a.png', 'read:b.png', 'write:a.png', 'delete:a.png', 'write:b.png', 'delete:b.png']);
    expect(paths('sqlite3 db.sqlite .tables').uses).toContain('write:db.sqlite');
    expect(paths('mytool ./build dir/x ~/y').uses.filter((use) => use.startsWith('write'))).toEqual(['write:./build', 'write:dir/x', 'write:~/y']);
  });

  it('judges bare words (a subcommand vocabulary) as writes only where a file by that name exists (trash Makefile)', () => {
    expect(paths('gh pr view 12').uses).toEqual(['read:pr', 'read:view', 'read:12', 'write-if-exists:pr', 'delete-if-exists:pr', 'write-if-exists:view', 'delete-if-exists:view', 'write-if-exists:12', 'delete-if-exists:12']);
    expect(paths('trash Makefile').uses).toEqual(['read:Makefile', 'write-if-exists:Makefile', 'delete-if-exists:Makefile']);
  });

  it('only reads the operands of known readers and of code runners (which need a rule naming them)', () => {
    expect(paths('cat a.txt').uses).toEqual(['read:a.txt']);
    expect(paths('wc -l a.txt b.txt').uses).toEqual(['read:a.txt', 'read:b.txt']);
    expect(paths('diff a b').uses).toEqual(['read:a', 'read:b']);
    expect(paths('python3 script.py').uses).toEqual(['read:script.py']);
    expect(paths('make -C sub').uses).toEqual(['read:sub']);
  });
});

describe('writers judged as writers', () => {
  it.each([
    ['xxd a.bin out.hex', ['read:a.bin', 'write:out.hex']],
    ['xxd -r -p dump.hex out.bin', ['read:dump.hex', 'write:out.bin']],
    ['xxd a.bin', ['read:a.bin']],
    ['split -l 10 big.txt part-', ['read:big.txt', 'write-into:.']],
    ['split big.txt out/part-', ['read:big.txt', 'write-into:out']],
    ['csplit -f ../ro/x big.txt /a/', ['read:big.txt', 'write-into:../ro']],
    ['iconv -f latin1 -t utf8 -o out.txt in.txt', ['read:in.txt', 'write:out.txt']],
    ['base64 -o out.b64 in.bin', ['read:in.bin', 'write:out.b64']],
    ['sdiff -o merged.txt a b', ['read:a', 'read:b', 'write:merged.txt']],
    ['sort -o sorted.txt a.txt', ['read:a.txt', 'write:sorted.txt']],
    ['uniq a.txt out.txt', ['read:a.txt', 'write:out.txt']],
  ])('%s', (line, expected) => {
    expect(paths(line).uses).toEqual(expected);
  });
});

describe('lists of files read from a file', () => {
  it.each(['du --files0-from=list', 'wc --files0-from list', 'du --files0=list', 'sort --files0-from=list', 'tar -cf x.tar -T list', 'tar -czT list -f x.tgz', 'tar --files-from=list -cf x.tar',
    'rsync -a --files-from=list . dest/', 'git add --pathspec-from-file=list', 'find -files0-from list', 'parallel -a list echo', 'parallel echo :::: list',
    'xz --files=list', 'xz -c --files=-', 'xz --files0=list', 'file -f names.txt', 'file -bf names.txt', 'md5sum -c sums.txt', 'sha256sum --check sums', 'b2sum -wc sums',
    '7z a out.7z @list.txt', 'cpio -o', 'cpio -pdm dest', 'cpio -idv'])('%s is unsure', (line) => {
    expect(paths(line).unsure.join('\n')).toMatch(/listed in another file|reads the paths it works on from a file|file names read from its input/);
  });

  it.each(['rg --files', 'tar -cf x.tar src', 'du -sh .', 'wc -l a', 'xz -k a.txt', 'file -b a.txt', 'md5sum a.txt', 'sha256sum -b a.txt', '7z x archive.7z'])('%s is not', (line) => {
    expect(paths(line).unsure).toEqual([]);
  });
});

describe('unnamedWritesConcern', () => {
  it('asks for extractors and downloads, not for git (judged by its repository)', async () => {
    const { unnamedWritesConcern } = await import('./unnamed-writes.ts');
    expect(unnamedWritesConcern({ name: 'tar', words: [] })).toMatch(/names are not in the command line/);
    expect(unnamedWritesConcern({ name: 'git', words: [] })).toBeUndefined();
  });
});

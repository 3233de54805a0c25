import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { networkUse } from './network-commands.ts';
import { commandPaths } from './path-arguments.ts';

/** `use:path` for each path argument of the line's first simple command. */
function uses(line: string): string[] {
  const [command] = analyzeCommand(line).commands;
  return commandPaths({ name: command!.name!, words: command!.words }).paths.map((entry) => `${entry.use}${entry.into === true ? '-into' : ''}:${entry.word.value}`);
}

function unsure(line: string): string[] {
  const [command] = analyzeCommand(line).commands;
  return commandPaths({ name: command!.name!, words: command!.words }).unsure;
}

describe('commandPaths: readers', () => {
  it('reads every operand and every path in an option of an unknown command, and writes and deletes its operands that look like files', () => {
    expect(uses('cc -I/usr/include -o out main.c --sysroot=/opt/x @args')).toEqual([
      // Bare words (`out`, `@args`) are judged as writes only where a file by that name exists.
      'read:/usr/include', 'read:out', 'read:main.c', 'read:/opt/x', 'read:@args', 'write:out', 'delete:out', 'write:main.c', 'delete:main.c', 'write:@args', 'delete:@args',
    ]);
    expect(uses('make DESTDIR=/tmp/x install')).toEqual(['read:DESTDIR=/tmp/x', 'read:/tmp/x', 'read:install']);
  });

  it('skips the pattern of grep, rg, sed, awk and jq, unless an option gave it', () => {
    expect(uses('grep -rn /etc/x src')).toEqual(['read:src']);
    expect(uses('grep -e /etc/x src')).toEqual(['read:src']);
    expect(uses('grep -f pats.txt /etc/shadow')).toEqual(['read:/etc/shadow', 'read:pats.txt']);
    expect(uses('rg --files /etc')).toEqual(['read:/etc']);
    expect(uses("sed -n '/a/p' notes.txt")).toEqual(['read:notes.txt']);
    expect(uses("sed -e 's/a/b/' /etc/x")).toEqual(['read:/etc/x']);
    expect(uses("awk -F/ '{print $1}' notes.txt")).toEqual(['read:notes.txt']);
    expect(uses("jq --arg a b '.x' data.json")).toEqual(['read:data.json']);
    expect(uses('jq --slurpfile a /etc/x .x')).toEqual(['read:/etc/x']);
  });

  it('reads every operand when an option is not understood (it could have taken the pattern)', () => {
    expect(uses('grep --unknown /etc/shadow src')).toEqual(['read:/etc/shadow', 'read:src']);
  });

  it('writes the files sed -i edits, and the files gawk -o/-d/-p dump', () => {
    expect(uses("sed -i 's/a/b/' x.txt")).toEqual(['write:x.txt']);
    expect(uses("awk -o '{print}' x.txt")).toEqual(['read:x.txt', 'write:awkprof.out']);
  });

  it('reads find start points and file primaries, not patterns or -exec commands; -delete deletes under the start points', () => {
    expect(uses("find src /etc -path '/x/*' -newer ref -exec cat /etc/shadow \\;")).toEqual(['read:src', 'read:/etc', 'read:ref']);
    expect(uses('find build -name "*.o" -delete')).toEqual(['delete-into:build']);
    expect(uses('find . -fprint /tmp/list')).toEqual(['read:.', 'write:/tmp/list']);
  });

  it('reads only the file operands of test', () => {
    expect(uses('test -f /etc/x -o "$a" = b')).toEqual(['read:/etc/x']);
    expect(uses('[ a -nt /etc/b ]')).toEqual(['read:a', 'read:/etc/b']);
  });

  it('takes no paths from echo, printf, tr and the shell builtins', () => {
    expect(uses('echo /etc/shadow')).toEqual([]);
    expect(uses("tr '/' '_'")).toEqual([]);
    expect(uses('export PATH=/tmp')).toEqual([]);
  });

  it('does not read the subcommand of npm, cargo, go... (nor the script npm runs) as a path', () => {
    expect(uses('npm run build')).toEqual([]);
    expect(uses('npm test -- /etc/x')).toEqual(['read:/etc/x']);
    expect(uses('go run /tmp/x.go')).toEqual(['read:/tmp/x.go']);
    // After an option, the first operand could be its value: every word counts.
    expect(uses('npm --prefix /x install')).toEqual(['read:/x', 'read:install']);
  });

  it('reads separators of text tools as separators', () => {
    expect(uses('cut -d/ -f2 notes.txt')).toEqual(['read:notes.txt']);
  });

  it('reads the script of a shell, not its -c code', () => {
    expect(uses('bash /tmp/x.sh')).toEqual(['read:/tmp/x.sh']);
    expect(uses("bash -c '/bin/rm /x' name")).toEqual(['read:name']);
  });

  it('reads a wrapper\'s own paths, not the command it runs', () => {
    expect(uses("timeout 5 sed -n '/a/p' x")).toEqual(['read:5']);
    expect(uses('xargs -a list.txt -d/ cat')).toEqual(['read:list.txt']);
    expect(uses('env -C /tmp FOO=/x ls')).toEqual(['read:/tmp']);
  });

  it('notes options that follow symlinks while recursing', () => {
    expect(unsure('grep -R x .')).toHaveLength(1);
    expect(unsure('grep -r x .')).toEqual([]);
    expect(unsure('cp -rL a b')).toHaveLength(1);
    expect(unsure('tar -chf x.tar .')).toHaveLength(1);
  });
});

describe('commandPaths: writers', () => {
  it('cp/mv/install write the last operand (or -t), with the sources it receives', () => {
    expect(uses('cp -r a b dest')).toEqual(['read:a', 'read:b', 'write:dest']);
    expect(uses('cp -t dest a')).toEqual(['read:a', 'write:dest']);
    expect(uses('mv -n a b')).toEqual(['delete:a', 'write:b']);
    expect(uses('install -d x y')).toEqual(['write:x', 'write:y']);
  });

  it('ln -f, cp -f, cp --remove-destination, install and mv also delete what they replace at the destination; plain cp writes into it', () => {
    expect(uses('mv a b')).toEqual(['delete:a', 'write:b', 'delete:b']);
    expect(uses('install -m 755 bin /usr/local/bin/x')).toEqual(['read:bin', 'write:/usr/local/bin/x', 'delete:/usr/local/bin/x']);
    expect(uses('ln -sf /etc etc')).toEqual(['read:/etc', 'write:etc', 'delete:etc']);
    expect(uses('ln --force a b')).toEqual(['write:a', 'write:b', 'delete:b']);
    expect(uses('cp -f a b')).toEqual(['read:a', 'write:b', 'delete:b']);
    expect(uses('cp --remove-destination a b')).toEqual(['read:a', 'write:b', 'delete:b']);
    expect(uses('cp --rem a b')).toEqual(['read:a', 'write:b', 'delete:b']);
    expect(uses('cp a b')).toEqual(['read:a', 'write:b']);
    expect(uses('ln -s a b')).toEqual(['read:a', 'write:b']);
  });

  it('ln writes the link; a hard link\'s target must be writable too', () => {
    expect(uses('ln -s /etc etc')).toEqual(['read:/etc', 'write:etc']);
    expect(uses('ln -s /etc')).toEqual(['read:/etc', 'write:.']);
    expect(uses('ln /etc/passwd p')).toEqual(['write:/etc/passwd', 'write:p']);
  });

  it('rm/rmdir/unlink delete; touch/mkdir/tee/truncate write; chmod/chown skip the mode', () => {
    expect(uses('rm -rf -- a b')).toEqual(['delete:a', 'delete:b']);
    expect(uses('touch -r ref x')).toEqual(['write:x', 'read:ref']);
    expect(uses('tee -a log')).toEqual(['write:log']);
    expect(uses('chmod 644 x')).toEqual(['write:x']);
    expect(uses('chmod -x x')).toEqual(['write:x']);
    expect(uses('chown -R me:me dir')).toEqual(['write:dir']);
  });

  it('shred writes its files, and deletes them too with -u or --remove', () => {
    expect(uses('shred -n 1 x')).toEqual(['write:x']);
    expect(uses('shred -zu x')).toEqual(['write:x', 'delete:x']);
    expect(uses('shred --remove=wipe x')).toEqual(['write:x', 'delete:x']);
  });

  it('dd reads if= and writes of=; sort/shuf write -o', () => {
    expect(uses('dd if=/dev/zero of=disk bs=1M')).toEqual(['read:/dev/zero', 'write:disk']);
    expect(uses('sort -o out -t/ in')).toEqual(['read:in', 'write:out']);
  });

  it('tar writes its archive when creating and under -C when extracting; old-style letters take the next words', () => {
    expect(uses('tar -czf out.tgz src')).toEqual(['write:out.tgz', 'read:src']);
    expect(uses('tar -xf a.tar -C /x')).toEqual(['read:a.tar', 'write-into:/x']);
    expect(uses('tar xfC a.tar /x')).toEqual(['read:a.tar', 'write-into:/x']);
    expect(uses('tar -tf a.tar')).toEqual(['read:a.tar']);
  });

  it('unzip writes under -d (or here), unless it lists', () => {
    expect(uses('unzip a.zip -d out')).toEqual(['read:a.zip', 'write-into:out']);
    expect(uses('unzip -l a.zip')).toEqual(['read:a.zip']);
  });

  it('patch writes the files its patch names, here or under -d, and deletes those it empties (-E) or the patch removes', () => {
    expect(uses('patch -p1 -i x.diff')).toEqual(['read:x.diff', 'write-into:.', 'delete-into:.']);
    expect(uses('patch -d /x -p1')).toEqual(['write-into:/x', 'delete-into:/x']);
    expect(uses('patch file.c x.diff')).toEqual(['read:x.diff', 'write:file.c', 'delete:file.c']);
    expect(uses('patch -o out file.c x.diff')).toEqual(['write:out', 'read:x.diff', 'read:file.c']);
    expect(uses('patch --dry-run file.c x.diff')).toEqual(['read:x.diff', 'write:file.c']);
  });

  it('a patch without -E is only presumed to delete: the patch decides', () => {
    const [plain] = analyzeCommand('patch file.c x.diff').commands;
    expect(commandPaths({ name: 'patch', words: plain!.words }).paths.find((entry) => entry.use === 'delete')?.presumed).toMatch(/the patch decides/);
    const [empties] = analyzeCommand('patch -E file.c x.diff').commands;
    expect(commandPaths({ name: 'patch', words: empties!.words }).paths.find((entry) => entry.use === 'delete')?.presumed).toBeUndefined();
  });

  it('rsync/scp write a local destination; remote ones are not paths', () => {
    expect(uses('rsync -a src/ dest')).toEqual(['read:src/', 'write:dest']);
    expect(uses('rsync -a src host:/x')).toEqual(['read:src']);
    expect(uses('rsync -a --delete src/ dest')).toEqual(['read:src/', 'write:dest', 'delete-into:dest']);
  });

  it('git clone writes its directory; git -C moves the command', () => {
    expect(uses('git clone https://x/y.git dir')).toEqual(['write-into:dir']);
    expect(uses('git clone https://x/y.git')).toEqual(['write-into:.']);
    expect(uses('git -C /x log src')).toEqual(['read:/x', 'read:src']);
    expect(uses('git commit -m "a/../../b" x')).toEqual(['write-into:.', 'read:x']);
  });

  it('curl and wget write their output files, and read what they upload', () => {
    expect(uses('curl -o out -T up https://x')).toEqual(['write:out', 'read:up']);
    expect(uses('curl -O https://x/f')).toEqual(['write-into:.']);
    expect(uses('curl -d @/etc/x https://x')).toEqual(['read:@/etc/x', 'read:/etc/x']);
    expect(uses('wget https://x/f')).toEqual(['write-into:.']);
    expect(uses('wget -O - https://x/f')).toEqual([]);
  });

  it('compressors replace their files unless writing to stdout: gzip, bzip2, xz delete them unless -k, zstd and lz4 only with --rm', () => {
    expect(uses('gzip a')).toEqual(['write:a', 'delete:a']);
    expect(uses('gzip -c a')).toEqual(['read:a']);
    expect(uses('gzip -k a')).toEqual(['write:a']);
    expect(uses('gunzip --kee a.gz')).toEqual(['write:a.gz']);
    expect(uses('bzip2 -dk a.bz2')).toEqual(['write:a.bz2']);
    expect(uses('xz -t a.xz')).toEqual(['read:a.xz']);
    expect(uses('gzip -r dir')).toEqual(['write:dir', 'delete-into:dir']);
    expect(uses('compress -k a')).toEqual(['write:a', 'delete:a']);
    expect(uses('zstd a')).toEqual(['write:a']);
    expect(uses('zstd --rm a')).toEqual(['write:a', 'delete:a']);
    expect(uses('zstd -c --rm a')).toEqual(['read:a']);
    expect(uses('lz4 -c --rm a')).toEqual(['read:a', 'delete:a']);
    expect(uses('lz4 -l a')).toEqual(['write:a']);
  });
});

describe('networkUse', () => {
  const network = (line: string) => {
    const [command] = analyzeCommand(line).commands;
    return networkUse({ name: command!.name!, words: command!.words });
  };

  it.each(['curl x', 'wget x', 'nc h 1', 'ssh h', 'scp a h:b', 'git clone https://x/y', 'git fetch', 'git pull', 'git push', 'git ls-remote', 'git submodule update --init', 'git remote update', 'npm install', 'npm i', 'pnpm add x', 'yarn', 'yarn add x', 'pip install x', 'pip3 install x', 'python3 -m pip install x', 'apt-get install x', 'apt update', 'gem install x', 'cargo install x', 'go get x', 'go install x@latest', 'docker pull x', 'rsync a host:b', 'npx x', 'npm $cmd'])('%s uses the network', (line) => {
    expect(network(line)).toBeDefined();
  });

  it.each(['git status', 'git clone ../repo', 'npm test', 'npm run build', 'pip list', 'rsync -a a b', 'go test ./...', 'docker ps', 'cargo build'])('%s does not', (line) => {
    expect(network(line)).toBeUndefined();
  });
});

describe('NAME --help alone', () => {
  const pathsOf = (line: string) => {
    const [command] = analyzeCommand(line).commands;
    return commandPaths({ name: command!.name!, words: command!.words }).paths.map((entry) => `${entry.use} ${entry.word.value}`);
  };
  it.each(['split', 'cp', 'tar', 'find', 'curl', 'gzip', 'rm', 'zip', 'wget', 'rsync'])('%s --help and --version name no file, whether a writer or a modelled command', (name) => {
    expect(pathsOf(`${name} --help`)).toEqual([]);
    expect(pathsOf(`${name} --version`)).toEqual([]);
  });
  it('is only the word alone: with more words, they are judged', () => {
    expect(pathsOf('rm --help x')).toEqual(['delete x']);
    expect(pathsOf('cp --version a b')).toContain('write b');
    expect(pathsOf('split "--help"')).toEqual([]);
    expect(pathsOf('gzip --helpx f.txt').length).toBeGreaterThan(0);
  });
});

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { analyzeCommandOnce } from './analysis-cache.ts';
import { awkProgramHazard } from './awk-program-hazard.ts';
import { sedScriptHazard } from './sed-script-hazard.ts';

const names = (command: string) => analyzeCommand(command).commands.map((simple) => simple.name ?? '<dynamic>');

describe('analyzeCommand: where appended arguments come from', () => {
  const inner = (line: string) => analyzeCommand(line).commands.find((command) => command.appendsArguments)!;
  it('is the find whose matches -exec appends', () => {
    expect(inner("find . -name x -exec grep -l y {} +").appendedFrom).toMatchObject({ name: 'find' });
  });
  it('is the simple command piped into xargs', () => {
    expect(inner('find . -type f | xargs grep foo').appendedFrom).toMatchObject({ name: 'find' });
    expect(inner('echo /etc/shadow | xargs cat').appendedFrom).toMatchObject({ name: 'echo' });
    expect(inner('ls | grep x | xargs cat').appendedFrom).toMatchObject({ name: 'grep' });
  });
  it('is the tool\'s empty input for a bare xargs', () => {
    expect(inner('xargs cat').appendedFrom).toBe('empty-input');
  });
  it('is unknown for compound stages, files and here-strings', () => {
    expect(inner('{ echo x; } | xargs cat').appendedFrom).toBeUndefined();
    expect(inner('xargs cat < list').appendedFrom).toBeUndefined();
    expect(inner('xargs -a list cat').appendedFrom).toBeUndefined();
    expect(inner('xargs cat <<< /etc/shadow').appendedFrom).toBeUndefined();
    expect(inner('while read f; do xargs cat; done < list').appendedFrom).toBeUndefined();
  });
});

describe('analyzeCommand', () => {
  it('finds every simple command of lists, pipelines and compound commands', () => {
    expect(names('a; b && c || d | e & f\ng')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(names('if a; then b; elif c; then d; else e; fi')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(names('while a; do b; done; until c; do d; done; for x in 1; do e; done')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(names('case x in y) a;; z) b;; esac; (c); { d; }; f() { e; }')).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('walks substitutions everywhere, marking their commands explicit-only', () => {
    const analysis = analyzeCommand('echo "${x:-$(a)}" `b` <(c) >(d) $((1 + $(e))) <<EOF\n$(f)\nEOF\n');
    expect(analysis.commands.map((simple) => simple.name).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'echo', 'f']);
    expect(analysis.commands.filter((simple) => simple.explicitOnly).map((simple) => simple.name).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('normalises names: quotes removed, basename of the normalised path', () => {
    expect(names("/usr/bin/../bin/rm; \\rm; r''m; \"r\"m; $'\\x72m'; ./scripts/rm")).toEqual(['rm', 'rm', 'rm', 'rm', 'rm', 'rm']);
    expect(analyzeCommand('/usr/bin/../bin/rm').commands[0]!.written).toBe('/usr/bin/../bin/rm');
  });

  it('leaves names computed at run time unnamed, with a hazard', () => {
    const [simple] = analyzeCommand('$cmd x').commands;
    expect(simple!.name).toBeUndefined();
    expect(simple!.hazards[0]!.reason).toContain('only known at run time');
  });

  it('unwraps wrappers, keeping the chain in `via`', () => {
    const analysis = analyzeCommand('sudo -u root env A=1 timeout -k 1 5 nice -n 2 rm x');
    expect(analysis.commands.map((simple) => simple.name)).toEqual(['sudo', 'env', 'timeout', 'nice', 'rm']);
    expect(analysis.commands.at(-1)!.via).toBe('run by nice, run by timeout, run by env, run by sudo');
    expect(analysis.commands.at(-1)!.words.map((word) => word.value)).toEqual(['rm', 'x']);
  });

  it('parses payloads of bash -c, eval, trap, alias, env -S, flock -c, watch and parallel', () => {
    for (const command of ["bash -c 'a'", 'eval a', "trap 'a' EXIT", "alias x='a'", "env -S 'a'", "flock f -c 'a'", 'watch a', 'parallel a ::: 1']) {
      expect(names(command), command).toContain('a');
    }
  });

  it('tracks cd for later commands, and gives up inside loops', () => {
    const analysis = analyzeCommand('cd src && cat a; cd ../lib; cat b; for x in 1; do cd ..; done; cat c');
    const cats = analysis.commands.filter((simple) => simple.name === 'cat').map((simple) => simple.cwd);
    expect(cats).toEqual([{ kind: 'changed', path: 'src' }, { kind: 'changed', path: 'lib' }, { kind: 'unknown' }]);
  });

  it('records redirections with their operation, but not descriptor duplications', () => {
    const analysis = analyzeCommand('a > f1 2>&1 >> f2 < f3 &> f4 >&f5 <> f6 3>&- 1>&2');
    expect(analysis.redirections.map((redirection) => `${redirection.operation} ${redirection.target.value}`)).toEqual(['write f1', 'write f2', 'read f3', 'write f4', 'write f5', 'write f6']);
    expect(analysis.commands[0]!.inputs.map((word) => word.value)).toEqual(['f3']);
  });

  it('reports parse errors, including those inside substitutions', () => {
    expect(analyzeCommand('echo "x').concerns[0]!.reason).toContain('does not parse');
    expect(analyzeCommand('echo $(if then)').concerns.length).toBeGreaterThan(0);
  });

  it('stops after too many commands', () => {
    const analysis = analyzeCommand(Array.from({ length: 2100 }, () => 'true').join(';'));
    expect(analysis.commands.length).toBe(2000);
    expect(analysis.concerns.at(-1)!.reason).toContain('more than 2000 commands');
  });

  it('never throws', () => {
    for (const input of ['', '(((((', '$((((', '`', '<<', "'", '\\', '${', '$(', 'a'.repeat(100_000), '('.repeat(1000) + ')'.repeat(1000)]) {
      expect(() => analyzeCommand(input)).not.toThrow();
    }
  });
});

describe('sedScriptHazard', () => {
  it.each([
    ['s/a/b/g', undefined],
    ['s/[/]/x/; s|a|b|', undefined],
    ['/start/,/end/d', undefined],
    ['1!G;h;$!d', undefined],
    ['$a\\\nappended e w r', undefined],
    ['y/abc/xyz/', undefined],
    ['s/a/b/e', 'exec'],
    ['s/a/b/gw /tmp/x', 'write'],
    ['1e id', 'exec'],
    ['e', 'exec'],
    ['w /tmp/x', 'write'],
    ['/x/W out', 'write'],
    ['r /etc/passwd', 'read'],
    ['{ p; e id\n}', 'exec'],
    ['s/[/]e/x/;1e id', 'exec'],
    ['s/a', 'unknown'],
    ['1~2k', 'unknown'],
  ] as const)('%j → %s', (script, kind) => {
    expect(sedScriptHazard(script)?.kind).toBe(kind);
  });
});

describe('awkProgramHazard', () => {
  it.each([
    ['{ print $1 }', undefined],
    ['$3 > 100 { print $1 }', undefined],
    ['/a|b/ { n++ } END { print n }', undefined],
    ['{ print $1 > "/dev/stderr" }', undefined],
    ['BEGIN { system("id") }', 'exec'],
    ['{ print | "sh" }', 'exec'],
    ['{ print > "out" }', 'write'],
    ['{ printf "%s", $1 >> "out" }', 'write'],
    ['{ print > "/dev/stderr" "x" }', 'write'],
    ['BEGIN { "date" | getline d }', 'exec'],
    ['{ getline line < "/etc/shadow" }', 'read'],
    ['BEGIN { print |& "sh" }', 'exec'],
    ['@load "x"', 'exec'],
    ['/"/ { print > "x" }', 'write'],
  ] as const)('%j → %s', (program, kind) => {
    expect(awkProgramHazard(program)?.kind).toBe(kind);
  });
});

/**
 * Differential check against bash itself: the commands bash really runs
 * (logged by stub programs on PATH) must all be among those the analysis
 * found. Catches any construct the parser reads differently from bash.
 */
describe('bash agrees with the analysis', () => {
  const STUBS = ['rm', 'git', 'ls', 'grep', 'cat', 'curl', 'wc', 'sort', 'touch', 'id', 'head'];
  const REAL = ['env', 'xargs', 'timeout', 'nice', 'nohup', 'find'];
  let directory: string;
  let log: string;
  const bash = ['/bin/bash', '/usr/bin/bash'].find((candidate) => existsSync(candidate));

  beforeAll(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bash-differential-'));
    log = path.join(directory, 'log');
    const bin = path.join(directory, 'bin');
    spawnSync('mkdir', [bin]);
    for (const name of STUBS) {
      writeFileSync(path.join(bin, name), '#!/bin/sh\necho "${0##*/}" >> "$TOOLGATE_LOG"\n');
      chmodSync(path.join(bin, name), 0o755);
    }
    for (const name of REAL) {
      const real = [`/usr/bin/${name}`, `/bin/${name}`].find((candidate) => existsSync(candidate));
      if (real !== undefined) symlinkSync(real, path.join(bin, name));
    }
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const inputs = [
    'git status # ; rm x',
    'git status#; rm x',
    'git sta\\\ntus; ls',
    'ls \\\n; rm x',
    'cat <<EOF\nrm x\nEOF\nls',
    'cat <<EOF\n$(rm x)\nEOF\n',
    "cat <<'EOF'\n$(rm x)\nEOF\n",
    'cat <<-EOF\n\trm x\n\tEOF\nls',
    'cat <<EOF; rm x\nbody\nEOF\n',
    'echo `rm x`',
    'echo "`rm x`"',
    "echo '`rm x`'",
    'echo \\$(rm x)',
    'echo $(echo $(rm x))',
    'echo `echo \\`rm x\\``',
    "r''m x; \\rm y; \"r\"m z; $'\\x72m' w; r\\m v",
    'ls\u00a0-la',
    'x=1 ls; y=$(git status)',
    'ls & rm x; wait',
    'if ls; then rm x; fi',
    'case a in a) rm x;; esac',
    'f() { rm x; }; f',
    '{ ls; rm x; }',
    'ls | cat | grep x',
    'echo ${x:-$(rm y)}',
    'a=(1 $(rm x))',
    ': $(( $(rm x) ))',
    '[[ $(rm x) ]]',
    'cat <(rm x) > /dev/null',
    'echo >(rm x)',
    'for i in $(ls); do rm $i; done',
    'time rm x',
    'ls ;# rm x\nrm y',
    "echo \"$(echo 'rm x')\"",
    'eval "rm x"',
    'command rm x',
    'env rm x',
    'env -i A=1 rm x',
    'echo x | xargs rm',
    'echo x | xargs -I{} rm {}',
    'timeout 5 rm x',
    'nice -n 1 rm x',
    'nohup rm x > /dev/null',
    'find . -maxdepth 0 -exec rm {} \\;',
    'exec rm x',
    "alias ls='rm x'; ls",
    "shopt -s expand_aliases\nalias ls='rm x'\nls",
    "trap 'rm x' EXIT",
    'rm x & wait',
    'coproc rm x; wait',
    'echo $\'\\x72m\' | head',
    '$\'\\162m\' x',
    'x=rm; $x y',
    'echo hi\u2003; ls',
    'ls\r',
    'declare -a a=($(rm x))',
    'echo $(case x in x) rm y;; esac)',
    'echo $((rm x); ls)',
    'echo $( (rm x) )',
    'echo $(ls # )\nrm x)',
    'cat <<EOF $(rm x)\nbody\nEOF\n',
    'echo $(cat <<EOF\n$(rm x)\nEOF\n)',
    'echo `ls # `\nrm x',
    'echo $(echo ")"; rm x)',
    'echo "$(echo "$(rm x)")"',
    ': ${x:=$(rm x)}',
    'ls <<< "$(rm x)"',
    'ls 2>$(rm x)',
    'case $(ls) in $(rm x)) ;; esac',
    'a[$(rm x)]=1',
    'echo {$(rm x),b}',
    'for ((i=$(rm x);i<1;i++)); do :; done',
    'echo $(</dev/null) $(rm x)',
    '!(rm x)',
    'ls !(rm x) @(x|y)',
    'x=@(rm y); ls',
  ];

  function run(input: string): Set<string> {
    writeFileSync(log, '');
    spawnSync(bash!, ['--noprofile', '--norc', '-O', 'extglob', '-c', input], {
      cwd: directory,
      env: { PATH: path.join(directory, 'bin'), TOOLGATE_LOG: log },
      timeout: 5000,
      stdio: 'ignore',
    });
    return new Set(readFileSync(log, 'utf8').split('\n').filter((line) => line !== ''));
  }

  it('sees what bash runs (the stubs log)', () => {
    if (bash === undefined) return;
    expect([...run('ls; echo x | xargs rm; r\'\'m x')].sort()).toEqual(['ls', 'rm']);
  });

  it.each(inputs)('%j', (input) => {
    if (bash === undefined) return;
    const ran = run(input);
    const analysis = analyzeCommand(input);
    const found = new Set(analysis.commands.map((simple) => simple.name));
    const dynamic = analysis.commands.some((simple) => simple.name === undefined);
    for (const name of ran) {
      // A name computed at run time may be anything; the analysis has flagged it.
      if (dynamic && !found.has(name)) continue;
      expect(found, `bash ran ${name} for ${JSON.stringify(input)}`).toContain(name);
    }
  });
});

describe('analyzeCommandOnce: the analyses of recent lines, kept frozen', () => {
  it('gives the analysis analyzeCommand gives, the same object for the same line', () => {
    const line = `cat notes.txt | grep -n todo > out-${Math.random()}.txt && git status`;
    const first = analyzeCommandOnce(line);
    expect(first).toEqual(analyzeCommand(line));
    expect(analyzeCommandOnce(line)).toBe(first);
  });

  it('freezes every object it keeps (the arrays are checked by the verdict suites instead), so no decision can change what another reads', () => {
    const analysis = analyzeCommandOnce(`rm -rf "$HOME/x-${Math.random()}" < input.txt`);
    const [command] = analysis.commands;
    expect(Object.isFrozen(analysis)).toBe(true);
    expect(Object.isFrozen(command)).toBe(true);
    expect(Object.isFrozen(command!.words[0])).toBe(true);
    expect(Object.isFrozen(command!.hazards[0])).toBe(true);
    expect(Object.isFrozen(analysis.redirections[0])).toBe(true);
    expect(() => {
      (command as { name: string | undefined }).name = 'ls';
    }).toThrow(TypeError);
    expect(() => {
      (command!.words[1] as { value: string }).value = 'x';
    }).toThrow(TypeError);
    expect(analysis.commands[0]!.name).toBe('rm');
  });

  it('leaves no object of a kept analysis unfrozen, whatever the line holds (a field added later must be frozen too)', () => {
    const lines = [
      'git status && git diff --stat',
      "find . -name '*.ts' -exec grep -l x {} + | xargs wc -l > counts.txt 2>&1",
      'cd src && cat < in.txt >> out.txt; cd ..',
      'f() { rm -rf /; }; f',
      'echo "$(git rev-parse HEAD)" `date` <(ls) | tee log',
      "bash -c 'sudo env X=1 rm x' && eval \"$CMD\"",
      "cat <<'EOF'\n$(rm x)\nEOF\n",
      'for f in *.ts; do wc -l "$f"; done & wait',
      'if [ -f a ]; then ((x = y + 1)); fi; ls ~/x',
      'echo ( unbalanced',
      'r\u200bm x',
    ];
    const unfrozen: string[] = [];
    const walk = (value: unknown, where: string, seen: Set<object>) => {
      if (typeof value !== 'object' || value === null || seen.has(value)) return;
      seen.add(value);
      if (!Array.isArray(value) && !Object.isFrozen(value)) unfrozen.push(where);
      for (const [key, member] of Object.entries(value)) walk(member, `${where}.${key}`, seen);
    };
    for (const line of lines) walk(analyzeCommandOnce(`${line} # ${Math.random()}`), JSON.stringify(line), new Set());
    expect(unfrozen).toEqual([]);
  });

  it('keeps a bounded number of lines, the least recently used leaving first, and never a long or large one', () => {
    const tag = Math.random();
    const kept = analyzeCommandOnce(`echo kept-${tag}`);
    const dropped = analyzeCommandOnce(`echo dropped-${tag}`);
    for (let index = 0; index < 255; index++) {
      analyzeCommandOnce(`echo filler-${tag}-${index}`);
      // Used again now and then: it stays while older lines leave.
      if (index % 64 === 0) expect(analyzeCommandOnce(`echo kept-${tag}`)).toBe(kept);
    }
    expect(analyzeCommandOnce(`echo kept-${tag}`)).toBe(kept);
    expect(analyzeCommandOnce(`echo dropped-${tag}`)).not.toBe(dropped);
    const long = `echo ${'x'.repeat(1100)}`;
    expect(analyzeCommandOnce(long)).not.toBe(analyzeCommandOnce(long));
    expect(Object.isFrozen(analyzeCommandOnce(long).commands[0])).toBe(false);
    // Short, but with more parts than a kept analysis may have (here 301 commands): analysed afresh each time.
    const many = `x-${tag};${'a;'.repeat(300)}`;
    expect(many.length).toBeLessThan(1024);
    expect(analyzeCommandOnce(many)).not.toBe(analyzeCommandOnce(many));
    const fewer = `x-${tag};${'a;'.repeat(100)}`;
    expect(analyzeCommandOnce(fewer)).toBe(analyzeCommandOnce(fewer));
  });
});

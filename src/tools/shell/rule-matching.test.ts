import { describe, expect, it } from 'vitest';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { analyzeCommand } from './analyze-command.ts';
import { commandSpec } from './command-forms.ts';
import { readCommand } from './command-reading.ts';
import { ruleForm } from './rule-matching.ts';
import { matchRule, matchRuleDetail, shellRulesFromPolicy, type ShellRule } from './shell-rules.ts';

function rule(match: string, decision: 'allow' | 'ask' | 'block'): ShellRule {
  return shellRulesFromPolicy({ policy: normalizePolicy({ shell: { rules: [{ match, decision }] } }), zones: [] }).rules[0]!;
}

const first = (command: string) => analyzeCommand(command).commands[0]!;

describe('ruleForm', () => {
  it('reads a rule in the canonical long form', () => {
    expect(ruleForm(['docker', 'rmi'], 'docker').path).toEqual(['image', 'rm']);
    expect(ruleForm(['docker', 'container', 'rm'], 'docker').path).toEqual(['container', 'rm']);
    expect(ruleForm(['docker', 'rm'], 'docker').path).toEqual(['container', 'rm']);
    expect(ruleForm(['npm', 'i'], 'npm').path).toEqual(['install']);
    expect(ruleForm(['git', 'push', '--force'], 'git')).toMatchObject({ path: ['push'], after: ['--force'] });
    expect(ruleForm(['git', '-c'], 'git')).toMatchObject({ path: [], after: ['-c'] });
    expect(ruleForm(['rm', '-rf'], 'rm')).toMatchObject({ path: [], after: ['-rf'] });
  });
});

describe('readCommand', () => {
  const words = (command: string) => first(command).words;
  it('skips known options with their values and forks on unknown ones', () => {
    const git = commandSpec('git')!;
    expect(readCommand({ spec: git, words: words('git -C dir -p push'), appendsArguments: false }).map((reading) => reading.path)).toEqual([['push']]);
    expect(readCommand({ spec: git, words: words('git --zz push'), appendsArguments: false }).map((reading) => reading.path)).toEqual([[], ['push']]);
    expect(readCommand({ spec: git, words: words('git p'), appendsArguments: false })[0]).toMatchObject({ path: [], open: true, stop: 1 });
  });

  it('caps the readings of many unknown options', () => {
    const many = `git ${Array.from({ length: 30 }, (_, index) => `--o${index} v${index}`).join(' ')} push`;
    const readings = readCommand({ spec: commandSpec('git')!, words: words(many), appendsArguments: false });
    expect(readings.length).toBeLessThanOrEqual(40);
    expect(readings.some((reading) => reading.open)).toBe(true);
  });
});

describe('matchRule, two-sided', () => {
  it('says no where the command surely is another subcommand', () => {
    const cases: [string, string][] = [
      ['gh repo delete', 'gh pr list'],
      ['gh repo delete', 'gh repo view'],
      ['aws s3 rm', 'aws s3 ls'],
      ['aws s3 rm', 'aws --region x sts get-caller-identity'],
      ['gcloud projects delete', 'gcloud projects list'],
      ['kubectl delete', 'kubectl -n x get pods'],
      ['docker rm', 'docker ps'],
      ['docker rm', 'docker image rm x'],
      ['helm uninstall', 'helm list'],
      ['npm install', 'npm test'],
      ['pip install', 'pip list'],
      ['git push', 'git -p log'],
      ['make deploy', 'make build'],
      ['make deploy', 'make deploy-docs'],
    ];
    for (const [match, command] of cases) expect(matchRule(rule(match, 'block'), first(command)), `${match} / ${command}`).toBe('no');
  });

  it('resolves argument aliases where the grammar has them', () => {
    const pods = rule('kubectl delete pods', 'block');
    expect(matchRule(pods, first('kubectl delete po x'))).toBe('yes');
    expect(matchRule(pods, first('kubectl -n prod delete pod x'))).toBe('yes');
    expect(matchRule(pods, first('kubectl delete svc x'))).toBe('no');
    expect(matchRule(pods, first('kubectl delete pod/web'))).toBe('yes');
    expect(matchRule(pods, first('kubectl delete pods.v1 web'))).toBe('yes');
    // Several types, all of them, or a manifest whose contents are not known.
    expect(matchRule(pods, first('kubectl delete svc,po web'))).toBe('maybe');
    expect(matchRule(pods, first('kubectl delete all --all'))).toBe('maybe');
    expect(matchRule(pods, first('kubectl delete -f manifest.yaml'))).toBe('maybe');
    expect(matchRule(pods, first('kubectl delete --filename=manifest.yaml'))).toBe('maybe');
  });

  it('reaches what a command also does: force-push spellings, plumbing that pushes, apply -destroy', () => {
    const force = rule('git push --force', 'block');
    expect(matchRule(force, first('git push --force-with-lease'))).toBe('maybe');
    expect(matchRule(force, first('git push --mirror backup'))).toBe('maybe');
    expect(matchRule(force, first('git push origin +main'))).toBe('maybe');
    expect(matchRule(force, first('git push origin main'))).toBe('no');
    expect(matchRule(rule('git push -f', 'block'), first('git push origin +main'))).toBe('maybe');
    expect(matchRuleDetail(rule('git push', 'block'), first('git send-pack origin main'))).toMatchObject({ match: 'maybe', why: 'it also does what "git push" does' });
    expect(matchRule(rule('git send-pack', 'block'), first('git send-pack origin main'))).toBe('yes');
    expect(matchRule(rule('git push', 'allow'), first('git send-pack origin main'))).toBe('no');
    expect(matchRule(rule('terraform destroy', 'block'), first('terraform apply -destroy'))).toBe('maybe');
    expect(matchRule(rule('terraform apply', 'block'), first('terraform apply -destroy'))).toBe('yes');
    expect(matchRule(rule('terraform apply', 'allow'), first('terraform apply -auto-approve'))).toBe('yes');
  });

  it('finds an option the rule names before the subcommand where the program takes options anywhere', () => {
    const global = rule('npm install -g', 'block');
    expect(matchRule(global, first('npm install -g x'))).toBe('yes');
    expect(matchRule(global, first('npm -g install x'))).toBe('yes');
    expect(matchRule(global, first('npm --global i x'))).toBe('yes');
    expect(matchRule(global, first('npm i x --global'))).toBe('yes');
    expect(matchRule(global, first('npm i x'))).toBe('no');
    // An allow rule keeps to its words' order: what stands between them must be known to be harmless.
    const dryRun = rule('npm install --dry-run', 'allow');
    expect(matchRule(dryRun, first('npm install --dry-run x'))).toBe('yes');
    expect(matchRule(dryRun, first('npm install x --dry-run'))).toBe('maybe');
    expect(matchRule(dryRun, first('npm install --foo --dry-run'))).toBe('maybe');
    // git's options before the subcommand are git's own, not the subcommand's.
    expect(matchRule(rule('git push -v', 'block'), first('git -v push'))).toBe('no');
  });

  it('reads an abbreviation npm takes as the command it stands for, for block and ask rules only', () => {
    const publish = rule('npm publish', 'block');
    for (const command of ['npm publis', 'npm pub', 'npm pu', 'npm -g publi --access public', 'npm --registry http://r publ']) {
      expect(matchRuleDetail(publish, first(command)), command).toMatchObject({ match: 'yes', why: undefined });
    }
    expect(matchRule(rule('npm publish --tag', 'block'), first('npm publ --tag beta'))).toBe('yes');
    expect(matchRule(rule('npm publish --tag', 'block'), first('npm publ'))).toBe('no');
    expect(matchRule(rule('npm whoami', 'ask'), first('npm whoa'))).toBe('yes');
    expect(matchRule(rule('npm install-test', 'block'), first('npm installTest'))).toBe('yes');
    // A package runner reached by abbreviation still runs what the rule names.
    expect(matchRule(rule('git push', 'block'), first('npm exe git push'))).toBe('yes');
    // Not an abbreviation of it: another command, or nothing npm has.
    expect(matchRule(publish, first('npm pack'))).toBe('no');
    expect(matchRule(publish, first('npm pa'))).toBe('no');
    expect(matchRule(publish, first('npm publisher'))).toBe('maybe');
    // More than one command begins so: npm refuses the word today, another version may not.
    expect(matchRuleDetail(rule('npm test', 'block'), first('npm te'))).toMatchObject({ match: 'maybe', why: 'it may abbreviate any of "npm team", "npm test", depending on npm\'s version' });
    expect(matchRule(publish, first('npm p'))).toBe('maybe');
    // An allow rule never reaches a command through an abbreviation: which commands npm has depends on its version.
    expect(matchRule(rule('npm publish', 'allow'), first('npm publis'))).toBe('maybe');
    expect(matchRule(rule('npm', 'allow'), first('npm publis'))).toBe('yes');
    // A rule is read as written: an abbreviation in a rule is a word npm may not know.
    expect(ruleForm(['npm', 'publis'], 'npm').path).toEqual([]);
    const words = first('npm publis').words;
    expect(readCommand({ spec: commandSpec('npm')!, words, appendsArguments: false }).map((reading) => ({ path: reading.path, open: reading.open, abbreviated: reading.abbreviated, abbreviation: reading.abbreviation }))).toEqual([
      { path: [], open: true, abbreviated: true, abbreviation: undefined },
      { path: ['publish'], open: false, abbreviated: undefined, abbreviation: true },
    ]);
  });

  it('treats a name differing only in case as maybe the program (case-insensitive filesystems)', () => {
    expect(matchRuleDetail(rule('git push', 'block'), first('GIT push'))).toMatchObject({ match: 'maybe', why: 'on a case-insensitive filesystem GIT runs git' });
    expect(matchRule(rule('git', 'allow'), first('GIT status'))).toBe('no');
  });

  it('matches option words in any spelling a program accepts, as maybe', () => {
    const force = rule('git push --force', 'block');
    expect(matchRule(force, first('git push --force origin'))).toBe('yes');
    expect(matchRule(force, first('git push -f origin'))).toBe('yes');
    expect(matchRule(force, first('git push origin --force'))).toBe('yes');
    expect(matchRule(force, first('git push --forc origin'))).toBe('maybe');
    expect(matchRule(force, first('git push -uf origin'))).toBe('maybe');
    expect(matchRule(force, first('git push origin main'))).toBe('no');
    expect(matchRule(force, first('git push -u origin main'))).toBe('no');
    const rmrf = rule('rm -rf', 'block');
    expect(matchRule(rmrf, first('rm -rf x'))).toBe('yes');
    expect(matchRule(rmrf, first('rm -v -rf x'))).toBe('yes');
    expect(matchRule(rmrf, first('rm -r -f x'))).toBe('maybe');
    expect(matchRule(rmrf, first('rm -fr x'))).toBe('maybe');
    expect(matchRule(rmrf, first('rm --recursive --force x'))).toBe('maybe');
    expect(matchRule(rmrf, first('rm x -rf'))).toBe('yes');
    expect(matchRule(rmrf, first('rm -- -rf'))).toBe('no');
    expect(matchRule(rmrf, first('rm -r x'))).toBe('no');
    expect(matchRule(rmrf, first('rm x'))).toBe('no');
  });

  it('keeps covering the hazards on the words the rule names', () => {
    expect(matchRuleDetail(rule('git -c', 'ask'), first('git -c x=y status'))).toMatchObject({ match: 'yes', positions: [0, 1] });
    expect(matchRuleDetail(rule('git status', 'allow'), first('git --no-pager status -s'))).toMatchObject({ match: 'yes', positions: [0, 2] });
    expect(matchRuleDetail(rule('docker rm', 'block'), first('docker -H x container rm y'))).toMatchObject({ match: 'yes', positions: [0, 3, 4] });
  });

  it('lets restrictive rules reach programs that only differ by version, not allow rules', () => {
    expect(matchRule(rule('pip install', 'block'), first('pip3 install x'))).toBe('yes');
    expect(matchRule(rule('pip install', 'ask'), first('pip3.12 install x'))).toBe('yes');
    expect(matchRule(rule('pip', 'allow'), first('pip3 list'))).toBe('no');
  });

  it('looks inside package runners for restrictive rules only', () => {
    expect(matchRuleDetail(rule('git push', 'block'), first('npx git push'))).toMatchObject({ match: 'yes', why: 'run by npx' });
    expect(matchRule(rule('git push', 'allow'), first('npx git push'))).toBe('no');
    expect(matchRule(rule('git push', 'block'), first('npx prettier --write .'))).toBe('no');
    expect(matchRule(rule('git push', 'block'), first('npx --version'))).toBe('no');
    expect(matchRuleDetail(rule('rm', 'block'), first('npx -c "rm -rf x"')).match).toBe('maybe');
    expect(matchRule(rule('git push', 'block'), first('npx concurrently git push'))).toBe('maybe');
  });

  it('says why a match is only maybe', () => {
    expect(matchRuleDetail(rule('git push', 'block'), first('git p')).why).toContain('alias');
    expect(matchRuleDetail(rule('git push', 'block'), first('git --zz push')).why).toContain('value');
    expect(matchRuleDetail(rule('git status', 'allow'), first('git -c x=y status')).why).toContain('harmless');
  });
});

const PROGRAMS = ['git', 'npm', 'pnpm', 'yarn', 'bun', 'pip', 'cargo', 'docker', 'podman', 'kubectl', 'helm', 'terraform', 'gh', 'make', 'aws', 'gcloud'];

describe('every alias in the grammar tables', () => {
  it('is matched by a block rule written in its canonical form, and only surely by that', () => {
    let checked = 0;
    for (const name of PROGRAMS) {
      for (const [word, subcommand] of commandSpec(name)!.root.subcommands) {
        // Groups that only prefix another command (`gcloud beta ...`, `yarn workspace NAME ...`) have no form of their own.
        if (subcommand.level?.reenter !== undefined) continue;
        const canonical = rule(`${name} ${subcommand.path.join(' ')}`, 'block');
        // An alias the user may redefine may also be something else: maybe.
        const overridable = commandSpec(name)!.root.overridable?.has(word) === true;
        expect(matchRule(canonical, first(`${name} ${word} x`)), `${name} ${word}`).toBe(overridable ? 'maybe' : 'yes');
        const spelled = rule(`${name} ${word}`, 'block');
        expect(matchRule(spelled, first(`${name} ${subcommand.path.join(' ')} x`)), `${name} ${subcommand.path.join(' ')}`).toBe('yes');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
  });
});

describe('fuzz: matching never throws and a block rule is never outflanked by added options', () => {
  // A small deterministic generator (mulberry32), so a failure names a reproducible command.
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  // Options, values and words known only at run time; never a real subcommand of these programs (`npm x install` runs a package named install).
  const TOKENS = ['-p', '-C', 'dir', '-c', 'a=b', '--zz', '-z', '--zz=1', '-n', 'ns', '+x', '"$(echo push)"', '$X', '*', '-rf', '--force'];

  it('holds for 3000 random command lines', () => {
    const next = random(20261124);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const blocks = [rule('git push', 'block'), rule('npm install', 'block'), rule('docker rm', 'block'), rule('kubectl delete', 'block'), rule('rm -rf', 'block'), rule('make deploy', 'block')];
    for (let round = 0; round < 3000; round++) {
      const target = pick(blocks);
      const words = [...target.words];
      // Insert one to three tokens anywhere after the name; the rule's words stay in order.
      const inserted = 1 + Math.floor(next() * 3);
      for (let count = 0; count < inserted; count++) {
        const token = pick(TOKENS);
        words.splice(1 + Math.floor(next() * words.length), 0, token);
      }
      const command = words.join(' ');
      const analysis = analyzeCommand(command);
      for (const analyzed of analysis.commands) for (const candidate of blocks) expect(() => matchRuleDetail(candidate, analyzed), command).not.toThrow();
      const own = analysis.commands.find((candidate) => candidate.name === target.words[0])!;
      // Options that take the rule's next word as their value can make it surely another command: only valued options known to the grammar may do that.
      const consumed = /(^| )(-C|-c|-n) (push|install|rm|delete|deploy)( |$)/.test(command);
      if (!consumed) expect(matchRule(target, own), command).not.toBe('no');
    }
  });
});

describe('built-in aliases a user may redefine', () => {
  it('are surely theirs for no rule, and may be any subcommand for restrictive ones', () => {
    expect(matchRule(rule('cargo test', 'allow'), first('cargo t'))).toBe('maybe');
    expect(matchRule(rule('cargo test', 'allow'), first('cargo test'))).toBe('yes');
    expect(matchRule(rule('cargo publish', 'block'), first('cargo t'))).toBe('maybe');
    expect(matchRule(rule('cargo publish', 'block'), first('cargo test'))).toBe('no');
    expect(matchRule(rule('cargo test', 'block'), first('cargo t'))).toBe('maybe');
  });
});

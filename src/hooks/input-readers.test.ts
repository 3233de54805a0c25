import { describe, expect, it } from 'vitest';
import { programReadingInput } from './input-readers.ts';

describe('programs that read commands from their input (what Codex lets the model type into with no hook)', () => {
  it.each([
    'python3',
    'python3 -i script.py',
    'python3.12 -',
    'python3 -W ignore',
    'node',
    'node --require ./hook.js',
    'bash',
    'sh -s',
    'zsh -i',
    'psql mydb',
    'mysql -u root shop',
    'sqlite3 app.db',
    'redis-cli',
    'irb',
    'less README.md',
    'vim notes.txt',
    'ssh host',
    'xargs rm',
    'docker exec -it web sh',
    'kubectl exec --stdin pod -- sh',
    'cd src && python3',
    'echo ok; bash',
    'python3 /dev/stdin',
    'bash /dev/stdin',
    'sh /proc/self/fd/0',
    'bash < /dev/stdin',
    "python3 -ic 'x=1'",
    'python3 -m code',
    'python3 -m pdb x.py',
    'perl -d -e 0',
    'sed -f - x',
    'awk -f /dev/stdin',
    'docker compose exec app sh',
    'docker attach c',
    'ipython',
    'tsx',
    'php',
  ])('%s asks', (command) => {
    expect(programReadingInput(command)).toMatch(/: whatever the model types into it later \(Codex's write_stdin\) runs with no hook$/);
  });

  it.each([
    'python3 script.py',
    'python3 -c "print(1)"',
    'python3 -m pytest',
    'node build.js',
    'node -e "console.log(1)"',
    'bash -c "ls"',
    'bash scripts/test.sh',
    "psql mydb -c 'select 1'",
    'mysql -e "select 1" shop',
    "sqlite3 app.db 'select 1'",
    'redis-cli ping',
    'docker ps',
    'docker run --rm alpine true',
    'ls -la',
    'cat README.md',
    'git status',
    'find . -name "*.log" | xargs rm',
    'sqlite3 app.db < schema.sql',
    'tsx script.ts',
    'docker compose exec -T app ls',
    'sed -f script.sed x',
  ])('%s does not', (command) => {
    expect(programReadingInput(command)).toBeUndefined();
  });

  it('a command Codex gives a terminal (tty) asks, whatever it is', () => {
    expect(programReadingInput('git log', { terminal: true })).toContain('Codex gives this command a terminal (tty)');
    expect(programReadingInput('git log')).toBeUndefined();
  });
});

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
  ])('%s asks', (command) => {
    expect(programReadingInput(command)).toMatch(/(reads (a program|statements|commands) from its input|takes its arguments from its input|attaches the model).*: whatever the model types into it later \(Codex's write_stdin\) runs with no hook/);
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
  ])('%s does not', (command) => {
    expect(programReadingInput(command)).toBeUndefined();
  });
});

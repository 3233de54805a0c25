import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { workspaceCode } from './workspace-code-commands.ts';

function code(line: string): { index: number } | undefined {
  const [command] = analyzeCommand(line).commands;
  return workspaceCode({ name: command!.name!, words: command!.words });
}

describe('workspaceCode', () => {
  it.each([
    ['npm install', 1], ['npm i', 1], ['npm ci', 1], ['npm test', 1], ['npm run build', 1], ['npm start', 1], ['npm rebuild', 1], ['npm audit fix', 1], ['npm --silent test', 2],
    ['npm exec x', 1], ['pnpm build', 1], ['pnpm install', 1], ['yarn', 0], ['yarn build', 0], ['yarn --version', 0], ['yarn info x', 0], ['pip install -e .', 1], ['pip3 download x', 1], ['cargo build', 1], ['cargo check', 1],
    ['cargo test', 1], ['go test ./...', 1], ['go generate', 1], ['go run .', 1], ['make', 0], ['make test', 0], ['just', 0], ['mvn package', 0], ['./gradlew build', 0],
    ['pytest', 0], ['tox', 0], ['jest', 0], ['vitest run', 0], ['eslint .', 0], ['prettier --check .', 0], ['vite build', 0], ['webpack', 0], ['tsc', 0], ['tsc -b --noEmit', 0], ['tsc --noEmit --generateTrace t', 0], ['direnv allow', 0],
    ['composer install', 0], ['bundle exec rake', 0], ['bundle list', 0], ['cargo tree', 1], ['cargo metadata', 1], ['poetry install', 1], ['uv sync', 1], ['dotnet build', 1], ['terraform plan', 0], ['rake', 0], ['mypy .', 0],
  ])('%s runs project code (on word %i)', (line, index) => {
    expect(code(line)).toMatchObject({ index });
  });

  it.each(['npm ls', 'npm view react', 'npm --version', 'npm outdated', 'npm audit', 'pnpm why x', 'pip list', 'pip show x', 'cargo search x',
    'go build ./...', 'go vet ./...', 'go mod tidy', 'go version', 'tsc --noEmit', 'make --version', 'terraform fmt', 'uv pip list', 'ls', 'git status'])('%s does not', (line) => {
    expect(code(line)).toBeUndefined();
  });

  it.each([
    ['npm --editor ls install', 3], ['npm --foo ls test', 3], ['npm --userconfig view ci', 3], ['npm -w ls ci', 3], ['pip --log list install x', 3], ['pnpm --dir ls install', 3], ['cargo --color search build', 3],
  ])('%s runs project code: the option before the subcommand may take the first word as its value (on word %i)', (line, index) => {
    expect(code(line)).toMatchObject({ index });
  });

  it.each([
    ['npm config edit', 2], ['npm c edit', 2], ['npm config set editor=./x', 2], ['npm config --location project set x=y', 3], ['npm config delete x', 2], ['npm config fix', 2], ['npm config --editor get edit', 4], ['npm config "$action"', 2],
    ['npm edit lodash', 1], ['npm docs', 1], ['npm home x', 1], ['npm bugs', 1], ['npm repo', 1], ['npm help install', 1], ['npm fund lodash', 1], ['npm trust github x', 1],
  ])('%s runs a program an npmrc names, or changes an npmrc (on word %i)', (line, index) => {
    expect(code(line)).toMatchObject({ index });
  });

  it.each(['npm config get editor', 'npm config list', 'npm config --json list', 'npm c ls', 'npm config', 'npm get x', 'npm help', 'npm fund', 'npm trust list x', 'npm sbom'])('%s only prints', (line) => {
    expect(code(line)).toBeUndefined();
  });

  it.each(['npm -g ls', 'npm --json ls', 'npm --loglevel=warn ls', 'npm -g ls --depth 0', 'npm --silent ls', 'pip -q list', 'pip -q list --format json', 'npm --editor ls'])('%s does not: the word after each option is its value or the subcommand, and both are plain', (line) => {
    expect(code(line)).toBeUndefined();
  });
});

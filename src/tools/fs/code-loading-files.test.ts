import { describe, expect, it } from 'vitest';
import { codeLoadingFile } from './code-loading-files.ts';

describe('codeLoadingFile', () => {
  it.each([
    '.git', '.git/config', '.git/hooks/pre-commit', '.git/info/attributes', 'vendor/lib/.git/config', '.GIT/config', '.gitattributes', 'sub/.gitattributes', '.gitmodules',
    '.envrc', 'sub/.envrc', '.vscode/tasks.json', '.vscode/settings.json', '.idea/workspace.xml', '.devcontainer/devcontainer.json', '.husky/pre-commit', '.npmrc',
    '.yarnrc.yml', '.yarn/releases/yarn.cjs', '.pnpmfile.cjs', '.cargo/config.toml', '.bundle/config', '.pre-commit-config.yaml', '.bashrc', '.zshrc', 'bunfig.toml', '.hg/hgrc',
    // The agent hosts' instructions, as they are named (upper case: the names are compared folded), and opencode's configuration.
    'AGENTS.md', 'sub/CLAUDE.md', 'GEMINI.md', 'agents.md', '.opencode/plugins/evil.js', '.opencode', 'opencode.json', 'sub/opencode.jsonc',
    // Copilot's: the hooks interactive Copilot CLI runs from a repository, its instructions and agents.
    '.github/hooks/x.json', '.github/copilot-instructions.md', '.github/instructions/a.instructions.md', '.github/agents/x.md',
  ])('%s is code-loading', (relative) => {
    expect(codeLoadingFile({ absolute: `/p/ws/${relative}`, root: '/p/ws' })).toBeDefined();
  });

  it.each(['src/index.ts', 'README.md', 'package.json', '.gitignore', '.editorconfig', 'notes/.git-notes.txt', 'a.git/x', '.cargo/registry/x', 'docs/vscode/tasks.json', '.yarn/cache/x.zip', '.github/workflows/ci.yml', '.github/ISSUE_TEMPLATE/bug.md'])('%s is not', (relative) => {
    expect(codeLoadingFile({ absolute: `/p/ws/${relative}`, root: '/p/ws' })).toBeUndefined();
  });

  it('counts only what lies below the zone root', () => {
    expect(codeLoadingFile({ absolute: '/home/me/.vscode/proj/src/a.ts', root: '/home/me/.vscode/proj' })).toBeUndefined();
    expect(codeLoadingFile({ absolute: '/home/me/.vscode/proj/src/a.ts' })).toBeDefined();
  });
});

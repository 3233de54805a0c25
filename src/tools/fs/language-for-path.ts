import path from 'node:path';

/** File extension → the language name approvers use for syntax highlighting. */
const LANGUAGES: Readonly<Record<string, string>> = {
  '.ts': 'typescript',
  '.tsx': 'tsx',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.js': 'javascript',
  '.jsx': 'jsx',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.json': 'json',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.py': 'python',
  '.rb': 'ruby',
  '.rs': 'rust',
  '.go': 'go',
  '.java': 'java',
  '.kt': 'kotlin',
  '.c': 'c',
  '.h': 'c',
  '.cpp': 'cpp',
  '.hpp': 'cpp',
  '.cs': 'csharp',
  '.php': 'php',
  '.swift': 'swift',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
  '.ps1': 'powershell',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.xml': 'xml',
  '.html': 'html',
  '.css': 'css',
  '.scss': 'scss',
  '.sql': 'sql',
  '.txt': 'text',
  '.csv': 'csv',
};

const NAMES: Readonly<Record<string, string>> = {
  Dockerfile: 'dockerfile',
  Makefile: 'makefile',
};

/**
 * The language of a file, from its name, for highlighting new-file content.
 * Undefined when the extension is unknown.
 *
 * @example
 * languageForPath('ws/app.ts') // 'typescript'
 */
export function languageForPath(filePath: string): string | undefined {
  const name = path.basename(filePath);
  return NAMES[name] ?? LANGUAGES[path.extname(name).toLowerCase()];
}

/**
 * The web inbox's files, read once from `static/` beside this module (in
 * the source tree and, copied by `npm run build`, in `dist`): the page
 * under `/` and `/login`, its scripts and stylesheet under `/assets/`.
 * Nothing is loaded from elsewhere at run time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface WebAsset {
  body: Buffer;
  contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

let cached: Map<string, WebAsset> | undefined;

/**
 * URL path → file: `/` and `/login` (the page), `/assets/inbox.js`,
 * `/assets/inbox.css` and the page's other modules under `/assets/`.
 * Throws when a file is missing: a server without its inbox should say so
 * at start, not serve half a page.
 *
 * @example
 * createServerApp({ ..., web: webAssets() });
 */
export function webAssets(): Map<string, WebAsset> {
  if (cached !== undefined) return cached;
  const directory = path.join(import.meta.dirname, 'static');
  const assets = new Map<string, WebAsset>();
  const page: WebAsset = { body: readFileSync(path.join(directory, 'index.html')), contentType: CONTENT_TYPES['.html']! };
  assets.set('/', page);
  assets.set('/login', page);
  // The page a one-tap decision link opens (/decide/TOKEN).
  assets.set('/decide', { body: readFileSync(path.join(directory, 'decide.html')), contentType: CONTENT_TYPES['.html']! });
  for (const name of readdirSync(directory).sort()) {
    const extension = path.extname(name);
    if (extension !== '.js' && extension !== '.css') continue;
    assets.set(`/assets/${name}`, { body: readFileSync(path.join(directory, name)), contentType: CONTENT_TYPES[extension]! });
  }
  for (const required of ['/assets/inbox.js', '/assets/inbox.css']) {
    if (!assets.has(required)) throw new Error(`the web inbox is incomplete: ${required} is missing from ${directory}`);
  }
  cached = assets;
  return assets;
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { webAssets } from './web-assets.ts';

const STATIC = path.join(import.meta.dirname, 'static');

describe('webAssets', () => {
  it('maps the page, its scripts and its stylesheet, with their content types', () => {
    const assets = webAssets();
    expect([...assets.keys()].sort()).toEqual(['/', '/login', '/decide', ...readdirSync(STATIC).filter((name) => /\.(js|css)$/.test(name)).map((name) => `/assets/${name}`)].sort());
    expect(assets.get('/')!.contentType).toBe('text/html; charset=utf-8');
    expect(assets.get('/login')!.body.equals(assets.get('/')!.body)).toBe(true);
    // The page a one-tap link opens: its own file, served for every /decide/TOKEN.
    expect(assets.get('/decide')!.body.toString('utf8')).toContain('<script type="module" src="/assets/decide.js"></script>');
    expect(assets.get('/assets/inbox.js')!.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('/assets/inbox.css')!.contentType).toBe('text/css; charset=utf-8');
    expect(webAssets()).toBe(assets);
  });

  it('holds nothing the CSP would block or that loads from elsewhere: no inline script or style, no other origin', () => {
    for (const name of readdirSync(STATIC)) {
      const text = readFileSync(path.join(STATIC, name), 'utf8');
      expect(text, name).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
      expect(text, name).not.toMatch(/\bstyle\s*=|\.style\b|\.innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
      if (name.endsWith('.html')) {
        expect(text).not.toMatch(/\son[a-z]+\s*=/i);
        for (const script of text.match(/<script\b[^>]*>[^]*?<\/script>/g) ?? []) expect(script).toMatch(/^<script type="module" src="\/assets\/[a-z-]+\.js"><\/script>$/);
      }
    }
  });

  it('every module the page imports is served', () => {
    const assets = webAssets();
    for (const [key, asset] of assets) {
      if (!key.endsWith('.js')) continue;
      for (const [, target] of asset.body.toString('utf8').matchAll(/from '\.\/([a-z-]+\.js)'/g)) expect(assets.has(`/assets/${target}`), `${key} imports ${target}`).toBe(true);
    }
  });
});

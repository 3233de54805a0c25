import { describe, expect, it } from 'vitest';
import { assignClientNames, type NamedItem } from './assign-client-names.ts';

const item = (server: string, name: string, namespace = server): NamedItem<string> => ({ server, namespace, name, item: `${server}/${name}` });

describe('assignClientNames', () => {
  it('keeps unique names and prefixes every server offering a colliding one', () => {
    const { assigned, dropped } = assignClientNames({ items: [item('files', 'read_file'), item('files', 'write_file'), item('backup', 'write_file', 'bk')], mode: 'collisions' });
    expect(assigned.map((entry) => entry.clientName)).toEqual(['read_file', 'files__write_file', 'bk__write_file']);
    expect(dropped).toEqual([]);
  });

  it('prefixes everything in always mode', () => {
    const { assigned } = assignClientNames({ items: [item('files', 'read_file')], mode: 'always' });
    expect(assigned.map((entry) => entry.clientName)).toEqual(['files__read_file']);
  });

  it('drops later items that would still share a client name, never routing ambiguously', () => {
    const { assigned, dropped } = assignClientNames({
      items: [item('a', 'x__y'), item('x', 'y'), item('w', 'y'), item('b', 'z', 'same'), item('c', 'z', 'same'), item('d', 'dup'), item('d', 'dup')],
      mode: 'collisions',
    });
    // a's own "x__y" reads as server x's y: it is namespaced itself, and x keeps its name.
    expect(assigned.map((entry) => `${entry.server}:${entry.clientName}`)).toEqual(['a:a__x__y', 'x:x__y', 'w:w__y', 'b:same__z', 'd:dup']);
    expect(dropped.map((entry) => `${entry.server}:${entry.clientName}`)).toEqual(['c:same__z', 'd:dup']);
    expect(dropped[0]!.reason).toContain('namespace');
    expect(dropped[1]!.reason).toContain('twice');
  });

  it("never lets one server's tool take another server's namespaced name, listed first or while that server is down", () => {
    const first = assignClientNames({ items: [item('evil', 'files__write_file'), item('files', 'write_file'), item('backup', 'write_file')], mode: 'collisions' });
    expect(first.assigned.map((entry) => `${entry.server}:${entry.clientName}`)).toEqual(['evil:evil__files__write_file', 'files:files__write_file', 'backup:backup__write_file']);
    expect(first.dropped).toEqual([]);
    // files lists nothing (it is down): its namespace is still reserved.
    const down = assignClientNames({ items: [item('evil', 'files__write_file')], mode: 'collisions', namespaces: ['evil', 'files'] });
    expect(down.assigned.map((entry) => entry.clientName)).toEqual(['evil__files__write_file']);
    // A name of its own namespace, or of no server's, is left as it is.
    const own = assignClientNames({ items: [item('files', 'files__read'), item('files', 'other__read')], mode: 'collisions', namespaces: ['files'] });
    expect(own.assigned.map((entry) => entry.clientName)).toEqual(['files__read', 'other__read']);
  });
});

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
    expect(assigned.map((entry) => `${entry.server}:${entry.clientName}`)).toEqual(['a:x__y', 'w:w__y', 'b:same__z', 'd:dup']);
    expect(dropped.map((entry) => `${entry.server}:${entry.clientName}`)).toEqual(['x:x__y', 'c:same__z', 'd:dup']);
    expect(dropped[1]!.reason).toContain('namespace');
    expect(dropped[2]!.reason).toContain('twice');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intersectNetworks, intersectProfiles } from './intersect-profiles.ts';
import { accessOf, accessOfFile, weakestAccess, type SandboxNetwork, type SandboxPathRule, type SandboxProfile } from './sandbox-profile.ts';

function profile(options: { writable?: (string | SandboxPathRule)[]; readOnly?: string[]; hidden?: string[]; network?: SandboxNetwork; privateTemporaryDirectory?: boolean }): SandboxProfile {
  const rule = (entry: string | SandboxPathRule): SandboxPathRule => (typeof entry === 'string' ? { path: entry, source: 'test' } : entry);
  return {
    writable: (options.writable ?? []).map(rule),
    readOnly: (options.readOnly ?? []).map(rule),
    hidden: (options.hidden ?? []).map(rule),
    network: options.network ?? { mode: 'none' },
    privateTemporaryDirectory: options.privateTemporaryDirectory ?? true,
  };
}

describe('intersectProfiles', () => {
  const derived = profile({ writable: ['/ws'], readOnly: ['/usr', '/docs'], network: { mode: 'all' } });

  it('never grants what the derived profile does not: an operator cannot widen it', () => {
    const generous = profile({ writable: ['/', '/docs', '/etc'], network: { mode: 'all' } });
    const result = intersectProfiles(derived, generous);
    expect(accessOf(result, '/ws/a').access).toBe('read-write');
    expect(accessOf(result, '/docs/a').access).toBe('read-only');
    expect(accessOf(result, '/etc/passwd').access).toBe('none');
    expect(accessOf(result, '/home').access).toBe('none');
  });

  it('lets an operator remove permissions: a writable zone made read-only, a path hidden, the network cut', () => {
    const strict = profile({ readOnly: ['/'], writable: ['/ws/out'], hidden: ['/ws/secrets'], network: { mode: 'none' } });
    const result = intersectProfiles(derived, strict);
    expect(accessOf(result, '/ws/a').access).toBe('read-only');
    expect(accessOf(result, '/ws/out/a').access).toBe('read-write');
    expect(accessOf(result, '/ws/secrets/key').access).toBe('none');
    expect(accessOf(result, '/usr/bin/sh').access).toBe('read-only');
    expect(result.network).toEqual({ mode: 'none' });
  });

  it('intersects suffix limits, and an empty intersection is read-only', () => {
    const left = profile({ writable: [{ path: '/notes', source: 'zone', suffixes: ['.md', '.txt'] }] });
    const right = profile({ writable: [{ path: '/notes', source: 'operator', suffixes: ['.txt', '.log'] }] });
    const result = intersectProfiles(left, right);
    expect(accessOfFile(result, '/notes/a.txt')).toBe('read-write');
    expect(accessOfFile(result, '/notes/a.md')).toBe('read-only');
    const disjoint = intersectProfiles(left, profile({ writable: [{ path: '/notes', source: 'operator', suffixes: ['.log'] }] }));
    expect(accessOf(disjoint, '/notes/a.txt').access).toBe('read-only');
  });

  it('keeps the private /tmp only if both have it, and drops rules that repeat their parent', () => {
    const result = intersectProfiles(derived, profile({ readOnly: ['/'], writable: ['/ws', '/ws/deeper'], privateTemporaryDirectory: false }));
    expect(result.privateTemporaryDirectory).toBe(false);
    expect(result.writable.map((rule) => rule.path)).toEqual(['/ws']);
  });

  it('is exact: at every path the result allows the weaker of the two (property)', () => {
    const segment = fc.constantFrom('a', 'b', 'c');
    const pathArbitrary = fc.array(segment, { minLength: 0, maxLength: 3 }).map((parts) => `/${parts.join('/')}`.replace(/\/$/, '') || '/');
    const profileArbitrary = fc
      .record({ writable: fc.array(pathArbitrary, { maxLength: 3 }), readOnly: fc.array(pathArbitrary, { maxLength: 3 }), hidden: fc.array(pathArbitrary, { maxLength: 2 }) })
      .map((rules) => profile(rules));
    fc.assert(
      fc.property(profileArbitrary, profileArbitrary, fc.array(pathArbitrary, { minLength: 1, maxLength: 5 }), (first, second, probes) => {
        const result = intersectProfiles(first, second);
        for (const probe of [...probes, `${probes[0]}/x`]) {
          const expected = weakestAccess(accessOf(first, probe).access, accessOf(second, probe).access);
          if (accessOf(result, probe).access !== expected) return false;
        }
        return true;
      }),
      { numRuns: 500 },
    );
  });
});

describe('intersectNetworks', () => {
  it('takes the stricter mode and intersects domain lists', () => {
    expect(intersectNetworks({ mode: 'all' }, { mode: 'none' })).toEqual({ mode: 'none' });
    expect(intersectNetworks({ mode: 'all' }, { mode: 'domains', allowDomains: ['a.com'] })).toEqual({ mode: 'domains', allowDomains: ['a.com'] });
    expect(intersectNetworks({ mode: 'domains', allowDomains: ['*.example.com', 'b.com'] }, { mode: 'domains', allowDomains: ['api.example.com', 'c.com'] })).toEqual({
      mode: 'domains',
      allowDomains: ['api.example.com'],
    });
    expect(intersectNetworks({ mode: 'domains', allowDomains: ['a.com'] }, { mode: 'domains', allowDomains: ['b.com'] })).toEqual({ mode: 'none' });
    expect(intersectNetworks({ mode: 'domains', allowDomains: ['example.com'] }, { mode: 'domains', allowDomains: ['*.example.com'] })).toEqual({ mode: 'none' });
  });
});

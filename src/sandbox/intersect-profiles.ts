import {
  accessOf,
  pathDepth,
  weakestAccess,
  type PathAccess,
  type SandboxAccess,
  type SandboxNetwork,
  type SandboxPathRule,
  type SandboxProfile,
} from './sandbox-profile.ts';

/**
 * The profile that allows exactly what both profiles allow, path by path:
 * how an operator's explicit profile is applied to the one derived from the
 * policy (seed 001: an explicit profile can only make the sandbox stricter,
 * never grant more than the policy implies). Symmetric.
 *
 * Exact, not approximate: every path where either profile has a rule gets
 * the weaker of the two accesses there, and because a path's access is
 * decided by its deepest covering rule, every other path then gets the weaker
 * of its two accesses too. Rules that repeat what their parent already says
 * are dropped. Writable suffix limits intersect (an empty intersection is
 * read-only); network takes the stricter mode (`none` < `domains` < `all`,
 * domain lists intersect); the private /tmp stays only if both have it.
 *
 * @example
 * const profile = intersectProfiles(derived, operatorProfile);
 * accessOf(profile, '/ws/out') // read-only when the operator made /ws read-only
 */
export function intersectProfiles(first: SandboxProfile, second: SandboxProfile): SandboxProfile {
  const candidates = new Set<string>();
  for (const profile of [first, second]) {
    for (const rule of [...profile.writable, ...profile.readOnly, ...profile.hidden]) candidates.add(rule.path);
  }
  const ordered = [...candidates].sort((left, right) => pathDepth(left) - pathDepth(right) || left.localeCompare(right));
  const writable: SandboxPathRule[] = [];
  const readOnly: SandboxPathRule[] = [];
  const hidden: SandboxPathRule[] = [];
  const built = (): SandboxProfile => ({ writable, readOnly, hidden, network: { mode: 'none' }, privateTemporaryDirectory: false });
  for (const candidate of ordered) {
    const combined = combine(accessOf(first, candidate), accessOf(second, candidate));
    // Rules are added shallowest first, so this is what `candidate` would inherit without its own rule.
    const inherited = accessOf(built(), candidate);
    if (sameAccess(combined, inherited)) continue;
    const rule: SandboxPathRule = { path: candidate, source: combined.source };
    if (combined.access === 'read-write') writable.push(combined.suffixes === undefined ? rule : { ...rule, suffixes: combined.suffixes });
    else if (combined.access === 'read-only') readOnly.push(rule);
    else hidden.push(rule);
  }
  return {
    writable,
    readOnly,
    hidden,
    network: intersectNetworks(first.network, second.network),
    privateTemporaryDirectory: first.privateTemporaryDirectory && second.privateTemporaryDirectory,
  };
}

interface CombinedAccess {
  access: SandboxAccess;
  suffixes: readonly string[] | undefined;
  source: string;
}

function combine(first: PathAccess, second: PathAccess): CombinedAccess {
  const access = weakestAccess(first.access, second.access);
  const source = describeSource(first, second, access);
  if (access !== 'read-write') return { access, suffixes: undefined, source };
  const suffixes = intersectSuffixes(first.suffixes, second.suffixes);
  // A writable rule that admits no file name at all is a read-only rule.
  if (suffixes !== undefined && suffixes.length === 0) return { access: 'read-only', suffixes: undefined, source };
  return { access, suffixes, source };
}

function describeSource(first: PathAccess, second: PathAccess, access: SandboxAccess): string {
  const firstSource = first.rule?.source ?? 'not in the sandbox';
  const secondSource = second.rule?.source ?? 'not in the sandbox';
  if (first.access === access && second.access !== access) return firstSource;
  if (second.access === access && first.access !== access) return secondSource;
  return firstSource === secondSource ? firstSource : `${firstSource} ∩ ${secondSource}`;
}

function intersectSuffixes(first: readonly string[] | undefined, second: readonly string[] | undefined): readonly string[] | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  // A file ends with both `x` and `y` exactly when it ends with the longer one, if that ends with the shorter.
  const result = new Set<string>();
  for (const left of first) {
    for (const right of second) {
      if (left.endsWith(right)) result.add(left);
      else if (right.endsWith(left)) result.add(right);
    }
  }
  return [...result].sort();
}

function sameAccess(combined: CombinedAccess, inherited: PathAccess): boolean {
  if (combined.access !== inherited.access) return false;
  const left = combined.suffixes === undefined ? undefined : [...combined.suffixes].sort().join('\n');
  const right = inherited.suffixes === undefined ? undefined : [...inherited.suffixes].sort().join('\n');
  return left === right;
}

/**
 * The stricter of two network settings; two domain lists keep the domains
 * that both allow (`api.example.com` survives `*.example.com`).
 *
 * @example
 * intersectNetworks({ mode: 'all' }, { mode: 'none' }) // { mode: 'none' }
 */
export function intersectNetworks(first: SandboxNetwork, second: SandboxNetwork): SandboxNetwork {
  if (first.mode === 'none' || second.mode === 'none') return { mode: 'none' };
  if (first.mode === 'all') return second;
  if (second.mode === 'all') return first;
  const kept = new Set<string>();
  for (const domain of first.allowDomains) if (second.allowDomains.some((pattern) => domainCovers(pattern, domain))) kept.add(domain.toLowerCase());
  for (const domain of second.allowDomains) if (first.allowDomains.some((pattern) => domainCovers(pattern, domain))) kept.add(domain.toLowerCase());
  return kept.size === 0 ? { mode: 'none' } : { mode: 'domains', allowDomains: [...kept].sort() };
}

/** `*.example.com` covers `api.example.com` and `*.api.example.com`, not `example.com`. */
function domainCovers(pattern: string, domain: string): boolean {
  const normalizedPattern = pattern.toLowerCase();
  const normalizedDomain = domain.toLowerCase();
  if (normalizedPattern === normalizedDomain) return true;
  return normalizedPattern.startsWith('*.') && normalizedDomain.endsWith(normalizedPattern.slice(1));
}

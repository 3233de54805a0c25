import { describe, expect, it } from 'vitest';
import type { SandboxDetection } from './detect-sandbox.ts';
import { resolveSandboxPolicy, sandboxRequirement } from './sandbox-policy.ts';
import { SandboxUnavailableError } from './sandbox-unavailable-error.ts';

const available: SandboxDetection = { available: true, kind: 'bwrap', details: { platform: 'linux', bwrapPath: '/usr/bin/bwrap' } };
const unavailable: SandboxDetection = {
  available: false,
  kind: 'bwrap',
  reason: 'bwrap (bubblewrap) is not installed or not on PATH: install bubblewrap: apt-get install bubblewrap',
  details: { platform: 'linux' },
};

describe('sandboxRequirement: defaults that fail closed', () => {
  it('treats a missing section as required + refuse_tools', () => {
    expect(sandboxRequirement(undefined)).toEqual({ os: 'required', fallback: 'refuse_tools', defaulted: { os: true, fallback: true } });
    expect(sandboxRequirement({})).toEqual({ os: 'required', fallback: 'refuse_tools', defaulted: { os: true, fallback: true } });
  });

  it('defaults the fallback of an explicit os: required to fail_fast (seed 001)', () => {
    expect(sandboxRequirement({ os: 'required' })).toEqual({ os: 'required', fallback: 'fail_fast', defaulted: { os: false, fallback: true } });
    expect(sandboxRequirement({ fallback: 'fail_fast' })).toEqual({ os: 'required', fallback: 'fail_fast', defaulted: { os: true, fallback: false } });
  });
});

describe('resolveSandboxPolicy: every os / fallback / availability combination', () => {
  const osValues = ['required', 'preferred', 'off', undefined] as const;
  const fallbackValues = ['fail_fast', 'refuse_tools', undefined] as const;
  const expected = (os: (typeof osValues)[number], fallback: (typeof fallbackValues)[number], isAvailable: boolean): string => {
    const effectiveOs = os ?? 'required';
    if (effectiveOs === 'off') return 'unsandboxed';
    if (isAvailable) return 'sandboxed';
    if (effectiveOs === 'preferred') return 'unsandboxed';
    const effectiveFallback = fallback ?? (os === undefined ? 'refuse_tools' : 'fail_fast');
    return effectiveFallback === 'fail_fast' ? 'throws' : 'refuse-tools';
  };
  for (const os of osValues) {
    for (const fallback of fallbackValues) {
      for (const isAvailable of [true, false]) {
        const outcome = expected(os, fallback, isAvailable);
        it(`os ${os ?? '(absent)'}, fallback ${fallback ?? '(absent)'}, sandbox ${isAvailable ? 'available' : 'unavailable'}: ${outcome}`, () => {
          const section = { ...(os === undefined ? {} : { os }), ...(fallback === undefined ? {} : { fallback }) };
          const detection = isAvailable ? available : unavailable;
          if (outcome === 'throws') {
            expect(() => resolveSandboxPolicy({ sandbox: section, detection })).toThrow(SandboxUnavailableError);
            return;
          }
          const decision = resolveSandboxPolicy({ sandbox: section, detection });
          expect(decision.mode).toBe(outcome);
          if (decision.mode === 'sandboxed') expect(decision.kind).toBe('bwrap');
          if (decision.mode === 'refuse-tools') {
            expect(decision.refusedTools).toEqual(['fs', 'shell']);
            expect(decision.reason).toContain('install bubblewrap');
          }
          if (decision.mode === 'unsandboxed') expect(decision.reason).toMatch(/without an OS sandbox/);
        });
      }
    }
  }

  it('fails fast with a stable code, the detection reason and what to do', () => {
    try {
      resolveSandboxPolicy({ sandbox: { os: 'required' }, detection: unavailable });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SandboxUnavailableError);
      const failure = error as SandboxUnavailableError;
      expect(failure.code).toBe('SANDBOX_UNAVAILABLE');
      expect(failure.message).toContain('apt-get install bubblewrap');
      expect(failure.message).toContain('sandbox: { os: required, fallback: refuse_tools }');
      expect(failure.detection).toBe(unavailable);
    }
  });

  it('says why when preferred runs without a sandbox', () => {
    const decision = resolveSandboxPolicy({ sandbox: { os: 'preferred' }, detection: unavailable });
    expect(decision).toMatchObject({ mode: 'unsandboxed' });
    expect(decision.reason).toContain('not installed');
  });

  it('the refusal the model reads names the setting and the file that refused, and never the line that would run the tools unconfined', () => {
    const missing = resolveSandboxPolicy({ sandbox: undefined, detection: unavailable, policyFile: '/p/toolgate.yaml' });
    expect(missing.reason).toContain('the policy has no sandbox.os, which means required (/p/toolgate.yaml)');
    const written = resolveSandboxPolicy({ sandbox: { os: 'required', fallback: 'refuse_tools' }, detection: unavailable, policyFile: '/p/toolgate.yaml' });
    expect(written.reason).toContain('sandbox.os is required (/p/toolgate.yaml)');
    for (const decision of [missing, written]) {
      expect(decision.reason).toContain('toolgate doctor');
      expect(decision.reason).not.toMatch(/preferred|os: off/);
    }
    expect(() => resolveSandboxPolicy({ sandbox: { os: 'required' }, detection: unavailable, policyFile: '/p/toolgate.yaml' })).toThrow(/change the sandbox line in \/p\/toolgate\.yaml to/);
  });

  it('never reports a sandbox of kind none as sandboxed', () => {
    const odd: SandboxDetection = { available: true, kind: 'none', details: { platform: 'win32' } };
    expect(resolveSandboxPolicy({ sandbox: undefined, detection: odd }).mode).toBe('refuse-tools');
  });
});

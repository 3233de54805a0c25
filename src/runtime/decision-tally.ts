import type { GateObserver } from '../core/gate.ts';

/** Counts of final decisions, for a run's summary line. */
export interface DecisionTally extends GateObserver {
  readonly counts: { allowed: number; approved: number; denied: number; blocked: number; timedOut: number };
}

/**
 * A gate observer that counts decisions (a sub-agent's calls count too: they
 * go through the same gate).
 *
 * @example
 * const tally = createDecisionTally();
 * const gate = createRuntimeGate({ loaded, observer: tally });
 */
export function createDecisionTally(): DecisionTally {
  const counts = { allowed: 0, approved: 0, denied: 0, blocked: 0, timedOut: 0 };
  return {
    counts,
    authorized({ authorization }) {
      if (authorization.decision === 'allow') counts.allowed++;
      else if (authorization.decision === 'approved') counts.approved++;
      else if (authorization.decision === 'block') counts.blocked++;
      else if (authorization.decision === 'denied') {
        counts.denied++;
        if (authorization.source === 'timeout') counts.timedOut++;
      }
    },
  };
}

/** Combines observers (metrics and a tally, say); one that throws does not stop the others. */
export function combineObservers(...observers: (GateObserver | undefined)[]): GateObserver {
  return {
    authorized(event) {
      for (const observer of observers) {
        try {
          observer?.authorized(event);
        } catch {
          // An observer never changes a decision, nor stops another observer.
        }
      }
    },
  };
}

/**
 * The name a file is renamed to while one caller works on it (a claim: the
 * rename either takes the whole file or finds it gone). Unique per process
 * and per claim: hook calls answered by one decider run in one process, and
 * two claims under one name would let the second rename overwrite the
 * first's file, and lose what it held.
 *
 * @example
 * claimName('/s/hook-outbox.jsonl', 'sending') // '/s/hook-outbox.jsonl.4242-1.sending'
 */
export function claimName(file: string, purpose: string): string {
  sequence += 1;
  return `${file}.${process.pid}-${sequence}.${purpose}`;
}

let sequence = 0;
